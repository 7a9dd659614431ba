package handlers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/analytics-service/analytics/testkit/harness"
)

// The comparison of docs/visits.md on the summary and the time series: the compared days'
// numbers, computed here from the fixture.
func TestSummaryComparison(t *testing.T) {
	e, key, id, days := visitsEnv(t)
	cases := []struct {
		query    string
		from, to string // the days compared with
	}{
		// 2026-03-02 is a Monday; the 7 days before start on a Monday too.
		{"from=2026-03-02&to=2026-03-08&comparison=previous_period", "2026-02-23", "2026-03-01"},
		// 10 days from a Wednesday: the 10 days before start on a Sunday, moved back to the Wednesday before.
		{"from=2026-03-04&to=2026-03-13&comparison=previous_period", "2026-02-18", "2026-02-27"},
		{"from=2026-03-04&to=2026-03-13&comparison=previous_period&match_day_of_week=false", "2026-02-22", "2026-03-03"},
		// A year before: 2025-03-04 is a Tuesday, moved back to Wednesday 2025-02-26.
		{"from=2026-03-04&to=2026-03-13&comparison=year_over_year", "2025-02-26", "2025-03-07"},
		{"from=2026-03-04&to=2026-03-13&comparison=year_over_year&match_day_of_week=false", "2025-03-04", "2025-03-13"},
		{"from=2026-03-04&to=2026-03-13&comparison=custom&compare_from=2026-01-20&compare_to=2026-02-20", "2026-01-20", "2026-02-20"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			body := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?%s", id, c.query), Key: key}), 200)
			cmp, ok := body["comparison"].(map[string]any)
			if !ok {
				t.Fatalf("no comparison: %v", body)
			}
			if cmp["from"] != c.from || cmp["to"] != c.to {
				t.Fatalf("compared with %v..%v, want %s..%s", cmp["from"], cmp["to"], c.from, c.to)
			}
			x := sumDays(days, day(c.from), day(c.to))
			got := cmp["data"].(map[string]any)
			for k, v := range map[string]float64{"visitors": float64(x.visitors), "visits": float64(x.visits),
				"pageviews": float64(x.pageviews), "events": float64(x.events), "bounce_rate": x.bounceRate(),
				"visit_duration": x.duration(), "views_per_visit": x.viewsPerVisit()} {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
	// Without comparison, none.
	body := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-03-02&to=2026-03-08", id), Key: key}), 200)
	if _, ok := body["comparison"]; ok {
		t.Fatalf("comparison without asking: %v", body)
	}
}

func TestTimeseriesComparison(t *testing.T) {
	e, key, id, days := visitsEnv(t)
	type entry struct {
		seriesEntry
		Comparison *seriesEntry `json:"comparison"`
	}
	read := func(query string) []entry {
		res := e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/timeseries?%s", id, query), Key: key})
		want(t, res, 200)
		var p struct{ Data []entry }
		if err := json.Unmarshal(res.Body, &p); err != nil {
			t.Fatal(err)
		}
		return p.Data
	}
	// Bucket by bucket: Monday 2026-03-02 with Monday 2026-02-23.
	got := read("from=2026-03-02&to=2026-03-08&comparison=previous_period")
	if len(got) != 7 {
		t.Fatalf("%d entries", len(got))
	}
	for i, g := range got {
		d := day("2026-02-23").AddDate(0, 0, i)
		wantEntry := sumDays(days, d, d).entry(d.Format(time.DateOnly))
		if g.Comparison == nil || *g.Comparison != wantEntry {
			t.Fatalf("entry %d: comparison %+v, want %+v", i, g.Comparison, wantEntry)
		}
	}
	// A shorter custom range: its buckets, then none; paging keeps the alignment.
	got = read("from=2026-03-02&to=2026-03-08&comparison=custom&compare_from=2026-02-01&compare_to=2026-02-03&per_page=2&page=2")
	if len(got) != 2 || got[0].Date != "2026-03-04" || got[0].Comparison == nil || got[0].Comparison.Date != "2026-02-03" || got[1].Comparison != nil {
		t.Fatalf("page 2: %+v", got)
	}
	// Months: the first month with the first.
	got = read("from=2026-02-01&to=2026-03-31&interval=month&comparison=custom&compare_from=2026-01-01&compare_to=2026-02-28")
	if len(got) != 2 || got[0].Comparison.Date != "2026-01" || got[0].Comparison.Visitors != sumDays(days, day("2026-01-01"), day("2026-01-31")).visitors {
		t.Fatalf("months: %+v", got)
	}
}

func TestComparisonRefusesBadInput(t *testing.T) {
	e, key, id, _ := visitsEnv(t)
	summary := func(q string) string {
		return fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-03-01&to=2026-03-07&%s", id, q)
	}
	series := func(q string) string {
		return fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2026-03-01&to=2026-03-07&%s", id, q)
	}
	for _, c := range []struct{ path, field string }{
		{summary("comparison=last_week"), "comparison"},
		{summary("comparison="), "comparison"},
		{summary("comparison=previous_period&comparison=year_over_year"), "comparison"},
		{summary("comparison=custom"), "compare_from"},
		{summary("comparison=custom&compare_from=2026-01-01"), "compare_to"},
		{summary("comparison=custom&compare_from=2026-01-09&compare_to=2026-01-08"), "compare_to"},
		{summary("comparison=custom&compare_from=2026-02-30&compare_to=2026-03-01"), "compare_from"},
		{summary("comparison=custom&compare_from=2026-01-01&compare_to=10000-01-01"), "compare_to"},
		{summary("compare_from=2026-01-01&compare_to=2026-01-02"), "comparison"},
		{summary("comparison=previous_period&compare_from=2026-01-01"), "comparison"},
		{summary("comparison=previous_period&match_day_of_week=yes"), "match_day_of_week"},
		{fmt.Sprintf("/api/v1/stats/%d/summary?from=0001-01-01&to=0001-01-05&comparison=previous_period", id), "comparison"},
		{fmt.Sprintf("/api/v1/stats/%d/summary?from=0001-06-01&to=0001-06-05&comparison=year_over_year", id), "comparison"},
		{series("comparison=sometimes"), "comparison"},
		// Hours of a custom range longer than 31 days.
		{series("interval=hour&comparison=custom&compare_from=2026-01-01&compare_to=2026-02-15"), "comparison"},
	} {
		t.Run(c.path, func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Path: c.path, Key: key}), c.field)
		})
	}
	// The edge: comparing with the first days of the calendar is allowed.
	want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=0001-01-06&to=0001-01-10&comparison=previous_period&match_day_of_week=false", id), Key: key}), 200)
}
