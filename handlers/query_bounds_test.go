package handlers_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestQueryBounds: what a query may cost is bounded before it runs (issue 43): the buckets
// of a time dimension, the filters, the contains values, the RE2 program of a pattern; and
// U+0000, which PostgreSQL refuses, is the 400 of a bad input, not a 500. Each answers
// Plausible's {"error"}, fast.
func TestQueryBounds(t *testing.T) {
	e, key, _ := queryEnv(t)
	const ok = `"site_id": "example.com", "metrics": ["visitors"], "date_range": "30d"`
	and := `["and", [` + strings.TrimSuffix(strings.Repeat(`["contains", "event:page", ["/`+strings.Repeat("x", 90)+`"]],`, 8), ",") + `]]`
	attack := `[["or", [` + strings.TrimSuffix(strings.Repeat(and+",", 60), ",") + `]]]`
	pattern := strings.Repeat(`(?:.?){0,1000}`, 18) + `#A`
	cases := []struct {
		name, body string
		words      []string
	}{
		{"a thousand years of hours", `{"site_id": "example.com", "metrics": ["visitors"], "date_range": ["0001-01-01", "9999-12-31"],
			"dimensions": ["time:hour"], "include": {"time_labels": true}}`, []string{"time:hour", "87,649,416 buckets", "at most 10,000"}},
		{"two years of hours", `{"site_id": "example.com", "metrics": ["visitors"], "date_range": ["2024-03-01", "2026-02-28"],
			"dimensions": ["time:hour"], "include": {"time_labels": true}}`, []string{"time:hour", "17,520 buckets"}},
		{"480 contains filters", `{` + ok + `, "filters": ` + attack + `}`, []string{"more than 30 filters", "at most 30"}},
		{"a pattern of 53,986 instructions", `{` + ok + `, "filters": [["matches", "event:page", ["` + pattern + `"]]]}`,
			[]string{`"(?:.?){0,1000}(?:.?)`, "53,986 RE2 instructions", "at most 1,000"}},
		{"NUL in site_id", `{"site_id": "example.com\u0000", "metrics": ["visitors"], "date_range": "7d"}`, []string{"site_id", "U+0000"}},
		{"NUL in an is value", `{` + ok + `, "filters": [["is", "visit:referrer", ["a\u0000b"]]]}`, []string{"U+0000"}},
		{"NUL in a contains value", `{` + ok + `, "filters": [["contains", "event:page", ["\u0000"]]]}`, []string{"U+0000"}},
		{"NUL in a property key", `{` + ok + `, "filters": [["is", "event:props:pl\u0000an", ["pro"]]]}`, []string{"not a custom property"}},
		{"NUL in a property dimension", `{` + ok + `, "dimensions": ["event:props:\u0000"]}`, []string{"not a custom property"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			wantQueryError(t, e.in(t).query(key, c.body), http.StatusBadRequest, c.words...)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("refused after %v", took)
			}
		})
	}
	t.Run("at the bounds", func(t *testing.T) {
		e := e.in(t)
		body, _ := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": ["2025-03-01", "2026-03-31"],
			"dimensions": ["time:hour"], "include": {"time_labels": true}, "filters": `+allRows+`}`))
		// 396 days of hours: 9,504 buckets.
		if labels, _ := body["meta"].(map[string]any)["time_labels"].([]any); len(labels) != 396*24 {
			t.Errorf("%d time labels, want %d", len(labels), 396*24)
		}
		contains := strings.TrimSuffix(strings.Repeat(`["contains", "event:page", ["/"]],`, 20), ",")
		wantQuery(t, e.query(key, `{`+ok+`, "filters": [["or", [`+contains+`]]]}`))
	})
}

// TestQueryGoalsOverThousandsOfYears: an event:goal filter over 0001-01-01 to 9999-12-31
// reads the pages of the days that can hold visit rows only; it listed every day of the
// range (3.65 million, with a map each) in memory first.
func TestQueryGoalsOverThousandsOfYears(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	e.goalSite(key)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, lines := wantQuery(t, e.query(key, `{"site_id": "goals.example", "metrics": ["visitors"], "date_range": ["0001-01-01", "9999-12-31"],
		"filters": [["is", "event:goal", ["Signup"]]]}`))
	runtime.ReadMemStats(&after)
	if len(lines) != 1 {
		t.Errorf("got %v, want one row", lines)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("the query allocated %d MB", alloc>>20)
	}
}
