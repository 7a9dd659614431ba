package ingest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// TestPlausibleBodies sends each body of Plausible's tracker (short keys, text/plain) and of
// its Events API (long keys, application/json) to one website and the same hit in this
// service's own body to another, and wants the same counters in both.
func TestPlausibleBodies(t *testing.T) {
	cases := []struct {
		name      string
		plausible hit
		native    string
	}{
		{"tracker pageview: r is the referrer, w alone gives no screen resolution",
			hit{body: `{"n":"pageview","u":"https://site.test/a?x=1#top","d":"site.test","r":"https://www.google.com/","w":1280,"v":36,"h":0}`},
			`{"page":"https://site.test/a?x=1","referrer":"https://www.google.com/"}`},
		{"Events API pageview, long keys, referrer null",
			hit{contentType: "application/json", body: `{"name":"pageview","url":"https://site.test/","domain":"site.test","referrer":null}`},
			`{"page":"https://site.test/","referrer":""}`},
		{"no referrer at all",
			hit{body: `{"n":"pageview","u":"https://site.test/b","d":"site.test"}`},
			`{"page":"https://site.test/b"}`},
		{"an internal navigation (the referrer is the site) is a pageview only",
			hit{body: `{"n":"pageview","u":"https://site.test/c","d":"site.test","r":"https://www.site.test/a"}`},
			`{"page":"https://site.test/c","referrer":"https://www.site.test/a"}`},
		{"a custom event with revenue under $",
			hit{body: `{"n":"Purchase","u":"https://site.test/buy","d":"site.test","r":null,"$":{"amount":10.5,"currency":"EUR"},"p":{"plan":"pro"},"i":true}`},
			`{"page":"https://site.test/buy","event":{"name":"Purchase","value":"10.5","unit":"EUR"}}`},
		{"Events API revenue, amount as a string, and props",
			hit{contentType: "application/json", body: `{"name":"Purchase","url":"https://site.test/buy","domain":"site.test","revenue":{"amount":"15.99","currency":"USD"},"props":{"x":"1"}}`},
			`{"page":"https://site.test/buy","event":{"name":"Purchase","value":"15.99","unit":"USD"}}`},
		{"older scripts' revenue as a JSON string",
			hit{body: `{"n":"Purchase","u":"https://site.test/buy","d":"site.test","$":"{\"amount\":3,\"currency\":\"EUR\"}"}`},
			`{"page":"https://site.test/buy","event":{"name":"Purchase","value":"3","unit":"EUR"}}`},
		{"a revenue that is no object, or a negative amount, leaves the value out",
			hit{body: `{"n":"Refund","u":"https://site.test/","d":"site.test","$":{"amount":-4,"currency":"EUR"}}`},
			`{"page":"https://site.test/","event":{"name":"Refund","value":"-4","unit":"EUR"}}`},
		{"a revenue of another type is none",
			hit{body: `{"n":"Odd","u":"https://site.test/","d":"site.test","$":7}`},
			`{"page":"https://site.test/","event":{"name":"Odd"}}`},
		{"an event without revenue, colons in its name",
			hit{body: `{"n":"Sign:up","u":"https://site.test/","d":"site.test"}`},
			`{"page":"https://site.test/","event":{"name":"Sign:up"}}`},
		{"the short key wins over the long one",
			hit{body: `{"n":"pageview","name":"Other","u":"https://site.test/s","url":"https://site.test/l","d":"site.test"}`},
			`{"page":"https://site.test/s"}`},
		{"without d, the host of u decides",
			hit{body: `{"n":"pageview","u":"https://www.SITE.test/x"}`},
			`{"page":"https://site.test/x"}`},
		{"d decides over the page's host (a staging host, another port)",
			hit{body: `{"n":"pageview","u":"http://staging.example:8080/x?y=1","d":"WWW.site.test"}`},
			`{"page":"https://site.test/x?y=1"}`},
		{"a list: the tracked domains count, the others are ignored",
			hit{body: `{"n":"pageview","u":"https://site.test/x","d":"nobody.test, site.test"}`},
			`{"page":"https://site.test/x"}`},
		{"no domain of the list is tracked: the host of u decides",
			hit{body: `{"n":"pageview","u":"https://site.test/y","d":"nobody.test"}`},
			`{"page":"https://site.test/y"}`},
		{"a name matching whatever its case",
			hit{contentType: "application/json", body: `{"Name":"pageview","URL":"https://site.test/z","Domain":"site.test"}`},
			`{"page":"https://site.test/z"}`},
	}
	e := newCollectEnv(t, app.Config{})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.T = t
			plausible := fmt.Sprintf("p%d.test", i)
			native := fmt.Sprintf("n%d.test", i)
			pid, nid := e.site(plausible), e.site(native)
			h := c.plausible
			h.body = strings.ReplaceAll(strings.ReplaceAll(h.body, "site.test", plausible), "SITE.test", strings.ToUpper(plausible))
			if res := e.send(h); res.Status != http.StatusAccepted {
				t.Fatalf("Plausible's body: status %d: %s", res.Status, res.Body)
			}
			if res := e.send(hit{body: strings.ReplaceAll(c.native, "site.test", native)}); res.Status != http.StatusAccepted {
				t.Fatalf("the native body: status %d: %s", res.Status, res.Body)
			}
			got, want := e.stats(pid), e.stats(nid)
			if len(want) == 0 {
				t.Fatal("the native body counted nothing: the case proves nothing")
			}
			for _, values := range want {
				for v, n := range values {
					if strings.Contains(v, native) {
						delete(values, v)
						values[strings.ReplaceAll(v, native, plausible)] = n
					}
				}
			}
			wantStats(t, got, want)
		})
	}
}

// TestPlausibleDomainList: a hit of a rollup ("a.test,b.test") counts for each website of the
// list, once each.
func TestPlausibleDomainList(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	a, b := e.site("a.test"), e.site("b.test")
	res := e.send(hit{body: `{"n":"pageview","u":"https://a.test/p","d":"a.test,b.test,a.test, www.b.test"}`})
	if res.Status != http.StatusAccepted {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	for _, id := range []int64{a, b} {
		stats := e.stats(id)
		if stats["pageview"][day] != 1 || stats["page"]["/p"] != 1 {
			t.Errorf("website %d: %v, want one pageview of /p", id, stats)
		}
	}
}

// TestPlausibleEngagement: an engagement hit (sent as a page is hidden or left) is neither a
// pageview nor an event: with no open visit it is ignored and counts nothing; within a visit it
// is a hit of it that counts no pageview and no event.
func TestPlausibleEngagement(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	ignored := func() float64 {
		n := e.Metric("analytics_events_ignored_total", "reason", "no_open_visit")
		return n
	}
	engagements := []string{
		`{"n":"engagement","sd":40,"d":"site.test","u":"https://site.test/","p":{},"e":5120,"v":36}`,
		`{"name":"engagement","url":"https://site.test/a","domain":"site.test"}`,
	}
	for _, b := range engagements {
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
	if got := e.stats(id); len(got) != 0 {
		t.Fatalf("engagement without a visit counted %v, want nothing", got)
	}
	if n := ignored(); n != 2 {
		t.Fatalf("engagement hits ignored with no open visit: %v, want 2", n)
	}
	if res := e.send(hit{body: `{"n":"pageview","d":"site.test","u":"https://site.test/"}`}); res.Status != http.StatusAccepted {
		t.Fatalf("pageview: status %d: %s", res.Status, res.Body)
	}
	for _, b := range engagements {
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
	if n := ignored(); n != 2 {
		t.Fatalf("engagement hits of an open visit ignored: %v, want none more", n-2)
	}
	got := e.stats(id)
	if got["pageview"] == nil || len(got["pageview"]) != 1 || len(got["event"]) != 0 {
		t.Fatalf("a pageview and two engagements counted %v, want one pageview and no event", got)
	}
	for _, n := range got["pageview"] {
		if n != 1 {
			t.Fatalf("a pageview and two engagements counted %v pageviews", n)
		}
	}
}

// TestPlausibleBadBodies: what the native body refuses with 400, Plausible's is refused with
// too, with a message naming its key.
func TestPlausibleBadBodies(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	long := strings.Repeat("n", 65)
	cases := []struct{ body, message string }{
		{`{"n":"pageview"}`, "u (url) must be an absolute http(s) URL."},
		{`{"n":"pageview","u":""}`, "u (url) must be an absolute http(s) URL."},
		{`{"n":"pageview","u":"/relative"}`, "u (url) must be an absolute http(s) URL."},
		{`{"n":"pageview","u":"ftp://site.test/"}`, "u (url) must be an absolute http(s) URL."},
		{`{"name":"pageview","url":5}`, "u (url) must be an absolute http(s) URL."},
		{`{"n":"","u":"https://site.test/"}`, "n (name) must be 1 to 64 characters."},
		{`{"n":"` + long + `","u":"https://site.test/"}`, "n (name) must be 1 to 64 characters."},
		{`{"n":5,"u":"https://site.test/"}`, "n (name) must be a string."},
		{`{"n":"pageview","u":"https://site.test/","r":5}`, "r (referrer) must be a string or null."},
		{`{"n":"pageview","u":"https://site.test/","d":["site.test"]}`, "d (domain) must be a string or null."},
		{`{"n":"pageview","u":"https://site.test/"`, "The body is not valid JSON."},
		{`{"n":"pageview","u":"https://site.test/"} {}`, "The body is not valid JSON."},
		{`["n","pageview"]`, "The body is not valid JSON."},
		{`{"u":"https://site.test/","d":"site.test"}`, "page must be an absolute http(s) URL."},
	}
	for _, c := range cases {
		res := e.send(hit{body: c.body})
		var got struct {
			Message string
			Status  int
		}
		if err := json.Unmarshal(res.Body, &got); err != nil || res.Status != http.StatusBadRequest ||
			got.Message != c.message || got.Status != 400 {
			t.Errorf("%s: status %d %s, want 400 %q", c.body, res.Status, res.Body, c.message)
		}
	}
	if got := e.stats(id); len(got) != 0 {
		t.Fatalf("refused bodies counted %v", got)
	}
}
