package query

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// parseWith parses a body whose website has these segments (id -> stored filters).
func parseWith(t *testing.T, body string, segments map[int64]string) (*Query, error) {
	t.Helper()
	lookup := func(id int64) ([]byte, error) {
		if s, ok := segments[id]; ok {
			return []byte(s), nil
		}
		return nil, ErrNoSegment
	}
	return Parse([]byte(body), Env{Now: time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC), Location: time.UTC,
		Start: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Segment: lookup})
}

func body(filters string) string {
	return `{"site_id": "a.example", "metrics": ["visitors"], "date_range": "7d", "filters": ` + filters + `}`
}

// TestSegmentExpands: a segment filter is its segment's filters (at the top, the query's
// own; elsewhere an and), several segments an or of them, and the tree is the one its filters written out give.
func TestSegmentExpands(t *testing.T) {
	segs := map[int64]string{
		1: `[["is", "visit:country", ["DE"]], ["contains", "event:page", ["/blog"]]]`,
		2: `[["is", "visit:browser", ["Firefox"]]]`,
	}
	q, err := parseWith(t, body(`[["is", "segment", [1]]]`), segs)
	if err != nil {
		t.Fatal(err)
	}
	// At the top, one segment's filters are the query's own.
	want, err := parseWith(t, body(`[["is", "visit:country", ["DE"]], ["contains", "event:page", ["/blog"]]]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Filters, want.Filters) {
		t.Errorf("segment 1: %+v, want %+v", q.Filters, want.Filters)
	}
	q, err = parseWith(t, body(`[["is", "segment", [1, 2]], ["is", "visit:device", ["Mobile"]]]`), segs)
	if err != nil {
		t.Fatal(err)
	}
	want, err = parseWith(t, body(`[["or", [["and", [["is", "visit:country", ["DE"]], ["contains", "event:page", ["/blog"]]]],
		["and", [["is", "visit:browser", ["Firefox"]]]]]], ["is", "visit:device", ["Mobile"]]]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Filters, want.Filters) {
		t.Errorf("segments 1, 2: %+v, want %+v", q.Filters, want.Filters)
	}
	q, err = parseWith(t, body(`[["not", ["is", "segment", [2]]]]`), segs)
	if err != nil {
		t.Fatal(err)
	}
	want, err = parseWith(t, body(`[["not", ["and", [["is", "visit:browser", ["Firefox"]]]]]]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Filters, want.Filters) {
		t.Errorf("not segment 2: %+v, want %+v", q.Filters, want.Filters)
	}
}

// TestSegmentRefused: an unknown (or not visible) segment, a wrong operator or value, a tree
// too deep or too large with the segment's filters are each a 400 that says so.
func TestSegmentRefused(t *testing.T) {
	deep := `[["not", ["not", ["is", "visit:country", ["DE"]]]]]`
	var many []string
	for range 20 {
		many = append(many, `["is", "visit:country", ["DE"]]`)
	}
	segs := map[int64]string{1: deep, 2: `[["is", "visit:browser", ["Firefox"]]]`, 3: "[" + strings.Join(many, ",") + "]"}
	cases := map[string]string{
		`[["is", "segment", [9]]]`:                         "segment 9 does not exist or is not accessible",
		`[["is_not", "segment", [2]]]`:                     `segment takes the operator "is" only`,
		`[["is", "segment", ["2"]]]`:                       "segment ids (integers)",
		`[["is", "segment", []]]`:                          "segment ids (integers)",
		`[["not", ["is", "segment", [1]]]]`:                "nested at most 3 deep",
		`[["is", "segment", [2, 1]]]`:                      "nested at most 3 deep",
		`[["is", "segment", [3]], ["is", "segment", [3]]]`: "more than 30 filters",
	}
	for filters, want := range cases {
		_, err := parseWith(t, body(filters), segs)
		var invalid *Invalid
		if !errors.As(err, &invalid) || !strings.Contains(invalid.Message, want) {
			t.Errorf("%s: %v, want a 400 saying %q", filters, err, want)
		}
	}
	if _, err := parseWith(t, body(`[["is", "segment", [1]]]`), segs); err != nil {
		t.Errorf("segment 1 at the top: %v", err)
	}
}

// TestCheckSegment: what a segment may hold, checked before it is stored.
func TestCheckSegment(t *testing.T) {
	good := `[ ["is", "visit:country", ["DE"]] ]`
	out, bad := CheckSegment("Germany", []byte(good))
	if bad != nil || string(out) != `[["is","visit:country",["DE"]]]` {
		t.Fatalf("good segment: %s, %+v", out, bad)
	}
	cases := []struct{ name, filters, field, message string }{
		{"", good, "name", "1 to 80"},
		{strings.Repeat("é", 81), good, "name", "1 to 80"},
		{"a\x00b", good, "name", "NUL"},
		{"x", `[]`, "filters", "non-empty list"},
		{"x", `{"is": 1}`, "filters", "non-empty list"},
		{"x", `[["is", "visit:nothing", ["a"]]]`, "filters", "not a dimension"},
		{"x", `[["is", "segment", [1]]]`, "filters", "cannot hold a segment"},
		{"x", `[["matches", "event:page", ["("]]]`, "filters", "not a valid regular expression"},
		{"x", `[["not", ["not", ["not", ["is", "visit:country", ["DE"]]]]]]`, "filters", "nested at most"},
	}
	for _, c := range cases {
		_, bad := CheckSegment(c.name, []byte(c.filters))
		if bad == nil || bad.Field != c.field || !strings.Contains(bad.Message, c.message) {
			t.Errorf("%q %s: %+v, want %s: %q", c.name, c.filters, bad, c.field, c.message)
		}
	}
}

// TestDashboardSegmentRoundTrip: the dashboard's filters saved as a segment come back as the
// same filters, and the query API reads the saved form.
func TestDashboardSegmentRoundTrip(t *testing.T) {
	address := url.Values{
		"filter[country]":           {"DE:Germany"},
		"filter_any[browser]":       {"Firefox|Edge"},
		"filter_not[page]":          {`/a\|b|/c`},
		"filter_contains[referrer]": {"goo"},
		"filter[goal]":              {"Signup"},
		"property_filter[plan]":     {"pro"},
		"filter[device]":            {"desktop"},
	}
	filters, err := stats.ParseFilters(address)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := DashboardSegment(filters)
	if err != nil {
		t.Fatal(err)
	}
	if _, bad := CheckSegment("all", saved); bad != nil {
		t.Fatalf("saved form refused: %+v (%s)", bad, saved)
	}
	back, ok := SegmentDashboard(saved)
	if !ok {
		t.Fatalf("saved form not the dashboard's: %s", saved)
	}
	// The country comes back as its code, which the dashboard compares.
	want := filters
	for i := range want {
		if want[i].Name == stats.Country {
			want[i].Value = "DE"
		}
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("round trip: %+v, want %+v", back, want)
	}
	var list []any
	if err := json.Unmarshal(saved, &list); err != nil || len(list) != len(filters) {
		t.Errorf("saved: %s", saved)
	}
}

// TestDashboardSegmentRefused: a dashboard filter no segment can hold is refused, naming it,
// and a segment beyond the dashboard's kind is not turned into dashboard filters.
func TestDashboardSegmentRefused(t *testing.T) {
	for _, param := range []string{"filter[language]", "filter[event]", "filter_contains[country]", "filter[city]"} {
		filters, err := stats.ParseFilters(url.Values{param: {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DashboardSegment(filters); err == nil || !strings.Contains(err.Error(), "cannot be saved") {
			t.Errorf("%s: %v", param, err)
		}
	}
	if _, err := DashboardSegment(nil); err == nil {
		t.Error("no filter: saved")
	}
	for _, s := range []string{
		`[["matches", "event:page", ["^/a"]]]`,
		`[["or", [["is", "visit:country", ["DE"]]]]]`,
		`[["contains", "event:page", ["/a"]]]`,   // case-sensitive
		`[["is", "visit:browser", ["Firefox"]]]`, // Plausible's spelling rules
		`[["is", "visit:country_name", ["Germany"]]]`,
		`not json`,
	} {
		if f, ok := SegmentDashboard([]byte(s)); ok {
			t.Errorf("%s: the dashboard's %+v", s, f)
		}
	}
}
