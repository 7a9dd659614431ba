package repository_test

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestFilteredReadsAgreeWithQuery sends the same filters to v1's filtered reads and to the
// query API's engine, which compiles both (docs/query.md, "One engine"), and compares their
// answers: the summary's numbers, the days of the time series and a visit-level list. It
// covers every v1 operator (filter, filter_any, filter_not, filter_contains), a code before
// ':', pages (a visit matching when one of its hits does, or when none does), a property and
// goals, alone and together, past stats.MaxExactPageviews (sampled) too. (Stored events, which the
// query API has no dimension for, are checked against the visits in filtered_read_test.go.)
func TestFilteredReadsAgreeWithQuery(t *testing.T) {
	for _, columns := range []bool{false, true} {
		t.Run(map[bool]string{false: "rows", true: "column store"}[columns], func(t *testing.T) { filteredReadsAgree(t, columns) })
	}
}

// filteredReadsAgree is TestFilteredReadsAgreeWithQuery's, the query API's visit-level reads
// of the closed days from the column store when columns is set (v1's read the rows).
func filteredReadsAgree(t *testing.T, columns bool) {
	f := newFixture(t, "engine.example")
	site, ctx := f.sites[0], context.Background()
	from, to := date("2026-01-01"), date("2026-02-09") // 40 days
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(27, 4)), from, to, 40)
	// A view of 20 M pageviews by the counters: the reads of the whole range are sampled at 1/2.
	repotest.CountPageviews(t, f.repo, site, from, 2*stats.MaxExactPageviews)
	for i := range visits {
		switch i % 5 {
		case 0:
			visits[i].Props = []string{stats.PropPair("plan", "pro")}
		case 1:
			visits[i].Props = []string{stats.PropPair("plan", "free"), stats.PropPair("plan", "pro")}
		}
	}
	repotest.WriteVisitRows(t, f.db, site, visits)
	if columns {
		useTestColumnStore(t, f, site, from, to)
	}
	var goals []stats.Goal
	for _, g := range []stats.Goal{
		{Kind: stats.GoalEvent, Event: "Signup", DisplayName: "Signed up"},
		{Kind: stats.GoalPageview, Page: "/blog/*", DisplayName: "Read the blog"},
		{Kind: stats.GoalPageview, Page: "/**", DisplayName: "Any page"},
	} {
		created, err := f.repo.CreateGoal(ctx, site, g)
		if err != nil {
			t.Fatal(err)
		}
		goals = append(goals, created)
	}
	env := queryapi.Env{Now: to.AddDate(0, 0, 1).Add(12 * time.Hour), Location: time.UTC}

	cases := []struct {
		v1     stats.Filters
		query  string
		sameOn string // what both count alike: "all", or "visits" (not pageviews, which v1 counts whole)
	}{
		{stats.Filters{{Name: stats.Country, Value: "DE:Germany"}}, `[["is", "visit:country", ["DE"]]]`, "all"},
		{stats.Filters{{Name: stats.Browser, Op: stats.AnyOf, Values: []string{"Chrome", "Firefox"}}},
			`[["is", "visit:browser", ["Chrome", "Firefox"]]]`, "all"},
		{stats.Filters{{Name: stats.OperatingSystem, Op: stats.NoneOf, Values: []string{"Windows", "macOS"}}},
			`[["is_not", "visit:os", ["Windows", "macOS"]]]`, "all"},
		{stats.Filters{{Name: stats.Referrer, Op: stats.ContainsAny, Values: []string{"GOOGLE", "t.c"}}},
			`[["contains", "visit:referrer", ["GOOGLE", "t.c"], {"case_sensitive": false}]]`, "all"},
		{stats.Filters{{Name: stats.Page, Value: "/pricing"}}, `[["is", "event:page", ["/pricing"]]]`, "all"},
		{stats.Filters{{Name: stats.Page, Op: stats.NoneOf, Values: []string{"/", "/docs"}}},
			`[["not", ["is", "event:page", ["/", "/docs"]]]]`, "all"},
		{stats.Filters{{Name: stats.Page, Op: stats.ContainsAny, Values: []string{"BLOG"}}},
			`[["contains", "event:page", ["BLOG"], {"case_sensitive": false}]]`, "visits"},
		{stats.Filters{{Name: stats.Property, Key: "plan", Value: "pro"}}, `[["is", "event:props:plan", ["pro"]]]`, "all"},
		{stats.Filters{{Name: stats.GoalName, Value: "Signed up"}}, `[["is", "event:goal", ["Signed up"]]]`, "all"},
		{stats.Filters{{Name: stats.GoalName, Value: "Read the blog"}}, `[["is", "event:goal", ["Read the blog"]]]`, "all"},
		{stats.Filters{{Name: stats.GoalName, Value: "No such goal"}}, `[["is", "event:goal", ["No such goal"]]]`, "all"},
		{stats.Filters{
			{Name: stats.Device, Op: stats.NoneOf, Values: []string{"Mobile"}},
			{Name: stats.Country, Op: stats.AnyOf, Values: []string{"DE:Germany", "FR:France"}},
			{Name: stats.Page, Value: "/"},
		}, `[["is_not", "visit:device", ["Mobile"]], ["is", "visit:country", ["DE", "FR"]], ["is", "event:page", ["/"]]]`, "all"},
	}
	for _, days := range []stats.Range{{From: date("2026-01-03"), To: date("2026-01-20")}, {From: from, To: to}} {
		for _, c := range cases {
			name := fmt.Sprintf("%s..%s %v", days.From.Format(time.DateOnly), days.To.Format(time.DateOnly), c.v1)
			reader := f.repo.Reader(site, days, c.v1)
			run := func(metrics, dims string) *repository.QueryAnswer {
				t.Helper()
				body := fmt.Sprintf(`{"site_id": "engine.example", "date_range": [%q, %q], "metrics": [%s], "dimensions": [%s], "filters": %s}`,
					days.From.Format(time.DateOnly), days.To.Format(time.DateOnly), metrics, dims, c.query)
				answer := f.runQuery(t, site, body, env)
				return &answer
			}
			metrics := `"visitors", "visits", "bounce_rate", "visit_duration"`
			if c.sameOn == "all" {
				metrics += `, "pageviews"`
			}

			totals, err := reader.Totals(ctx)
			if err != nil {
				t.Fatal(err)
			}
			whole := run(metrics, "")
			if len(whole.Rows) != 1 {
				t.Fatalf("%s: %d rows of totals", name, len(whole.Rows))
			}
			if got, want := whole.Rows[0].Metrics, totalsMetrics(totals, c.sameOn); !slices.Equal(got, want) {
				t.Errorf("%s: query %v, v1 summary %v", name, got, want)
			}

			series, err := reader.Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			byDay := map[string][]float64{}
			for _, row := range run(metrics, `"time:day"`).Rows {
				byDay[row.Dimensions[0]] = row.Metrics
			}
			for _, b := range series {
				want, got := totalsMetrics(b.Totals, c.sameOn), byDay[b.Start.Format(time.DateOnly)]
				if b.Totals.Visits == 0 && got == nil {
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s: query %v, v1 series %v", name, b.Start.Format(time.DateOnly), got, want)
				}
			}

			list, _, err := reader.List(ctx, repository.StatQuery{Name: stats.ScreenResolution, SortBy: "count", Desc: true})
			if err != nil {
				t.Fatal(err)
			}
			screens := map[string]float64{}
			for _, row := range run(`"visits"`, `"visit:screen"`).Rows {
				screens[row.Dimensions[0]] = row.Metrics[0]
			}
			if len(list) != len(screens) {
				t.Errorf("%s: v1 lists %d screens, query %d", name, len(list), len(screens))
			}
			for _, e := range list {
				if screens[e.Value] != float64(e.Count) {
					t.Errorf("%s: screen %q: query %v visits, v1 %d", name, e.Value, screens[e.Value], e.Count)
				}
			}

			// v1's goals list of a filtered or sampled read is the engine's (engineGoalCounts):
			// the numbers the rows' own statements count.
			conversions, base, _, err := f.repo.Conversions(ctx, site, days, c.v1, goals)
			if err != nil {
				t.Fatal(err)
			}
			wantConversions, wantBase, err := repository.RowConversions(ctx, f.repo, site, days, c.v1, goals)
			if err != nil {
				t.Fatal(err)
			}
			for _, conv := range conversions {
				if got := [2]int64{conv.Visitors, conv.Events}; got != wantConversions[conv.Goal.ID] {
					t.Errorf("%s: goal %s: visitors and events %v, the rows' %v", name, conv.Goal.DisplayName, got, wantConversions[conv.Goal.ID])
				}
			}
			if base != wantBase || len(conversions) != len(goals) {
				t.Errorf("%s: goals' base %d, the rows' %d (%d goals)", name, base, wantBase, len(conversions))
			}
			if _, goal := c.v1.Get(stats.GoalName); !goal && conversions[0].Visitors == 0 {
				t.Errorf("%s: no visitor converts: %+v", name, conversions)
			}
		}
	}
}

// totalsMetrics are v1 totals as the query's metrics: visitors, visits, bounce_rate,
// visit_duration and, unless sameOn is "visits", pageviews.
func totalsMetrics(t stats.Totals, sameOn string) []float64 {
	out := []float64{float64(t.Visitors), float64(t.Visits), t.BounceRate(), float64(t.VisitDuration())}
	if sameOn == "all" {
		out = append(out, float64(t.Pageviews))
	}
	return out
}
