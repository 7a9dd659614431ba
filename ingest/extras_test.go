package ingest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// The tracker's extras on the collector's side: a hash-routed page keeps its fragment, a
// non-interactive event counts but keeps the bounce, properties or revenue of any shape
// never cost the hit, and a flag of another type is refused.

func TestHashKeepsTheFragment(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	for _, b := range []string{
		`{"page":"https://site.test/app?x=1#/settings","hash":true}`,
		`{"page":"https://site.test/app#/plain"}`,
		`{"n":"pageview","u":"https://site.test/p#/a%20b","d":"site.test","h":1}`,
		`{"n":"pageview","u":"https://site.test/p#/dropped","d":"site.test"}`,
		`{"page":"https://site.test/nofragment#","hash":true}`,
	} {
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Fatalf("%s: status %d %s", b, res.Status, res.Body)
		}
	}
	want := map[string]int64{"/app?x=1#/settings": 1, "/app": 1, "/p#/a%20b": 1, "/p": 1, "/nofragment": 1}
	if got := e.stats(id)["page"]; len(got) != len(want) {
		t.Fatalf("pages %v, want %v", got, want)
	} else {
		for page, n := range want {
			if got[page] != n {
				t.Fatalf("pages %v, want %v", got, want)
			}
		}
	}
}

func TestNonInteractiveEventKeepsTheBounce(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	// Four visits (four client addresses) of one pageview and one event each: only the
	// interactive events end the bounce.
	events := []struct {
		body   string
		bounce bool
	}{
		{`{"page":"https://site.test/","event":{"name":"Video"},"interactive":false}`, true},
		{`{"n":"Video","u":"https://site.test/","d":"site.test","i":false}`, true},
		{`{"page":"https://site.test/","event":{"name":"Video"},"interactive":true}`, false},
		{`{"n":"Video","u":"https://site.test/","d":"site.test"}`, false},
	}
	var bounces int64
	for i, ev := range events {
		remote := "198.51.100." + string(rune('1'+i)) + ":5000"
		for _, b := range []string{body("https://site.test/", "", "1920x1080"), ev.body} {
			if res := e.send(hit{body: b, remote: remote}); res.Status != http.StatusAccepted {
				t.Fatalf("%s: status %d %s", b, res.Status, res.Body)
			}
		}
		if ev.bounce {
			bounces++
		}
	}
	got := e.stats(id)
	if got["event"]["Video::"] != 4 || got["visit"][day] != 4 {
		t.Fatalf("events %v, visits %v: want 4 events (non-interactive ones count) in 4 visits", got["event"], got["visit"])
	}
	if got["bounce"][day] != bounces {
		t.Fatalf("bounces %v, want %d (the visits whose event was not interactive)", got["bounce"], bounces)
	}
}

// Whatever the shape of properties and revenue, the hit is counted, never refused (a bad one
// is dropped). Flags of the wrong type are refused: TestFlagsOfAnotherTypeRefused.
func TestPropsAndRevenueNeverRefused(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	bodies := []string{
		`{"page":"https://site.test/","event":{"name":"A"},"props":{"plan":"pro","n":5,"o":{"x":1},"l":[1]}}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":"plan"}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":[1,2],"revenue":"ten"}`,
		`{"page":"https://site.test/","event":{"name":"A"},"revenue":{"amount":"x","currency":5}}`,
		`{"page":"https://site.test/","event":{"name":"A"},"revenue":{"amount":10.5,"currency":"EUR"}}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":null,"revenue":null,"interactive":null,"hash":null}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","p":"{\"a\":1}","$":[1]}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","p":[1],"revenue":5,"interactive":null}`,
	}
	for _, b := range bodies {
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Errorf("%s: status %d %s", b, res.Status, res.Body)
		}
	}
	if got := e.stats(id)["event"]; got["A::"]+got["A:10.5:EUR"] != int64(len(bodies)) {
		t.Fatalf("events %v, want %d", got, len(bodies))
	}
}

// A flag of another type than the spec declares (hash and interactive booleans; Plausible's i
// a boolean, h a number) is a 400 naming it, as a string member of another type is, and
// counts nothing: read as absent, a sender's "interactive": {} would end bounces unseen.
func TestFlagsOfAnotherTypeRefused(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	cases := []struct{ body, message string }{
		{`{"page":"https://site.test/","event":{"name":"A"},"interactive":{}}`, "interactive must be true, false or null."},
		{`{"page":"https://site.test/","event":{"name":"A"},"interactive":"false"}`, "interactive must be true, false or null."},
		{`{"page":"https://site.test/","interactive":0}`, "interactive must be true, false or null."},
		{`{"page":"https://site.test/","hash":7}`, "hash must be true, false or null."},
		{`{"page":"https://site.test/","hash":[true]}`, "hash must be true, false or null."},
		{`{"n":"A","u":"https://site.test/","d":"site.test","i":"no"}`, "i (interactive) must be true, false or null."},
		{`{"n":"A","u":"https://site.test/","d":"site.test","i":{}}`, "i (interactive) must be true, false or null."},
		{`{"name":"A","url":"https://site.test/","domain":"site.test","interactive":{}}`, "i (interactive) must be true, false or null."},
		{`{"n":"pageview","u":"https://site.test/","d":"site.test","h":"x"}`, "h must be a number or null."},
		{`{"n":"pageview","u":"https://site.test/","d":"site.test","h":true}`, "h must be a number or null."},
	}
	for _, c := range cases {
		res := e.send(hit{body: c.body})
		var got struct{ Message string }
		if err := json.Unmarshal(res.Body, &got); err != nil || res.Status != http.StatusBadRequest || got.Message != c.message {
			t.Errorf("%s: status %d %s, want 400 %q", c.body, res.Status, res.Body, c.message)
		}
	}
	// Their right types still count.
	for _, b := range []string{
		`{"page":"https://site.test/","event":{"name":"A"},"interactive":false,"hash":true}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","i":false,"h":1}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","i":null,"h":null}`,
	} {
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Errorf("%s: status %d %s", b, res.Status, res.Body)
		}
	}
	if got := e.stats(id)["event"]; got["A::"] != 3 {
		t.Fatalf("events %v, want A:: 3 (the refused bodies count nothing)", got)
	}
}

// Engagement hits count, per visit and page, the engaged time (e, cut to 30 minutes) and the
// deepest scroll depth (sd, dropped outside 0..100), only in an open visit.
func TestEngagementCountsPerVisitAndPage(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	send := func(remote, b string) {
		t.Helper()
		if res := e.send(hit{body: b, remote: remote}); res.Status != http.StatusAccepted {
			t.Fatalf("%s: status %d %s", b, res.Status, res.Body)
		}
	}
	engage := func(page, fields string) string {
		return `{"n":"engagement","u":"https://site.test` + page + `","d":"site.test"` + fields + `}`
	}
	a, b := "198.51.100.1:5000", "198.51.100.2:5000"
	send(a, engage("/a", `,"e":5000,"sd":40`)) // no open visit: ignored
	send(a, body("https://site.test/a", "", "1920x1080"))
	send(a, engage("/a", `,"e":5000,"sd":40`))
	send(a, engage("/a", `,"e":2000,"sd":30`))       // not deeper: the time only
	send(a, engage("/a", `,"e":99999999,"sd":80.4`)) // cut to 30 minutes; 40 deeper
	send(b, body("https://site.test/a", "", "1920x1080"))
	send(b, engage("/a", `,"e":1000,"sd":150`))       // sd dropped
	send(b, engage("/a", `,"e":"x","sd":-5,"p":[1]`)) // nothing to count, still no 400
	send(b, engage("/b", `,"e":3000`))
	send(b, engage("/b", `,"e":-1,"sd":0`))      // e dropped; a depth of 0 counts the visit
	send(b, engage("/c", `,"e":null,"sd":null`)) // null is none: nothing for /c
	want := counts{
		"engaged_visit": {"/a": 2, "/b": 1},
		"engaged_ms":    {"/a": 5000 + 2000 + 30*60*1000 + 1000, "/b": 3000},
		"scroll_visit":  {"/a": 1, "/b": 1},
		"scroll_sum":    {"/a": 80},
	}
	got := e.stats(id)
	for name, w := range want {
		if fmt.Sprint(got[name]) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v", name, got[name], w)
		}
	}
	if got["pageview"][day] != 2 || len(got["event"]) != 0 {
		t.Errorf("pageviews %v, events %v: want the 2 pageviews only", got["pageview"], got["event"])
	}
}
