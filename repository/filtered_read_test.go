package repository_test

import (
	"cmp"
	"context"
	mathrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// Filtered reads (docs/filters.md) against random visits written straight into
// visit_rows: every number is checked against what repotest computes from the list of visits.

// filterFixture is two websites with random visits over five days that cross a month; the
// second website's visits must never count for the first.
type filterFixture struct {
	fixture
	visits []repotest.Visit // of the first website
	days   stats.Range
}

func newFilterFixture(t *testing.T) filterFixture {
	t.Helper()
	f := filterFixture{fixture: newFixture(t, "a.example", "b.example")}
	f.days = stats.Range{From: date("2026-01-29"), To: date("2026-02-02")}
	rng := mathrand.New(mathrand.NewPCG(17, 17))
	f.visits = repotest.RandomVisits(rng, f.days.From, f.days.To, 150)
	repotest.WriteVisitRows(t, f.db, f.sites[0], f.visits)
	repotest.WriteVisitRows(t, f.db, f.sites[1], repotest.RandomVisits(rng, f.days.From, f.days.To, 50))
	return f
}

// sortedEntries are counts in the API's default order: count descending, value ascending.
func sortedEntries(counts map[string]int64) []repository.StatEntry {
	out := make([]repository.StatEntry, 0, len(counts))
	for v, n := range counts {
		out = append(out, repository.StatEntry{Value: v, Count: n})
	}
	slices.SortFunc(out, func(a, b repository.StatEntry) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return out
}

// filterCases are filters on every name: a value some visit has, "" and a value none has.
func (f filterFixture) filterCases() []stats.Filters {
	var out []stats.Filters
	v := f.visits[len(f.visits)/2]
	for _, name := range stats.FilterNames {
		value := v.Values[name]
		switch name {
		case stats.Page:
			value = v.Pages[len(v.Pages)-1]
		case stats.Event:
			value = "Signup:pro:"
		}
		out = append(out, stats.Filters{{Name: name, Value: value}}, stats.Filters{{Name: name, Value: ""}},
			stats.Filters{{Name: name, Value: "no such value"}})
	}
	return out
}

func TestFilteredListsMatchTheVisits(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	cases := append(f.filterCases(),
		stats.Filters{{Name: stats.Page, Value: "/pricing"}, {Name: stats.Country, Value: "DE:Germany"}},
		stats.Filters{{Name: stats.Browser, Value: "Firefox"}, {Name: stats.Event, Value: ""}},
	)
	for _, filters := range cases {
		matching := repotest.Filtered(f.visits, f.days.From, f.days.To, filters)
		for _, name := range stats.Names {
			got, total, err := f.repo.Reader(f.sites[0], f.days, filters).List(ctx, repository.StatQuery{Name: name, Desc: true})
			if err != nil {
				t.Fatalf("%v %s: %v", filters, name, err)
			}
			want := sortedEntries(repotest.ExpectList(matching, name, filters))
			if !slices.Equal(got, want) || total != int64(len(want)) {
				t.Errorf("%v, list %s: got %v (total %d), want %v", filters, name, got, total, want)
			}
		}
	}
}

func TestFilteredTotalsAndSeriesMatchTheVisits(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, filters := range append(f.filterCases(), stats.Filters{{Name: stats.Page, Value: "/docs"}, {Name: stats.Device, Value: "Mobile"}}) {
		matching := repotest.Filtered(f.visits, f.days.From, f.days.To, filters)
		got, err := f.repo.Reader(f.sites[0], f.days, filters).Totals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := repotest.ExpectTotal(matching, filters); got != want {
			t.Errorf("%v: summary %+v, want %+v", filters, got, want)
		}
		for _, c := range []struct {
			interval stats.Interval
			days     stats.Range
			key      func(repotest.Visit) string
		}{
			{stats.Daily, f.days, func(v repotest.Visit) string { return stats.DayValue(v.Day) }},
			{stats.Month, f.days, func(v repotest.Visit) string { return v.Day.Format("2006-01") }},
			{stats.Hour, stats.Range{From: f.days.To.AddDate(0, 0, -1), To: f.days.To}, func(v repotest.Visit) string {
				return time.Date(v.Day.Year(), v.Day.Month(), v.Day.Day(), v.Hour, 0, 0, 0, berlin).UTC().Format(time.RFC3339)
			}},
		} {
			series, err := f.repo.Reader(f.sites[0], c.days, filters).Series(ctx, c.interval, stats.FixedZone(berlin))
			if err != nil {
				t.Fatal(err)
			}
			want := repotest.ExpectTotals(repotest.Filtered(f.visits, c.days.From, c.days.To, filters), filters, c.key)
			if n := len(c.interval.Buckets(c.days, berlin)); len(series) != n {
				t.Fatalf("%v %s: %d buckets, want %d", filters, c.interval, len(series), n)
			}
			for _, b := range series {
				w := want[c.interval.BucketLabel(b.Start)]
				if len(filters) == 0 {
					w.Events = 0 // the counters' series have none (but EventsReader's); the rows' have
				}
				if b.Totals != w {
					t.Errorf("%v %s %s: %+v, want %+v", filters, c.interval, c.interval.BucketLabel(b.Start), b.Totals, w)
				}
			}
		}
	}
}

func TestFilterOnCodesAndOther(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	count := func(filters stats.Filters) int64 {
		t.Helper()
		s, err := f.repo.Reader(f.sites[0], f.days, filters).Totals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s.Visits
	}
	// A country or continent by its code, whatever the name after it: both spellings of DE
	// are counted, and the name given does not matter.
	de := count(stats.Filters{{Name: stats.Country, Value: "DE:Germany"}})
	var want int64
	for _, v := range f.visits {
		if strings.HasPrefix(v.Values[stats.Country], "DE:") {
			want++
		}
	}
	if de != want || count(stats.Filters{{Name: stats.Country, Value: "DE:Allemagne"}}) != want || count(stats.Filters{{Name: stats.Country, Value: "DE"}}) != want {
		t.Errorf("country DE: %d visits, want %d for every spelling", de, want)
	}
	// A city by its whole value: not every city of its country.
	berlin := count(stats.Filters{{Name: stats.City, Value: "DE:Berlin"}})
	if got := int64(len(repotest.Filtered(f.visits, f.days.From, f.days.To, stats.Filters{{Name: stats.City, Value: "DE:Berlin"}}))); berlin != got || berlin >= want {
		t.Errorf("city DE:Berlin: %d visits, want %d (fewer than the country's %d)", berlin, got, want)
	}
	// (other) and unknown values: zeros and empty lists, no error; (other) even where a row
	// holds it.
	repotest.WriteVisitRows(t, f.db, f.sites[0], []repotest.Visit{{Day: f.days.From, Visitor: 1, Pages: []string{"/"}, Events: []string{"Play::"},
		Values: map[stats.Name]string{stats.Referrer: stats.Other, stats.LandingPage: "/", stats.ExitPage: "/"}}})
	for _, filters := range []stats.Filters{{{Name: stats.Referrer, Value: stats.Other}}, {{Name: stats.City, Value: "XX:Nowhere"}}} {
		if n := count(filters); n != 0 {
			t.Errorf("%v: %d visits, want 0", filters, n)
		}
		list, total, err := f.repo.Reader(f.sites[0], f.days, filters).List(ctx, repository.StatQuery{Name: stats.Page, Limit: 10})
		if err != nil || len(list) != 0 || total != 0 {
			t.Errorf("%v: page list %v (total %d, %v), want empty", filters, list, total, err)
		}
		top, err := f.repo.Reader(f.sites[0], f.days, filters).Top(ctx, []stats.Name{stats.Page, stats.Country}, 10)
		if err != nil || len(top) != 0 {
			t.Errorf("%v: top %v (%v), want none", filters, top, err)
		}
		groups, distinct, err := f.repo.Reader(f.sites[0], f.days, filters).Events(ctx, 10, 5)
		if err != nil || len(groups) != 0 || distinct != 0 {
			t.Errorf("%v: events %v (%d, %v), want none", filters, groups, distinct, err)
		}
		series, err := f.repo.Reader(f.sites[0], f.days, filters).Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
		if err != nil || len(series) != len(stats.Daily.Buckets(f.days, time.UTC)) {
			t.Fatalf("%v: series %v (%v), want a bucket a day", filters, series, err)
		}
		for _, b := range series {
			if b.Totals != (stats.Totals{}) {
				t.Errorf("%v: series %s %+v, want zeros", filters, stats.Daily.BucketLabel(b.Start), b.Totals)
			}
		}
	}
	if _, err := f.repo.Reader(f.sites[0], f.days, stats.Filters{{Name: "visitor", Value: "1"}}).Totals(ctx); err == nil {
		t.Error("a filter on visitor was read; want an error")
	}
}

func TestFilteredListSearchSortAndPages(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	filters := stats.Filters{{Name: stats.Browser, Value: "Chrome"}}
	all := repotest.ExpectList(repotest.Filtered(f.visits, f.days.From, f.days.To, filters), stats.Page, filters)
	// Search is a literal substring, case-insensitive: % and _ are no wildcards.
	for _, search := range []string{"BLOG", "%", "_", "'", "ü"} {
		want := map[string]int64{}
		for v, n := range all {
			if strings.Contains(strings.ToLower(v), strings.ToLower(search)) {
				want[v] = n
			}
		}
		got, total, err := f.repo.Reader(f.sites[0], f.days, filters).List(ctx, repository.StatQuery{Name: stats.Page, Search: search, Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		if w := sortedEntries(want); !slices.Equal(got, w) || total != int64(len(w)) {
			t.Errorf("search %q: %v (total %d), want %v", search, got, total, w)
		}
	}
	byValue := sortedEntries(all)
	slices.SortFunc(byValue, func(a, b repository.StatEntry) int { return strings.Compare(b.Value, a.Value) })
	byCount := sortedEntries(all)
	slices.Reverse(byCount)
	slices.SortStableFunc(byCount, func(a, b repository.StatEntry) int {
		return cmp.Or(cmp.Compare(a.Count, b.Count), strings.Compare(a.Value, b.Value))
	})
	for _, c := range []struct {
		sortBy string
		desc   bool
		want   []repository.StatEntry
	}{{"value", true, byValue}, {"count", false, byCount}, {"count", true, sortedEntries(all)}} {
		for offset := 0; offset <= len(c.want)+3; offset += 3 {
			got, total, err := f.repo.Reader(f.sites[0], f.days, filters).List(ctx, repository.StatQuery{
				Name: stats.Page, SortBy: c.sortBy, Desc: c.desc, Limit: 3, Offset: offset})
			if err != nil {
				t.Fatal(err)
			}
			want := c.want[min(offset, len(c.want)):min(offset+3, len(c.want))]
			if !slices.Equal(got, want) || total != int64(len(all)) {
				t.Errorf("sort %s desc %v offset %d: %v (total %d), want %v (total %d)", c.sortBy, c.desc, offset, got, total, want, len(all))
			}
		}
	}
}

func TestFilteredTopAndEvents(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	for _, filters := range []stats.Filters{{{Name: stats.Country, Value: "US:United States"}}, {{Name: stats.Page, Value: "/blog/a"}}, {{Name: stats.Event, Value: "Play::"}}} {
		matching := repotest.Filtered(f.visits, f.days.From, f.days.To, filters)
		top, err := f.repo.Reader(f.sites[0], f.days, filters).Top(ctx, stats.Names, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range stats.Names {
			want := sortedEntries(repotest.ExpectList(matching, name, filters))
			got := top[name]
			if !slices.Equal(got.Entries, want[:min(4, len(want))]) || got.Distinct != int64(len(want)) {
				t.Errorf("%v top %s: %v (%d distinct), want %v (%d)", filters, name, got.Entries, got.Distinct, want[:min(4, len(want))], len(want))
			}
		}
		groups, distinct, err := f.repo.Reader(f.sites[0], f.days, filters).Events(ctx, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, wantDistinct := expectEventGroups(repotest.ExpectList(matching, stats.Event, filters), 2, 1)
		if !slices.EqualFunc(groups, want, func(a, b repository.EventGroup) bool {
			return a.Name == b.Name && a.Total == b.Total && slices.Equal(a.Values, b.Values)
		}) || distinct != wantDistinct {
			t.Errorf("%v events: %+v (%d), want %+v (%d)", filters, groups, distinct, want, wantDistinct)
		}
	}
}

// expectEventGroups groups event counts by name as Reader.Events does.
func expectEventGroups(counts map[string]int64, limit, valuesEach int) ([]repository.EventGroup, int64) {
	byName := map[string]map[string]int64{} // value:unit counts by event name
	for value, n := range counts {
		name, detail, _ := strings.Cut(value, ":")
		if byName[name] == nil {
			byName[name] = map[string]int64{}
		}
		byName[name][detail] = n
	}
	var out []repository.EventGroup
	for name, details := range byName {
		g := repository.EventGroup{Name: name, Values: sortedEntries(details)}
		for _, e := range g.Values {
			g.Total += e.Count
		}
		g.Values = g.Values[:min(valuesEach, len(g.Values))]
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b repository.EventGroup) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Name, b.Name))
	})
	return out[:min(limit, len(out))], int64(len(out))
}

// A big website's filtered numbers (a view of more than 10 M pageviews by its counters, here
// 200 M) are read from a sample of the visitors and scaled: estimates within a stated
// tolerance of the truth, counts in steps of the scale.
func TestFilteredBigViewIsSampled(t *testing.T) {
	f := newFixture(t, "a.example")
	ctx := context.Background()
	year := stats.Range{From: date("2025-01-01"), To: date("2025-12-31")}
	repotest.CountPageviews(t, f.repo, f.sites[0], year.From, 20*stats.MaxExactPageviews)
	fraction := stats.SampleFraction(20 * stats.MaxExactPageviews)
	if fraction >= 1 {
		t.Fatalf("200 M pageviews are read whole (%v); want a sample", fraction)
	}
	if b, err := f.repo.Reader(f.sites[0], year, stats.Filters{{Name: stats.Device, Value: "Desktop"}}).Basis(ctx); err != nil || b.Fraction != fraction {
		t.Fatalf("basis %+v (%v), want the fraction %v", b, err, fraction)
	}
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(3, 3)), year.From, year.To, 200)
	repotest.WriteVisitRows(t, f.db, f.sites[0], visits)
	step := int64(1 / fraction)
	// Tolerances: about 5 standard errors of a sample of this size (a visitor's visits are
	// drawn together, so errors exceed the binomial's a little).
	within := func(what string, got, want int64, tolerance float64) {
		t.Helper()
		if got%step != 0 {
			t.Errorf("%s: %d is not a multiple of %d", what, got, step)
		}
		if d := float64(got-want) / float64(want); d > tolerance || d < -tolerance {
			t.Errorf("%s: estimate %d is %.1f%% off %d; tolerance %.0f%%", what, got, 100*d, want, 100*tolerance)
		}
	}
	for _, filters := range []stats.Filters{{{Name: stats.Device, Value: "Desktop"}}, {{Name: stats.Page, Value: "/pricing"}}} {
		matching := repotest.Filtered(visits, year.From, year.To, filters)
		s, err := f.repo.Reader(f.sites[0], year, filters).Totals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := repotest.ExpectTotal(matching, filters)
		within("visitors", s.Visitors, want.Visitors, 0.1)
		within("visits", s.Visits, want.Visits, 0.1)
		within("pageviews", s.Pageviews, want.Pageviews, 0.1)
		within("bounces", s.Bounces, want.Bounces, 0.15)
		list, _, err := f.repo.Reader(f.sites[0], year, filters).List(ctx, repository.StatQuery{Name: stats.Page, Limit: 3, Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		pages := repotest.ExpectList(matching, stats.Page, filters)
		for _, e := range list {
			within("page "+e.Value, e.Count, pages[e.Value], 0.15)
		}
		if len(list) == 0 {
			t.Errorf("%v: no pages", filters)
		}
		series, err := f.repo.Reader(f.sites[0], year, filters).Series(ctx, stats.Month, stats.FixedZone(time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		var visitsSum int64
		for _, b := range series {
			visitsSum += b.Totals.Visits
		}
		within("visits of the months", visitsSum, want.Visits, 0.1)
	}
}

// A small website's filtered numbers over a year are exact: sampling is by the view's
// pageviews (past 10 M), never by the range's length, so a year of a few hundred visits a day
// is read whole, through v1's reads and the query API alike.
func TestSmallSiteFilteredYearIsExact(t *testing.T) {
	f := newFixture(t, "a.example")
	ctx := context.Background()
	year := stats.Range{From: date("2025-01-01"), To: date("2025-12-31")}
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(5, 5)), year.From, year.To, 100)
	repotest.WriteVisitRows(t, f.db, f.sites[0], visits)
	// The counters of such a website: well under 10 M pageviews a year.
	repotest.CountPageviews(t, f.repo, f.sites[0], year.From, 100_000)
	filters := stats.Filters{{Name: stats.Device, Value: "Desktop"}}
	reader := f.repo.Reader(f.sites[0], year, filters)
	if b, err := reader.Basis(ctx); err != nil || b.Fraction != 1 {
		t.Fatalf("basis %+v (%v), want every visitor", b, err)
	}
	matching := repotest.Filtered(visits, year.From, year.To, filters)
	want := repotest.ExpectTotal(matching, filters)
	got, err := reader.Totals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Visitors != want.Visitors || got.Visits != want.Visits || got.Pageviews != want.Pageviews || got.Bounces != want.Bounces {
		t.Errorf("totals %+v, want %+v", got, want)
	}
	if want.Visitors == 0 {
		t.Fatal("no desktop visitors: the test reads nothing")
	}
	pages := repotest.ExpectList(matching, stats.Page, filters)
	list, _, err := reader.List(ctx, repository.StatQuery{Name: stats.Page, Limit: 1000, Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.Count != pages[e.Value] {
			t.Errorf("page %s: %d, want %d", e.Value, e.Count, pages[e.Value])
		}
	}
	answer := f.runQuery(t, f.sites[0], `{"site_id": "a.example", "metrics": ["visitors", "pageviews"],
		"date_range": ["2025-01-01", "2025-12-31"], "filters": [["is", "visit:device", ["Desktop"]]]}`,
		queryapi.Env{Now: date("2026-01-10"), Location: time.UTC})
	if answer.Basis.Fraction != 1 || len(answer.Rows) != 1 {
		t.Fatalf("query API: %+v, want one exact row", answer)
	}
	if v := answer.Rows[0].Metrics; v[0] != float64(want.Visitors) || v[1] != float64(want.Pageviews) {
		t.Errorf("query API: %v, want visitors %d, pageviews %d", v, want.Visitors, want.Pageviews)
	}
}
