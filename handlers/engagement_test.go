package handlers_test

import (
	"fmt"
	"strings"
	"testing"

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
