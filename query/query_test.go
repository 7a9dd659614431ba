package query

import (
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, body string) (*Query, error) {
	t.Helper()
	// A Wednesday, late in the day in UTC: 2026-03-04 23:30.
	return Parse([]byte(body), Env{Now: time.Date(2026, 3, 4, 23, 30, 0, 0, time.UTC), Location: time.UTC,
		Start: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)})
}

// TestRelativeRanges: each relative range as Plausible defines it, from today in the
// website's time zone.
func TestRelativeRanges(t *testing.T) {
	cases := map[string][2]string{
		`"day"`:                        {"2026-03-04T00:00:00+00:00", "2026-03-04T23:59:59+00:00"},
		`"7d"`:                         {"2026-02-25T00:00:00+00:00", "2026-03-03T23:59:59+00:00"},
		`"28d"`:                        {"2026-02-04T00:00:00+00:00", "2026-03-03T23:59:59+00:00"},
		`"30d"`:                        {"2026-02-02T00:00:00+00:00", "2026-03-03T23:59:59+00:00"},
		`"91d"`:                        {"2025-12-03T00:00:00+00:00", "2026-03-03T23:59:59+00:00"},
		`"month"`:                      {"2026-03-01T00:00:00+00:00", "2026-03-31T23:59:59+00:00"},
		`"6mo"`:                        {"2025-10-01T00:00:00+00:00", "2026-03-31T23:59:59+00:00"},
		`"12mo"`:                       {"2025-04-01T00:00:00+00:00", "2026-03-31T23:59:59+00:00"},
		`"year"`:                       {"2026-01-01T00:00:00+00:00", "2026-12-31T23:59:59+00:00"},
		`"all"`:                        {"2025-06-01T00:00:00+00:00", "2026-03-04T23:59:59+00:00"},
		`"24h"`:                        {"2026-03-03T23:00:00+00:00", "2026-03-04T23:59:59+00:00"},
		`["2026-01-01", "2026-01-31"]`: {"2026-01-01T00:00:00+00:00", "2026-01-31T23:59:59+00:00"},
		`["2026-01-01T10:15:00+02:00", "2026-01-01T12:00:00+02:00"]`: {"2026-01-01T08:00:00+00:00", "2026-01-01T10:59:59+00:00"},
	}
	for rng, want := range cases {
		q, err := parse(t, `{"site_id": "a.example", "metrics": ["visitors"], "date_range": `+rng+`}`)
		if err != nil {
			t.Fatalf("%s: %v", rng, err)
		}
		if got := q.Range.Labels(); got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: %v, want %v", rng, got, want)
		}
	}
	q, _ := parse(t, `{"site_id": "a.example", "metrics": ["visitors"], "date_range": ["2026-01-01T10:00:00Z", "2026-01-01T11:59:59Z"]}`)
	if q.Range.Rounded {
		t.Error("whole hours said to be rounded")
	}
	q, _ = parse(t, `{"site_id": "a.example", "metrics": ["visitors"], "date_range": "24h"}`)
	if !q.Range.Rounded {
		t.Error("24h at half past not said to be rounded")
	}
}

// TestLimits: each limit is a 400 that says which.
func TestLimits(t *testing.T) {
	const ok = `"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d"`
	deep := `["is", "visit:os", ["Mac"]]`
	for range MaxNesting {
		deep = `["not", ` + deep + `]`
	}
	if _, err := parse(t, `{`+ok+`, "filters": [`+deep+`]}`); err != nil {
		t.Fatalf("nesting %d refused: %v", MaxNesting, err)
	}
	cases := map[string]string{
		`"filters": [["not", ` + deep + `]]`:                                            "nested at most 3",
		`"dimensions": ["visit:os", "visit:browser", "visit:device", "visit:screen"]`:   "at most 3 dimensions",
		`"pagination": {"limit": 10001}`:                                                "pagination.limit must be from 1 to 10000",
		`"pagination": {"limit": 0}`:                                                    "pagination.limit",
		`"pagination": {"offset": -1}`:                                                  "pagination.offset",
		`"filters": [["contains", "event:page", ["` + strings.Repeat("é", 256) + `"]]]`: "over 255 characters",
		`"dimensions": ["time:day", "time:week"]`:                                       "one time dimension",
		`"filters": [["has_done", "event:goal", ["Signup"]]]`:                           "has_done",
		`"filters": [["is", "visit:city", ["2950159"]]]`:                                "visit:city",
		`"filters": [["is", "event:props:", ["pro"]]]`:                                  "not a custom property",
		`"order_by": [["visitors", "up"]]`:                                              "asc",
	}
	for extra, words := range cases {
		_, err := parse(t, `{`+ok+`, `+extra+`}`)
		if err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %v, want a refusal saying %q", extra, err, words)
		}
	}
	// Four dimensions are refused, but three and time are not.
	if _, err := parse(t, `{`+ok+`, "dimensions": ["visit:os", "visit:browser", "visit:device", "time:day"]}`); err != nil {
		t.Errorf("three dimensions and time refused: %v", err)
	}
}

// TestSpellings: filters take both spellings; answers are Plausible's.
func TestSpellings(t *testing.T) {
	q, err := parse(t, `{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d",
		"filters": [["is", "visit:device", ["Desktop"]], ["is", "visit:browser", ["Edge"]]]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(q.Filters[0].Values, ","); got != "Desktop,console,desktop,tv,watch" {
		t.Errorf("Desktop matches %s", got)
	}
	if got := strings.Join(q.Filters[1].Values, ","); got != "Edge" {
		t.Errorf("Edge matches %s", got)
	}
	f := fields["visit:os"]
	if f.Answer("macOS") != "Mac" || f.Answer("Linux") != "GNU/Linux" || fields["visit:country_name"].Answer("DE:Germany") != "Germany" {
		t.Error("answers not in Plausible's spelling")
	}
}
