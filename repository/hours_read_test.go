package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// A range narrowed to hours (the last 24 hours) is read from the visit rows of those hours
// only, with or without filters: its totals, its top pages and its series by the hour, whose
// buckets are its hours.
func TestReaderOfHours(t *testing.T) {
	f := newFilterFixture(t)
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	rng := stats.Range{From: f.days.To.AddDate(0, 0, -1), To: f.days.To, Hours: stats.Hours{Set: true, From: 15, To: 10}}
	var in []repotest.Visit
	for _, v := range f.visits {
		if (v.Day.Equal(rng.From) && v.Hour >= 15) || (v.Day.Equal(rng.To) && v.Hour <= 10) {
			in = append(in, v)
		}
	}
	mobile := stats.Filters{{Name: stats.Device, Value: "Mobile"}}
	for _, filters := range []stats.Filters{nil, mobile} {
		matching := repotest.Filtered(in, rng.From, rng.To, filters)
		want := repotest.ExpectTotal(matching, filters)
		if want.Visits == 0 {
			t.Fatalf("%v: no visit in the hours", filters)
		}
		reader := f.repo.Reader(f.sites[0], rng, filters)
		got, err := reader.Totals(ctx)
		if err != nil || got != want {
			t.Errorf("%v: totals %+v (%v), want %+v", filters, got, err, want)
		}
		series, err := reader.Series(ctx, stats.Hour, stats.FixedZone(berlin))
		if err != nil || len(series) != 9+11 {
			t.Fatalf("%v: %d hours (%v), want 20", filters, len(series), err)
		}
		var sum int64
		for _, b := range series {
			sum += b.Totals.Visits
		}
		if first := series[0].Start.In(berlin); first.Hour() != 15 || sum != want.Visits {
			t.Errorf("%v: the series starts at %s and sums %d visits, want 15:00 and %d", filters, first, sum, want.Visits)
		}
		top, err := reader.Top(ctx, []stats.Name{stats.Page}, 0)
		if err != nil {
			t.Fatal(err)
		}
		pages := map[string]bool{}
		for _, v := range matching {
			for _, p := range v.Pages {
				pages[p] = true
			}
		}
		if int(top[stats.Page].Distinct) != len(pages) {
			t.Errorf("%v: %d pages, want %d", filters, top[stats.Page].Distinct, len(pages))
		}
	}
}
