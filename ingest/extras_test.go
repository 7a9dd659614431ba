package ingest_test

import (
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// The tracker's extras on the collector's side: a hash-routed page keeps its fragment, a
// non-interactive event counts but keeps the bounce, and properties or revenue of any shape
// never cost the hit.

func TestHashKeepsTheFragment(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	for _, b := range []string{
		`{"page":"https://site.test/app?x=1#/settings","hash":true}`,
		`{"page":"https://site.test/app#/plain"}`,
		`{"page":"https://site.test/app#/wrong","hash":"yes"}`,
		`{"n":"pageview","u":"https://site.test/p#/a%20b","d":"site.test","h":1}`,
		`{"n":"pageview","u":"https://site.test/p#/dropped","d":"site.test"}`,
		`{"page":"https://site.test/nofragment#","hash":true}`,
	} {
		if res := e.send(hit{body: b}); res.status != http.StatusAccepted {
			t.Fatalf("%s: status %d %s", b, res.status, res.body)
		}
	}
	want := map[string]int64{"/app?x=1#/settings": 1, "/app": 2, "/p#/a%20b": 1, "/p": 1, "/nofragment": 1}
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
			if res := e.send(hit{body: b, remote: remote}); res.status != http.StatusAccepted {
				t.Fatalf("%s: status %d %s", b, res.status, res.body)
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

// Properties and revenue are not stored yet; whatever their shape, and whatever a browser sends
// as interactive or hash, the hit is counted, never refused.
func TestPropsAndRevenueNeverRefused(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	bodies := []string{
		`{"page":"https://site.test/","event":{"name":"A"},"props":{"plan":"pro","n":5,"o":{"x":1},"l":[1]}}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":"plan"}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":[1,2],"revenue":"ten"}`,
		`{"page":"https://site.test/","event":{"name":"A"},"revenue":{"amount":"x","currency":5}}`,
		`{"page":"https://site.test/","event":{"name":"A"},"revenue":{"amount":10.5,"currency":"EUR"},"interactive":"no","hash":7}`,
		`{"page":"https://site.test/","event":{"name":"A"},"props":null,"revenue":null,"interactive":null,"hash":null}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","p":"{\"a\":1}","$":[1],"i":"no","h":"x"}`,
		`{"n":"A","u":"https://site.test/","d":"site.test","p":[1],"revenue":5,"interactive":{}}`,
	}
	for _, b := range bodies {
		if res := e.send(hit{body: b}); res.status != http.StatusAccepted {
			t.Errorf("%s: status %d %s", b, res.status, res.body)
		}
	}
	if got := e.stats(id)["event"]; got["A::"]+got["A:10.5:EUR"] != int64(len(bodies)) {
		t.Fatalf("events %v, want %d", got, len(bodies))
	}
}
