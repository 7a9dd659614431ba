package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The page list's time_on_page and scroll_depth: means over the visits that sent them, summed
// over the range as the counters are (days and months alike), null for pages without them and
// for every other name.
func TestPageListEngagement(t *testing.T) {
	c := func(name, date, value string, n int64) repository.StatCount {
		return repository.StatCount{Name: name, Date: day(date), Value: value, Count: n}
	}
	e, key, id := statsEnv(t, []repository.StatCount{
		c("page", "2026-01-01", "/a", 5),
		c("page", "2026-01-01", "/b", 3),
		c("page", "2026-02-01", "/a", 1),
		c("referrer", "2026-01-01", "x.com", 1),
		// /a: 3 visits engaged 10 s, 20 s and 45 s; 2 of them scrolled 40 and 75.
		c("engaged_visit", "2026-01-01", "/a", 2),
		c("engaged_ms", "2026-01-01", "/a", 30_000),
		c("engaged_visit", "2026-02-01", "/a", 1),
		c("engaged_ms", "2026-02-01", "/a", 45_000),
		c("scroll_visit", "2026-01-01", "/a", 2),
		c("scroll_sum", "2026-01-01", "/a", 115),
		// /b: one visit, a scroll depth only.
		c("scroll_visit", "2026-01-01", "/b", 1),
		c("scroll_sum", "2026-01-01", "/b", 12),
	})
	get := func(query string) string {
		t.Helper()
		res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?%s", id, query), Key: key})
		var out []string
		for _, d := range want(t, res, 200)["data"].([]any) {
			m := d.(map[string]any)
			if _, ok := m["time_on_page"]; !ok {
				t.Fatalf("no time_on_page in %v", m)
			}
			out = append(out, fmt.Sprintf("%s:%v/%v", m["value"], m["time_on_page"], m["scroll_depth"]))
		}
		return strings.Join(out, " ")
	}
	for query, w := range map[string]string{
		"name=page&from=2026-01-01&to=2026-12-31":          "/a:25/58 /b:<nil>/12",
		"name=page&from=2026-01-01&to=2026-01-31":          "/a:15/58 /b:<nil>/12",
		"name=page&from=2026-02-01&to=2026-02-28":          "/a:45/<nil>",
		"name=page&from=2026-01-01&to=2026-12-31&search=b": "/b:<nil>/12",
		"name=referrer&from=2026-01-01&to=2026-12-31":      "x.com:<nil>/<nil>",
	} {
		if got := get(query); got != w {
			t.Errorf("%s: %s, want %s", query, got, w)
		}
	}
}

// A filtered page list's time_on_page and scroll_depth are the means over the matching
// visits, from hits sent through the collector: two visits of /read, Chrome's engaged 40 s
// then 20 s more (60 s, scrolled to 70 % then 50 %: deepest 70), Firefox's 10 s and 100 %.
// Unfiltered: (60 + 10) / 2 = 35 s and (70 + 100) / 2 = 85 %; Chrome's alone: 60 s and 70 %;
// /other (Chrome's, 3 s, no scroll depth): 3 and null either way.
func TestFilteredPageListEngagement(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	const (
		chrome  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
		firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	)
	for _, hit := range []struct{ ua, body string }{
		{chrome, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{chrome, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":40000,"sd":70}`},
		{chrome, `{"n":"pageview","d":"example.com","u":"https://example.com/other"}`},
		{chrome, `{"n":"engagement","d":"example.com","u":"https://example.com/other","e":3000}`},
		{chrome, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{chrome, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":20000,"sd":50}`},
		{firefox, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{firefox, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":10000,"sd":100}`},
	} {
		res := e.Do(harness.Request{Method: "POST", Path: "/api/event", Body: hit.body,
			Headers: map[string]string{"User-Agent": hit.ua, "Content-Type": "text/plain;charset=UTF-8"}})
		if res.Status != http.StatusAccepted {
			t.Fatalf("%s: %d %s", hit.body, res.Status, res.Body)
		}
	}
	e.Clock.Advance(time.Hour) // both visits end
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	get := func(filter string) string {
		t.Helper()
		path := fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-03-04&to=2026-03-04%s", id, filter)
		var out []string
		for _, d := range want(t, e.Do(harness.Request{Path: path, Key: key}), 200)["data"].([]any) {
			m := d.(map[string]any)
			out = append(out, fmt.Sprintf("%s=%v:%v/%v", m["value"], m["count"], m["time_on_page"], m["scroll_depth"]))
		}
		return strings.Join(out, " ")
	}
	for filter, w := range map[string]string{
		"":                                      "/read=3:35/85 /other=1:3/<nil>",
		"&filter%5Bbrowser%5D=Chrome":           "/read=2:60/70 /other=1:3/<nil>",
		"&filter%5Bbrowser%5D=Firefox":          "/read=1:10/100",
		"&filter%5Bpage%5D=%2Fother":            "/other=1:3/<nil>",
		"&filter%5Bbrowser%5D=Safari":           "",
		"&filter%5Bbrowser%5D=Chrome&search=re": "/read=2:60/70",
	} {
		if got := get(filter); got != w {
			t.Errorf("%q: %s, want %s", filter, got, w)
		}
	}
}
