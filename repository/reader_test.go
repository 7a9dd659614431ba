package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// The one choice of a store: without filters every read of a Reader answers the counters',
// with filters the matching visit rows'. The website's counters here count other visits than
// its rows hold, so each number tells which store answered.
func TestReaderChoosesTheStore(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	site, first := f.sites[0], f.days.From
	counted := []repository.StatCount{
		{WebsiteID: site, Name: string(stats.Page), Date: first, Value: "/counted-only", Count: 7},
		{WebsiteID: site, Name: string(stats.Pageview), Date: first, Value: stats.DayValue(first), Count: 7},
		{WebsiteID: site, Name: string(stats.Visit), Date: first, Value: stats.DayValue(first), Count: 3},
		{WebsiteID: site, Name: string(stats.Event), Date: first, Value: "Counted:only:", Count: 2},
	}
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: counted}, 0); err != nil {
		t.Fatal(err)
	}
	desktop := stats.Filters{{Name: stats.Device, Value: "Desktop"}}
	matching := repotest.Filtered(f.visits, f.days.From, f.days.To, desktop)
	want := repotest.ExpectTotal(matching, desktop)
	if want.Pageviews == 0 {
		t.Fatal("no desktop visit to read")
	}
	page := repository.StatQuery{Name: stats.Page, SortBy: "count", Desc: true}

	counters := f.repo.Reader(site, f.days, nil)
	list, total, err := counters.List(ctx, page)
	if err != nil || total != 1 || list[0] != (repository.StatEntry{Value: "/counted-only", Count: 7}) {
		t.Errorf("counters' list: %v (%d, %v), want /counted-only=7", list, total, err)
	}
	top, err := counters.Top(ctx, []stats.Name{stats.Page}, 10)
	if err != nil || top[stats.Page].Distinct != 1 {
		t.Errorf("counters' top pages: %v (%v), want /counted-only", top, err)
	}
	groups, _, err := counters.Events(ctx, 10, 5)
	if err != nil || len(groups) != 1 || groups[0].Name != "Counted" || groups[0].Total != 2 {
		t.Errorf("counters' events: %+v (%v), want Counted=2", groups, err)
	}
	totals, err := counters.Totals(ctx)
	if err != nil || totals.Pageviews != 7 || totals.Visits != 3 {
		t.Errorf("counters' totals: %+v (%v), want 7 pageviews, 3 visits", totals, err)
	}
	series, err := counters.Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
	if err != nil || series[0].Totals.Pageviews != 7 || series[1].Totals.Pageviews != 0 || series[0].Totals.Events != 0 {
		t.Errorf("counters' series: %+v (%v), want 7 pageviews on the first day only, no events", series, err)
	}
	// EventsReader's series sum the event counter's values of each day, as Totals does.
	for _, interval := range []stats.Interval{stats.Daily, stats.Week, stats.Month} {
		series, err = f.repo.EventsReader(site, f.days, nil).Series(ctx, interval, stats.FixedZone(time.UTC))
		if err != nil || series[0].Totals.Events != 2 || series[0].Totals.Pageviews != 7 {
			t.Errorf("counters' series of events by %s: %+v (%v), want 2 events and 7 pageviews first", interval, series[0], err)
		}
	}
	if b, err := counters.Basis(ctx); err != nil || b != (repository.Basis{Fraction: 1}) {
		t.Errorf("counters' basis: %+v (%v), want every visitor of every day", b, err)
	}

	rows := f.repo.Reader(site, f.days, desktop)
	list, total, err = rows.List(ctx, page)
	wantPages := sortedEntries(repotest.ExpectList(matching, stats.Page, desktop))
	if err != nil || int(total) != len(wantPages) || list[0] != wantPages[0] {
		t.Errorf("rows' list: %v (%d, %v), want %v", list, total, err, wantPages)
	}
	top, err = rows.Top(ctx, []stats.Name{stats.Page}, 0)
	if err != nil || int(top[stats.Page].Distinct) != len(wantPages) {
		t.Errorf("rows' top pages: %v (%v), want %v", top, err, wantPages)
	}
	groups, _, err = rows.Events(ctx, 10, 5)
	for _, g := range groups {
		if g.Name == "Counted" {
			t.Errorf("rows' events hold the counters' %+v", g)
		}
	}
	if err != nil || len(groups) == 0 {
		t.Errorf("rows' events: %+v (%v), want the desktop visits' events", groups, err)
	}
	totals, err = rows.Totals(ctx)
	if err != nil || totals.Pageviews != want.Pageviews || totals.Visits != want.Visits {
		t.Errorf("rows' totals: %+v (%v), want %+v", totals, err, want)
	}
	series, err = rows.Series(ctx, stats.Daily, stats.FixedZone(time.UTC))
	var pageviews int64
	for _, b := range series {
		pageviews += b.Totals.Pageviews
	}
	if err != nil || pageviews != want.Pageviews {
		t.Errorf("rows' series: %d pageviews (%v), want %d", pageviews, err, want.Pageviews)
	}
	from, err := f.repo.FilteredFrom(ctx, site, f.days)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := rows.Basis(ctx); err != nil || b != (repository.Basis{Fraction: 1, From: from}) {
		t.Errorf("rows' basis: %+v (%v), want all visitors from %v", b, err, from)
	}
	year := stats.Range{From: f.days.To.AddDate(-1, 0, 1), To: f.days.To}
	// A small website's year is exact: the sample is chosen by the view's pageviews.
	if b, err := f.repo.Reader(site, year, desktop).Basis(ctx); err != nil || b.Fraction != 1 {
		t.Errorf("rows' basis of a small website's year: %+v (%v), want every visitor", b, err)
	}
	if b, err := f.repo.Reader(site, year, nil).Basis(ctx); err != nil || b.Fraction != 1 {
		t.Errorf("counters' basis of a year: %+v (%v), want every visitor", b, err)
	}
}
