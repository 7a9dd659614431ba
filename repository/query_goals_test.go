package repository_test

import (
	"context"
	"fmt"
	"math"
	mathrand "math/rand/v2"
	"slices"
	"strings"
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
	for i := range visits {
		if i%3 == 0 {
			visits[i].Props = []string{stats.PropPair("plan", "pro")}
		}
	}
	repotest.WriteVisitRows(t, f.db, site, visits)
	for i := range 30 {
		g := stats.Goal{Kind: stats.GoalPageview, Page: goalPatterns[i%len(goalPatterns)], DisplayName: fmt.Sprintf("goal %02d", i)}
		if i%3 == 1 {
			g = stats.Goal{Kind: stats.GoalEvent, Event: goalEvents[i%len(goalEvents)], DisplayName: g.DisplayName}
		}
		if _, err := f.repo.CreateGoal(ctx, site, g); err != nil {
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
		answer := f.runQuery(t, site, `{"site_id": "goals.example", "date_range": ["2026-03-01", "2026-03-04"], `+body+`}`, env)
		out := map[string][]float64{}
		for _, row := range answer.Rows {
			out[fmt.Sprint(row.Dimensions)] = row.Metrics
		}
		return out
	}
	for _, c := range []struct {
		json    string // the filters besides event:goal
		filters stats.Filters
	}{
		{`[]`, nil},
		// A filter every visit passes: the same numbers, from the goals list's statements over
		// the rows the engine's filters keep rather than its read of the whole range.
		{`[["is_not", "visit:screen", ["0x0"]]]`, nil},
		{`[["is", "visit:country", ["DE"]]]`, stats.Filters{{Name: stats.Country, Value: "DE:Germany"}}},
		// A page filter keeps the visits with the page; their conversions are on any page.
		{`[["is", "event:page", ["/blog/a"]]]`, stats.Filters{{Name: stats.Page, Value: "/blog/a"}}},
		{`[["or", [["is", "visit:country", ["DE"]], ["matches", "visit:country", ["^U"]]]]]`,
			stats.Filters{{Name: stats.Country, Op: stats.AnyOf, Values: []string{"DE:Germany", "US:United States"}}}},
	} {
		want, base := referenceConversions(visits, goals, c.filters)
		rate := func(visitors string) float64 {
			var n int64
			fmt.Sscan(visitors, &n)
			return math.Round(1000*float64(n)/float64(base)) / 10
		}
		got := run(`"metrics": ["visitors", "events", "conversion_rate"], "dimensions": ["event:goal"], "filters": ` + c.json)
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
			filters := `[["is", "event:goal", ["` + g.DisplayName + `"]]]`
			if c.json != `[]` {
				filters = `[["is", "event:goal", ["` + g.DisplayName + `"]], ` + c.json[1:]
			}
			filtered := run(`"metrics": ["visitors", "conversion_rate", "events"], "filters": ` + filters)
			if r := filtered["[]"]; fmt.Sprintf("%.0f %.0f", r[0], r[2]) != w || r[1] != rate(visitors) {
				t.Errorf("%s filter %s: %v, want %s (visitors, events), rate %v", filters, g.DisplayName, r, w, rate(visitors))
			}
		}
		if converting < 10 {
			t.Errorf("%s: only %d goals converting", c.json, converting)
		}
		checkGoalsByCountry(t, run, visits, goals, c.json, c.filters)
	}
	checkGoalPaths(t, run)
	// Under event:props, whose rows count their own hits, a page filter only keeps visits.
	if got := run(`"metrics": ["visitors"], "dimensions": ["event:props:plan"], "filters": [["contains", "event:page", ["/blog"]]]`); len(got) != 2 {
		t.Errorf("by property with a page filter: %v, want pro and (none)", got)
	}
}

// checkGoalsByCountry: the event:goal dimension with visit:country counts, for each country,
// what the goals list counts of the visits of that country (referenceConversions), and
// group_conversion_rate divides by the country's visitors.
func checkGoalsByCountry(t *testing.T, run func(string) map[string][]float64, visits []repotest.Visit, goals []stats.Goal, filters string, with stats.Filters) {
	t.Helper()
	got := run(`"metrics": ["visitors", "events", "group_conversion_rate"], "dimensions": ["visit:country", "event:goal"], "filters": ` + filters)
	want := map[string]string{}
	for _, country := range []string{"", "DE:Germany", "US:United States", "FR:France", "JP:Japan"} {
		code, _, _ := strings.Cut(country, ":")
		counts, base := referenceConversions(visits, goals, append(slices.Clone(with), stats.Filter{Name: stats.Country, Value: country}))
		for name, c := range counts {
			if c != "0 0" {
				var visitors int64
				fmt.Sscan(c, &visitors)
				want[fmt.Sprint([]string{code, name})] = fmt.Sprintf("%s %v", c, math.Round(1000*float64(visitors)/float64(base))/10)
			}
		}
	}
	gotLines := map[string]string{}
	for k, m := range got {
		gotLines[k] = fmt.Sprintf("%.0f %.0f %v", m[0], m[1], m[2])
	}
	if len(want) < 20 || fmt.Sprint(gotLines) != fmt.Sprint(want) {
		t.Errorf("%s by country:\ngot  %v\nwant %v", filters, gotLines, want)
	}
}

// checkGoalPaths: the goals' counter (goalsListQuery) answers the event:goal dimension with
// another dimension and filters exactly as the union of one part a goal does, which answers
// the same query once it also asks pageviews (a metric the counter has not).
func checkGoalPaths(t *testing.T, run func(string) map[string][]float64) {
	t.Helper()
	for _, dims := range []string{`"event:goal"`, `"event:goal", "visit:device"`, `"time:day", "event:goal"`, `"event:goal", "time:week"`, `"event:goal", "visit:country_name"`} {
		for _, filters := range []string{`[]`, `[["is", "event:goal", ["goal 01", "goal 02", "goal 03"]]]`,
			`[["contains", "event:goal", ["goal 1"]], ["is_not", "visit:browser", ["Firefox"]]]`,
			`[["not", ["contains", "event:page", ["/blog"]]]]`, `[["contains", "event:page", ["/blog"]]]`, `[["is", "event:props:plan", ["pro"]]]`} {
			metrics := `"visitors", "events", "conversion_rate", "group_conversion_rate"`
			body := `"dimensions": [` + dims + `], "filters": ` + filters
			fast := run(`"metrics": [` + metrics + `], ` + body)
			union := run(`"metrics": [` + metrics + `, "pageviews"], ` + body)
			for k, m := range union {
				union[k] = m[:4]
			}
			if len(fast) == 0 || fmt.Sprint(fast) != fmt.Sprint(union) {
				t.Errorf("%s:\nfast  %v\nunion %v", body, fast, union)
			}
		}
	}
}
