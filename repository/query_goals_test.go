package repository_test

import (
	"context"
	"fmt"
	"math"
	mathrand "math/rand/v2"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestQueryGoalsMatchAReference: the query API's event:goal dimension and filter count what
// the goals list counts (referenceConversions), on random visits where visitors come back the
// same day, with and without another filter (the country by its code, as v1 compares it), by
// both paths of the dimension (goalsListQuery).
func TestQueryGoalsMatchAReference(t *testing.T) {
	f := newFixture(t, "goals.example")
	site, ctx := f.sites[0], context.Background()
	visits := goalVisitsOf(mathrand.New(mathrand.NewPCG(27, 2)))
	repotest.WriteVisitRows(t, f.db, site, visits)
	for i := range 30 {
		g := stats.Goal{Kind: stats.GoalPageview, Page: goalPatterns[i%len(goalPatterns)], DisplayName: fmt.Sprintf("goal %02d", i)}
		if i%3 == 1 {
			g = stats.Goal{Kind: stats.GoalEvent, Event: goalEvents[i%len(goalEvents)], DisplayName: g.DisplayName}
		}
		if _, err := f.repo.CreateGoal(ctx, f.user, site, g); err != nil {
			t.Fatal(err)
		}
	}
	goals, err := f.repo.Goals(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	env := queryapi.Env{Now: time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC), Location: time.UTC}
	run := func(body string) map[string][]float64 {
		t.Helper()
		q, err := queryapi.Parse([]byte(`{"site_id": "goals.example", "date_range": ["2026-03-01", "2026-03-04"], `+body+`}`), env)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		answer, err := f.repo.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		out := map[string][]float64{}
		for _, row := range answer.Rows {
			out[fmt.Sprint(row.Dimensions)] = row.Metrics
		}
		return out
	}
	for _, c := range []struct {
		json    string
		filters stats.Filters
	}{
		{``, nil},
		// A filter every visit passes: the same numbers, from the statement over the rows rather
		// than the goals list's read that answers the event:goal dimension alone.
		{`, "filters": [["is_not", "visit:screen", ["0x0"]]]`, nil},
		{`, "filters": [["is", "visit:country", ["DE"]]]`, stats.Filters{{Name: stats.Country, Value: "DE:Germany"}}},
	} {
		want, base := referenceConversions(visits, goals, c.filters)
		rate := func(visitors string) float64 {
			var n int64
			fmt.Sscan(visitors, &n)
			return math.Round(1000*float64(n)/float64(base)) / 10
		}
		got := run(`"metrics": ["visitors", "events", "conversion_rate"], "dimensions": ["event:goal"]` + c.json)
		converting := 0
		for _, g := range goals {
			w := want[g.DisplayName]
			row, ok := got[fmt.Sprint([]string{g.DisplayName})]
			if w == "0 0" {
				if ok {
					t.Errorf("%s %s: a row %v for a goal no visit converts on", c.json, g.DisplayName, row)
				}
				continue
			}
			converting++
			var visitors string
			fmt.Sscan(w, &visitors)
			if !ok || fmt.Sprintf("%.0f %.0f", row[0], row[1]) != w || row[2] != rate(visitors) {
				t.Errorf("%s %s (%s %s%s): %v, want %s and rate %v", c.json, g.DisplayName, g.Kind, g.Page, g.Event, row, w, rate(visitors))
			}
			// The filter keeps the same visits; their events are the conversions.
			filtered := run(`"metrics": ["visitors", "conversion_rate", "events"], "filters": [["is", "event:goal", ["` + g.DisplayName + `"]]` +
				map[bool]string{true: `, ["is", "visit:country", ["DE"]]]`, false: `]`}[c.filters != nil])
			if r := filtered["[]"]; fmt.Sprintf("%.0f %.0f", r[0], r[2]) != w || r[1] != rate(visitors) {
				t.Errorf("%s filter %s: %v, want %s (visitors, events), rate %v", c.json, g.DisplayName, r, w, rate(visitors))
			}
		}
		if converting < 10 {
			t.Errorf("%s: only %d goals converting", c.json, converting)
		}
	}
}
