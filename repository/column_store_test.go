package repository_test

import (
	"context"
	"database/sql"
	"fmt"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// columnStoreQueries are visit-level questions the column store answers: the query
// benchmark's, the agreement tests' filters, labels that merge stored values (devices, weeks),
// percentage, and every ratio.
var columnStoreQueries = []struct{ metrics, dims, filters string }{
	{`"visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit", "events"`, ``, `[]`},
	{`"visitors", "pageviews", "bounce_rate"`, `"visit:country_name", "visit:city_name"`, `[]`},
	{`"visitors", "visits"`, `"visit:browser", "visit:os", "visit:device", "time:day"`, `[]`},
	{`"visitors", "visits", "pageviews"`, `"visit:country"`, `[["is", "visit:referrer", ["google.com", "t.co"]]]`},
	{`"visitors", "visits", "pageviews"`, `"visit:country"`, `[["matches", "visit:referrer", ["^(google|t)\\."]]]`},
	{`"visitors", "percentage"`, `"visit:browser"`, `[["is", "visit:country", ["DE"]]]`},
	{`"visitors", "percentage"`, `"visit:device"`, `[["matches", "visit:country", ["^(DE|FR)$"]]]`},
	{`"visitors", "bounce_rate"`, `"time:week"`, `[["and", [["contains", "visit:entry_page", ["/B"], {"case_sensitive": false}], ["not", ["matches", "visit:referrer", ["google"]]]]]]`},
	{`"visitors", "visits", "bounce_rate", "visit_duration"`, `"time:day"`, `[["is_not", "visit:os", ["Windows", "macOS"]]]`},
	{`"visits", "pageviews"`, `"time:hour"`, `[["or", [["is", "visit:browser", ["Chrome", "Firefox"]], ["contains", "visit:referrer", ["GOOGLE"], {"case_sensitive": false}]]]]`},
	{`"visitors", "visits"`, `"visit:screen", "time:month"`, `[["is", "visit:country", ["DE", "FR"]], ["is_not", "visit:device", ["Mobile"]]]`},
	// The hit-level questions: pages, entry and exit pages, page filters of a few values and
	// of many (all ten pages: a join), goal filters and the goals list.
	{`"visitors", "visits", "pageviews", "bounce_rate", "visit_duration"`, `"event:page"`, `[]`},
	{`"visitors", "pageviews"`, `"event:page", "visit:country"`, `[["is_not", "event:page", ["/docs"]], ["is", "visit:country", ["DE", "FR"]]]`},
	{`"visitors", "pageviews", "events"`, ``, `[["is", "event:page", ["/docs", "/pricing"]]]`},
	{`"visitors", "pageviews"`, `"visit:entry_page", "visit:exit_page"`, `[["matches", "event:page", ["^/blog"]]]`},
	{`"visitors", "pageviews", "visits"`, `"visit:country"`, `[["matches", "event:page", ["^/"]]]`},
	{`"visitors", "pageviews"`, `"event:page"`, `[["contains_not", "event:page", ["blog"]]]`},
	{`"visitors", "pageviews"`, `"time:day"`, `[["or", [["contains", "event:page", ["BLOG"], {"case_sensitive": false}], ["is", "visit:country", ["DE"]]]]]`},
	{`"visitors", "events", "conversion_rate"`, ``, `[["is", "event:goal", ["Blog"]]]`},
	{`"visitors", "events", "conversion_rate"`, ``, `[["is", "event:goal", ["Every page"]]]`},
	{`"visitors", "events", "conversion_rate"`, `"visit:browser"`, `[["is", "event:goal", ["Signup"]]]`},
	{`"visitors", "events"`, `"event:goal"`, `[]`},
	{`"visitors", "events", "conversion_rate"`, `"event:goal"`, `[["is", "visit:country", ["DE"]]]`},
	{`"visitors", "events"`, `"event:goal"`, `[["contains", "event:page", ["/blog"]]]`},
	{`"visitors", "events", "group_conversion_rate"`, `"event:goal", "visit:country"`, `[]`},
	{`"visitors", "events"`, `"event:goal", "time:day"`, `[["is", "event:goal", ["Signup", "Blog"]]]`},
	{`"visitors", "events", "conversion_rate"`, `"event:goal", "time:week"`, `[["matches", "event:page", ["^/"]]]`},
	// Property filters: is, and its negation around it.
	{`"visitors", "visits", "pageviews", "bounce_rate"`, `"visit:country"`, `[["is", "event:props:plan", ["pro", "team"]]]`},
	{`"visitors", "pageviews"`, `"event:page"`, `[["not", ["is", "event:props:size", ["L"]]], ["is", "event:props:plan", ["free"]]]`},
}

// columnStoreV1Filters are v1 filters the column store answers: none, visit-level values, pages, a
// referrer none of and a browser any of, a pageview goal and an event goal with a device.
var columnStoreV1Filters = []stats.Filters{
	nil, // the unfiltered funnels counted by day (column/funnel_days.go)
	{{Name: stats.Country, Value: "DE:Germany"}},
	{{Name: stats.Page, Value: "/docs"}},
	{{Name: stats.Page, Op: stats.ContainsAny, Values: []string{"BLOG", "pric"}}},
	{{Name: stats.Referrer, Op: stats.NoneOf, Values: []string{"t.co", "www.google.com"}}, {Name: stats.Browser, Op: stats.AnyOf, Values: []string{"Chrome", "Firefox"}}},
	{{Name: stats.GoalName, Value: "Blog"}},
	{{Name: stats.GoalName, Value: "Signup"}, {Name: stats.Device, Value: "Desktop"}},
	{{Name: stats.Property, Key: "plan", Value: "pro"}},
	{{Name: stats.Property, Key: "plan", Op: stats.NoneOf, Values: []string{"free"}}, {Name: stats.Country, Value: "DE:Germany"}},
}

// columnStoreV1Lists are v1's lists the column store answers: visit-level names (one counted
// only when given), pages, sorted and searched, and pages of a list past its first.
var columnStoreV1Lists = []repository.StatQuery{
	{Name: stats.Country, SortBy: "count", Desc: true, Limit: 10},
	{Name: stats.Referrer, SortBy: "value", Limit: 3, Offset: 2},
	{Name: stats.Browser, SortBy: "count", Limit: 0},
	{Name: stats.Page, SortBy: "count", Desc: true, Limit: 4},
	{Name: stats.Page, Search: "BLOG", SortBy: "value", Desc: true, Limit: 10},
	{Name: stats.LandingPage, SortBy: "count", Desc: true, Limit: 2, Offset: 1},
	{Name: stats.Campaign, SortBy: "count", Desc: true, Limit: 10},
	{Name: stats.Page, SortBy: "count", Limit: 10, Offset: 100},
	{Name: stats.Event, SortBy: "count", Desc: true, Limit: 10},
	{Name: stats.Event, Search: "sign", SortBy: "value", Limit: 2, Offset: 1},
	{Name: stats.Property, SortBy: "count", Desc: true, Limit: 10},
	{Name: stats.Property, Property: "plan", SortBy: "count", Desc: true, Limit: 10},
	{Name: stats.Property, Property: "size", SortBy: "value", Limit: 1, Offset: 0},
}

// TestColumnStoreAgreesWithRowStore holds every answer of the engine with the column store
// equal to the row store's alone, on random traffic whose range holds closed days (the
// store's) and open ones (the rows'), with a store that holds every closed day and one that
// lacks the last ones (a node that has not copied them yet, or one whose file was deleted).
func TestColumnStoreAgreesWithRowStore(t *testing.T) {
	f := newFixture(t, "column.example")
	site, ctx := f.sites[0], context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -24)
	rnd := mathrand.New(mathrand.NewPCG(38, 19))
	visits := repotest.RandomVisits(rnd, from, today, 40)
	for i, v := range visits {
		if v.Day.Day()%2 == 0 { // the other days' rows are as written before event names were kept
			for _, e := range v.Events {
				visits[i].EventNames = append(visits[i].EventNames, strings.SplitN(e, ":", 2)[0])
			}
		}
		// The hits interleaved (funnels walk them in order), some events before any page.
		order := []byte(v.HitOrder())
		rnd.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		visits[i].Order = string(order)
	}
	repotest.WriteVisitRows(t, f.db, site, visits)
	// Engagement on most visits' pages, some of it without time or without a scroll depth
	// (NULL elements), none on a quarter of the visits.
	if _, err := f.db.Exec(`UPDATE visit_rows SET engaged_pages = e.pages, engaged_ms = e.ms, scroll_depth = e.depth
		FROM (SELECT id, array_agg(p ORDER BY n) AS pages,
				array_agg(CASE WHEN (visitor + n) % 5 = 0 THEN NULL ELSE abs(visitor % 997) * 37 + n END ORDER BY n) AS ms,
				array_agg(CASE WHEN (visitor + n) % 4 = 1 THEN NULL ELSE abs(visitor + n) % 101 END ORDER BY n)::smallint[] AS depth
			FROM visit_rows, unnest(pages) WITH ORDINALITY AS u (p, n)
			WHERE website_id = $1 AND id % 4 <> 0 GROUP BY id) AS e
		WHERE visit_rows.website_id = $1 AND visit_rows.id = e.id`, site); err != nil {
		t.Fatal(err)
	}
	// A plan property on two visits in three, a second property on some.
	if _, err := f.db.Exec(`UPDATE visit_rows SET props = ARRAY['plan' || chr(31) || (ARRAY['free', 'pro'])[abs(visitor) % 2 + 1]]
			|| CASE WHEN id % 5 = 0 THEN ARRAY['size' || chr(31) || 'L'] ELSE '{}' END
		WHERE website_id = $1 AND id % 3 <> 0`, site); err != nil {
		t.Fatal(err)
	}
	goalIDs := map[string]int64{}
	for _, g := range []stats.Goal{{Kind: stats.GoalPageview, Page: "/blog/*", DisplayName: "Blog"},
		{Kind: stats.GoalPageview, Page: "/**", DisplayName: "Every page"}, {Kind: stats.GoalEvent, Event: "Signup", DisplayName: "Signup"},
		{Kind: stats.GoalPageview, Page: "/pricing|/docs", DisplayName: "Pricing or docs"}, {Kind: stats.GoalEvent, Event: "Download", DisplayName: "Download"}} {
		created, err := f.repo.CreateGoal(ctx, site, g)
		if err != nil {
			t.Fatal(err)
		}
		goalIDs[g.DisplayName] = created.ID
	}
	// Funnels of pages and events, one that begins with an event.
	var funnels []stats.Funnel
	for i, names := range [][]string{{"Every page", "Signup"}, {"Pricing or docs", "Signup", "Blog"}, {"Every page", "Download"},
		{"Signup", "Every page", "Blog"}, {"Blog", "Pricing or docs", "Signup"}} {
		var steps []int64
		for _, n := range names {
			steps = append(steps, goalIDs[n])
		}
		funnel, err := f.repo.CreateFunnel(ctx, site, fmt.Sprintf("funnel %d", i), steps)
		if err != nil {
			t.Fatal(err)
		}
		funnels = append(funnels, funnel)
	}
	if _, err := f.db.Exec(`UPDATE websites SET funnels_from = '2000-01-01', filters_from = '2000-01-01' WHERE id = $1`, site); err != nil {
		t.Fatal(err)
	}
	// Funnels' numbers, as visits that go on reach more steps: checkV1 counts those that
	// reach each funnel's last step.
	reachedLast := map[string]int{}
	env := queryapi.Env{Now: time.Now().UTC(), Location: time.UTC}

	dir := t.TempDir()
	store, err := column.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	withColumns := repository.New(f.db, nil)
	withColumns.UseColumnStore(store)
	// A node holding a visit of 4 days ago keeps the days from it on open (package closed):
	// the static bound, closed.After days, closes them until the end of the test.
	lastClosed := today.AddDate(0, 0, -3)
	if _, err := f.db.Exec(`INSERT INTO node_open_days (node, oldest, flushed_at) VALUES ('slow', $1, now())`, lastClosed.AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	if err := store.Sync(ctx, f.db.DB, lastClosed.AddDate(0, 0, -5)); err != nil {
		t.Fatal(err)
	}
	// v1's filtered lists, top lists and events (the dashboard's) read them for the visit-level
	// names, pages and events, and every page of a list is the rows'.
	checkV1Lists := func(name string, days stats.Range, filters stats.Filters) {
		t.Helper()
		for _, q := range columnStoreV1Lists {
			want, wantTotal, err := f.repo.RowReader(site, days, filters).List(ctx, q)
			if err != nil {
				t.Fatalf("%s: %+v: %v", name, q, err)
			}
			got, gotTotal, err := withColumns.RowReader(site, days, filters).List(ctx, q)
			if err != nil {
				t.Fatalf("%s: %+v: %v", name, q, err)
			}
			if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
				t.Errorf("%s: list %+v\ncolumns %d %+v\nrows    %d %+v", name, q, gotTotal, got, wantTotal, want)
			}
		}
		var names []stats.Name
		for _, n := range stats.Names {
			if n != stats.Pageview && n != stats.Visitor && n != stats.Visit {
				names = append(names, n)
			}
		}
		want, err := f.repo.RowReader(site, days, filters).Top(ctx, names, 3)
		if err != nil {
			t.Fatalf("%s: top: %v", name, err)
		}
		got, err := withColumns.RowReader(site, days, filters).Top(ctx, names, 3)
		if err != nil {
			t.Fatalf("%s: top: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: top\ncolumns %+v\nrows    %+v", name, got, want)
		}
		if len(want[stats.Page].Entries) == 0 || len(want[stats.Event].Entries) == 0 {
			t.Errorf("%s: top: no page or no event: %+v", name, want)
		}
		pages := []string{"/", "/pricing", "/docs", "/blog/a", "/blog/b", "/about", "/100%", "/a_b", `/q'"uote`, "/ünï", "/none"}
		wantEngagement, err := f.repo.RowReader(site, days, filters).Engagement(ctx, pages)
		if err != nil {
			t.Fatalf("%s: engagement: %v", name, err)
		}
		gotEngagement, err := withColumns.RowReader(site, days, filters).Engagement(ctx, pages)
		if err != nil {
			t.Fatalf("%s: engagement: %v", name, err)
		}
		if !reflect.DeepEqual(gotEngagement, wantEngagement) || wantEngagement["/"].TimeOnPage == nil || wantEngagement["/"].ScrollDepth == nil {
			t.Errorf("%s: engagement\ncolumns %s\nrows    %s", name, engagementText(gotEngagement), engagementText(wantEngagement))
		}
		wantEvents, wantDistinct, err := f.repo.RowReader(site, days, filters).Events(ctx, 3, 2)
		if err != nil {
			t.Fatalf("%s: events: %v", name, err)
		}
		gotEvents, gotDistinct, err := withColumns.RowReader(site, days, filters).Events(ctx, 3, 2)
		if err != nil {
			t.Fatalf("%s: events: %v", name, err)
		}
		if !reflect.DeepEqual(gotEvents, wantEvents) || gotDistinct != wantDistinct || len(wantEvents) == 0 {
			t.Errorf("%s: events\ncolumns %d %+v\nrows    %d %+v", name, gotDistinct, gotEvents, wantDistinct, wantEvents)
		}
	}
	// v1's filtered summary and daily series read the column store's days too.
	checkV1 := func(stage string, days stats.Range, through time.Time) {
		t.Helper()
		for _, filters := range columnStoreV1Filters {
			name := fmt.Sprintf("%s: v1 %s..%s %+v", stage, days.From.Format(time.DateOnly), days.To.Format(time.DateOnly), filters)
			want, err := f.repo.RowReader(site, days, filters).Totals(ctx)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := withColumns.RowReader(site, days, filters).Totals(ctx)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got != want {
				t.Errorf("%s: totals\ncolumns %+v\nrows    %+v", name, got, want)
			}
			if want.Visitors == 0 {
				t.Errorf("%s: no visitor", name)
			}
			wantSeries, err := f.repo.RowReader(site, days, filters).Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			gotSeries, err := withColumns.RowReader(site, days, filters).Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(gotSeries, wantSeries) {
				t.Errorf("%s: series\ncolumns %+v\nrows    %+v", name, gotSeries, wantSeries)
			}
			wantThrough := through
			if days.To.Before(through) {
				wantThrough = days.To
			}
			if got := repository.TotalsColumnThrough(ctx, withColumns, site, days, filters); !got.Equal(wantThrough) {
				t.Errorf("%s: the column store answers through %s, not %s", name, got.Format(time.DateOnly), wantThrough.Format(time.DateOnly))
			}
			if got := repository.ListColumnThrough(ctx, withColumns, site, days, filters); !got.Equal(wantThrough) {
				t.Errorf("%s: the column store answers the lists through %s, not %s", name, got.Format(time.DateOnly), wantThrough.Format(time.DateOnly))
			}
			checkV1Lists(name, days, filters)
			for _, funnel := range funnels {
				want, _, err := f.repo.FunnelNumbers(ctx, site, days, filters, funnel)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, funnel.Name, err)
				}
				got, _, err := withColumns.FunnelNumbers(ctx, site, days, filters, funnel)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, funnel.Name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s\ncolumns %+v\nrows    %+v", name, funnel.Name, got, want)
				}
				if want.Visitors == 0 {
					t.Errorf("%s: %s: no visitor", name, funnel.Name)
				}
				if want.Steps[len(want.Steps)-1] > 0 {
					reachedLast[funnel.Name]++
				}
			}
		}
	}
	check := func(stage string, through time.Time) {
		t.Helper()
		for _, rg := range [][2]time.Time{{from, today}, {from.AddDate(0, 0, 2), lastClosed.AddDate(0, 0, -1)}, {from.AddDate(0, 0, 10), today.AddDate(0, 0, -1)}} {
			for _, c := range columnStoreQueries {
				body := fmt.Sprintf(`{"site_id": "column.example", "date_range": [%q, %q], "metrics": [%s], "dimensions": [%s], "filters": %s}`,
					rg[0].Format(time.DateOnly), rg[1].Format(time.DateOnly), c.metrics, c.dims, c.filters)
				q, err := queryapi.Parse([]byte(body), env)
				if err != nil {
					t.Fatalf("%s: %v", body, err)
				}
				want := f.runQuery(t, site, body, env)
				got, err := withColumns.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
				if err != nil {
					t.Fatalf("%s: %s: %v", stage, body, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s:\ncolumns %+v\nrows    %+v", stage, body, got, want)
				}
				if len(want.Rows) == 0 {
					t.Errorf("%s: %s: no rows", stage, body)
				}
				wantThrough := through
				if rg[1].Before(through) {
					wantThrough = rg[1]
				}
				if got := repository.ColumnThrough(ctx, withColumns, site, q); !got.Equal(wantThrough) {
					t.Errorf("%s: %s: the column store answers through %s, not %s", stage, body, got.Format(time.DateOnly), wantThrough.Format(time.DateOnly))
				}
			}
			checkV1(stage, stats.Range{From: rg[0], To: rg[1]}, through)
		}
	}
	check("lacking the last closed days", lastClosed.AddDate(0, 0, -5))
	if err := withColumns.SyncColumnStore(ctx); err != nil {
		t.Fatal(err)
	}
	// The sync counted the funnels' days ahead: none is left to count, until forgotten.
	through := lastClosed.AddDate(0, 0, -1)
	if days, err := withColumns.CountColumnFunnels(ctx, through); err != nil || days != 0 {
		t.Errorf("after the sync, %d funnel days were still to count (%v)", days, err)
	}
	store.ForgetFunnelDays()
	held := int(through.Sub(from).Hours()/24) + 1
	if days, err := withColumns.CountColumnFunnels(ctx, through); err != nil || days != len(funnels)*held {
		t.Errorf("forgotten, %d funnel days counted, not %d funnels of %d days (%v)", days, len(funnels), held, err)
	}
	check("every closed day", lastClosed.AddDate(0, 0, -1))
	// Every page and pageview goal filter joining its selection (none tested on each visit's
	// list of pages), and read again from the selections kept: the same answers.
	listed := store.ListedPages
	store.ListedPages = 0
	check("every page filter a selection", lastClosed.AddDate(0, 0, -1))
	check("the selections kept", lastClosed.AddDate(0, 0, -1))
	store.ListedPages = listed

	// Deleted, the file is made again empty, and the next sync copies the days again.
	store.Close()
	for _, name := range []string{column.FileName, column.FileName + ".wal"} {
		os.Remove(filepath.Join(dir, name))
	}
	store, err = column.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	withColumns.UseColumnStore(store)
	check("deleted", time.Time{})
	if err := withColumns.SyncColumnStore(ctx); err != nil {
		t.Fatal(err)
	}
	check("rebuilt", lastClosed.AddDate(0, 0, -1))

	// A stats reset of closed days, made on another node: the copies made before it answer
	// nothing from the next read on, and are copied again by the next sync.
	reset := stats.Range{From: from.AddDate(0, 0, 3), To: from.AddDate(0, 0, 6)}
	if _, err := repository.New(f.db, nil).DeleteStats(ctx, site, &reset, stats.FixedZone(time.UTC)); err != nil {
		t.Fatal(err)
	}
	check("reset on another node", time.Time{})
	if err := withColumns.SyncColumnStore(ctx); err != nil {
		t.Fatal(err)
	}
	check("copied again after the reset", lastClosed.AddDate(0, 0, -1))
	for _, funnel := range funnels {
		if reachedLast[funnel.Name] == 0 {
			t.Errorf("%s: no read has a visitor reach its last step", funnel.Name)
		}
	}

	// Retention on another node forgets the rows of the first two days: the column store
	// answers as the rows do, without its copies of them, then and after the next sync.
	if _, err := repository.New(f.db, nil).ForgetVisitRows(ctx, site, from.AddDate(0, 0, 2), 10); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"retention on another node", "synced after retention"} {
		for _, c := range columnStoreQueries {
			body := fmt.Sprintf(`{"site_id": "column.example", "date_range": [%q, %q], "metrics": [%s], "dimensions": [%s], "filters": %s}`,
				from.Format(time.DateOnly), lastClosed.Format(time.DateOnly), c.metrics, c.dims, c.filters)
			q, err := queryapi.Parse([]byte(body), env)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			want := f.runQuery(t, site, body, env)
			if got, err := withColumns.RunQuery(ctx, site, q, stats.FixedZone(time.UTC)); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s:\ncolumns %+v %v\nrows    %+v", stage, body, got, err, want)
			}
		}
		if err := withColumns.SyncColumnStore(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Another database under the same file (its first user made at another time): the file's
	// days are dropped and copied again, so a closed day that differs there is read as it is.
	if _, err := f.db.Exec(`DELETE FROM visit_rows WHERE website_id = $1 AND day = $2 AND visitor % 2 = 0`, site, from.AddDate(0, 0, 3).Format(time.DateOnly)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Exec(`UPDATE users SET created_at = created_at - interval '1 day'`); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.HeldThrough(site, from, today, today); !ok {
		t.Fatal("the file holds nothing before the other database's sync")
	}
	if err := withColumns.SyncColumnStore(ctx); err != nil {
		t.Fatal(err)
	}
	check("another database", lastClosed.AddDate(0, 0, -1))

	// The node leaves: every day before today's first date on Earth (UTC-12's) is closed,
	// copied by the next sync and answered by the store (a new repository: no report read).
	if _, err := f.db.Exec(`DELETE FROM node_open_days`); err != nil {
		t.Fatal(err)
	}
	withColumns = repository.New(f.db, nil)
	withColumns.UseColumnStore(store)
	if err := withColumns.SyncColumnStore(ctx); err != nil {
		t.Fatal(err)
	}
	allClosed := time.Now().UTC().Add(-12*time.Hour-time.Minute).Truncate(24*time.Hour).AddDate(0, 0, -1)
	check("closed by the nodes' reports", allClosed)

	// A view past stats.MaxExactPageviews (by the counters, on a day of every range checked) is
	// sampled at 1/2: the store reads the same visitors as the rows, so the estimates are equal.
	repotest.CountPageviews(t, f.repo, site, from.AddDate(0, 0, 10), 2*stats.MaxExactPageviews)
	sampled := fmt.Sprintf(`{"site_id": "column.example", "date_range": [%q, %q], "metrics": ["visitors"], "dimensions": ["visit:country"]}`,
		from.Format(time.DateOnly), today.Format(time.DateOnly))
	if got := f.runQuery(t, site, sampled, env); got.Basis.Fraction != 0.5 {
		t.Fatalf("%s: read %v of the visitors, not a sample of 1/2", sampled, got.Basis.Fraction)
	}
	check("sampled", allClosed)
}

// useTestColumnStore makes f's repository read the closed days from a column store filled
// from f's database, and checks that it holds from..to.
func useTestColumnStore(t *testing.T, f fixture, site int64, from, to time.Time) {
	t.Helper()
	store, err := column.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f.repo.UseColumnStore(store)
	if err := f.repo.SyncColumnStore(context.Background()); err != nil {
		t.Fatal(err)
	}
	if last, ok := store.HeldThrough(site, from, to, to); !ok || !last.Equal(to) {
		t.Fatalf("the column store holds %s..%s through %v (%v)", from.Format(time.DateOnly), to.Format(time.DateOnly), last, ok)
	}
}

// engagementText is a page's engagement as text, pages in order.
func engagementText(m map[string]repository.PageEngagement) string {
	var out []string
	for page, e := range m {
		text := func(n *int) string {
			if n == nil {
				return "-"
			}
			return fmt.Sprint(*n)
		}
		out = append(out, page+":"+text(e.TimeOnPage)+"/"+text(e.ScrollDepth))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// A file of another layout (one an older service wrote) is made again, empty, when opened,
// and the next sync fills it.
func TestColumnStoreOfAnotherLayoutIsMadeAgain(t *testing.T) {
	f := newFixture(t, "layout.example")
	site, ctx := f.sites[0], context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -10)
	repotest.WriteVisitRows(t, f.db, site, repotest.RandomVisits(mathrand.New(mathrand.NewPCG(4, 5)), from, today, 5))
	dir := t.TempDir()
	sync := func() *column.Store {
		t.Helper()
		store, err := column.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		f.repo.UseColumnStore(store)
		if err := f.repo.SyncColumnStore(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := store.HeldThrough(site, from, today, today); !ok {
			t.Fatal("the sync copied nothing")
		}
		return store
	}
	// file reads the file's layout and how many days it holds, the store closed.
	file := func(change string) (version, days int) {
		t.Helper()
		db, err := sql.Open("duckdb", filepath.Join(dir, column.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if change != "" {
			if _, err := db.Exec(change); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.QueryRow(`SELECT (SELECT version FROM meta), (SELECT count(*) FROM days)`).Scan(&version, &days); err != nil {
			t.Fatal(err)
		}
		return version, days
	}
	sync().Close()
	layout, held := file("")
	if held == 0 {
		t.Fatal("the file holds no day")
	}
	if v, _ := file(`UPDATE meta SET version = version - 1`); v != layout-1 {
		t.Fatalf("the layout is %d after the change", v)
	}
	store, err := column.Open(dir)
	if err != nil {
		t.Fatalf("a file of another layout: %v", err)
	}
	store.Close()
	if v, days := file(""); v != layout || days != 0 {
		t.Fatalf("opened, the file of another layout is of layout %d with %d days, not made again (%d, none)", v, days, layout)
	}
	sync().Close()
	if _, days := file(""); days != held {
		t.Errorf("synced again, the file holds %d days, not %d", days, held)
	}
}
