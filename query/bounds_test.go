package query

import (
	"fmt"
	"strings"
	"testing"
)

// filtersOf is a filters list of n copies of leaf.
func filtersOf(n int, leaf string) string {
	return `[` + strings.TrimSuffix(strings.Repeat(leaf+`,`, n), `,`) + `]`
}

// TestCostBounds: a query past what it may cost is refused before it runs, with a sentence
// naming the bound; one at each bound is taken.
func TestCostBounds(t *testing.T) {
	const ok = `"site_id": "a.example", "metrics": ["visitors"], "date_range": "30d"`
	// The body of the attack (issue 43): 60 or of 8 and of contains on event:page, 48 KB.
	and := `["and", ` + filtersOf(8, `["contains", "event:page", ["/`+strings.Repeat("x", 90)+`"]]`) + `]`
	attack := `[["or", ` + filtersOf(60, and) + `]]`
	// (?:.?){0,1000} 18 times then #A: 253 characters, 53,986 instructions.
	evil := strings.Repeat(`(?:.?){0,1000}`, 18) + `#A`
	values := func(n int) string {
		var vs []string
		for i := range n {
			vs = append(vs, fmt.Sprintf(`"v%d"`, i))
		}
		return `[` + strings.Join(vs, ",") + `]`
	}
	refused := map[string]string{
		"the attack":                  attack,
		"31 filters":                  filtersOf(31, `["is", "visit:os", ["Mac"]]`),
		"1,001 values in two filters": `[["is", "visit:os", ` + values(600) + `], ["is", "event:page", ` + values(401) + `]]`,
		"21 contains values":          `[["contains", "event:page", ` + values(11) + `], ["contains_not", "visit:referrer", ` + values(10) + `]]`,
		"the issue's pattern":         `[["matches", "event:page", ["` + evil + `"]]]`,
		"5 patterns of 901":           filtersOf(5, `["matches", "event:page", ["(?:.?){0,300}"]]`),
	}
	words := map[string]string{
		"the attack":                  "more than 30 filters; at most 30",
		"31 filters":                  "more than 30 filters; at most 30",
		"1,001 values in two filters": "1,001 values; at most 1,000",
		"21 contains values":          "21 values of contains and contains_not; at most 20",
		"the issue's pattern":         "compiles to 53,986 RE2 instructions; at most 1,000",
		"5 patterns of 901":           "4,505 RE2 instructions in all; at most 4,000",
	}
	for name, filters := range refused {
		_, err := parse(t, `{`+ok+`, "filters": `+filters+`}`)
		if err == nil || !strings.Contains(err.Error(), words[name]) {
			t.Errorf("%s: %v, want a refusal saying %q", name, err, words[name])
		}
	}
	if _, err := parse(t, `{`+ok+`, "filters": [["matches", "event:page", ["`+evil+`"]]]}`); err == nil || !strings.Contains(err.Error(), `"(?:.?){0,1000}`) {
		t.Errorf("the refusal of a pattern does not name it: %v", err)
	}
	taken := map[string]string{
		"30 filters":           filtersOf(30, `["is", "visit:os", ["Mac"]]`),
		"1,000 values":         `[["is", "visit:os", ` + values(600) + `], ["is", "event:page", ` + values(400) + `]]`,
		"20 contains values":   `[["contains", "event:page", ` + values(10) + `], ["contains_not", "visit:referrer", ` + values(10) + `]]`,
		"4 patterns of 901":    filtersOf(4, `["matches", "event:page", ["(?:.?){0,300}"]]`),
		"a pattern of 1,000":   `[["matches", "event:page", ["x{998}"]]]`,
		"a long literal, (?i)": `[["matches", "event:page", ["` + strings.Repeat("a", 255) + `"], {"case_sensitive": false}]]`,
	}
	for name, filters := range taken {
		if _, err := parse(t, `{`+ok+`, "filters": `+filters+`}`); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

// TestProgramSize: the size is the program's, not the text's length.
func TestProgramSize(t *testing.T) {
	for pattern, want := range map[string]int{`google\.`: 9, `x{999}`: 1001, `(?:.?){0,1000}`: 3001} {
		if got, err := programSize(pattern); err != nil || got != want {
			t.Errorf("programSize(%q) = %d, %v; want %d", pattern, got, err, want)
		}
	}
}

// TestNULRefused: U+0000, which PostgreSQL refuses in any text, is a 400 wherever the body
// can carry it to the database.
func TestNULRefused(t *testing.T) {
	cases := map[string]string{
		`{"site_id": "a.example\u0000", "metrics": ["visitors"], "date_range": "7d"}`:                                                "site_id must not hold",
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "filters": [["is", "event:page", ["/a\u0000"]]]}`:     "value must not hold",
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "filters": [["contains", "visit:os", ["\u0000"]]]}`:   "value must not hold",
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "filters": [["is", "event:props:a\u0000", ["x"]]]}`:   "not a custom property",
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "dimensions": ["event:props:\u0000"]}`:                "not a custom property",
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "filters": [["matches", "event:page", ["a\u0000"]]]}`: "value must not hold",
	}
	for body, words := range cases {
		if _, err := parse(t, body); err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %v, want a refusal saying %q", body, err, words)
		}
	}
}

// TestBucketBound: a time dimension holds at most MaxBuckets buckets over the range, as v1's
// time series (TestQueryBounds checks a count against the time labels answered).
func TestBucketBound(t *testing.T) {
	body := func(dimension, from, to string) string {
		return fmt.Sprintf(`{"site_id": "a.example", "metrics": ["visitors"], "date_range": ["%s", "%s"], "dimensions": ["%s"], "include": {"time_labels": true}}`, from, to, dimension)
	}
	refused := map[string]string{
		// The request: a thousand years of hours.
		body("time:hour", "0001-01-01", "9999-12-31"):  "time:hour over this date_range is 87,649,416 buckets; at most 10,000",
		body("time:hour", "2025-01-01", "2026-02-21"):  "10,008 buckets",
		body("time:day", "1990-01-01", "2026-12-31"):   "13,514 buckets",
		body("time", "0001-01-01", "9999-12-31"):       "time over this date_range is 119,988 buckets",
		body("time:week", "1800-01-01", "2026-12-31"):  "11,845 buckets",
		body("time:month", "1000-01-01", "2026-12-31"): "12,324 buckets",
	}
	for b, words := range refused {
		if _, err := parse(t, b); err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %v, want a refusal saying %q", b, err, words)
		}
	}
	for _, b := range []string{
		body("time:hour", "2025-01-01", "2026-02-20"),  // 416 days: 9,984 hours
		body("time:day", "2000-01-01", "2027-05-18"),   // 10,000 days
		body("time:month", "1200-01-01", "2033-04-30"), // 10,000 months
		body("time:week", "1900-01-01", "2026-12-31"),
		`{"site_id": "a.example", "metrics": ["visitors"], "date_range": ["0001-01-01", "9999-12-31"]}`,
	} {
		q, err := parse(t, b)
		if err != nil {
			t.Errorf("%s refused: %v", b, err)
			continue
		}
		if n := q.Range.buckets(q.TimeUnit()); q.TimeIndex() >= 0 && n > MaxBuckets {
			t.Errorf("%s: %d buckets taken", b, n)
		}
	}
}
