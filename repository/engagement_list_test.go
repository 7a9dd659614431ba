package repository_test

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"reflect"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// PageListWithEngagement over the visit rows (one scan) answers what List and then Engagement
// answer (two scans), on random visits: filters of each kind, a page filter, a search, both
// orders, later pages and a page past the end.
func TestPageListWithEngagementIsListThenEngagement(t *testing.T) {
	f := newFixture(t, "engaged.test")
	ctx := context.Background()
	const day = "2026-03-04"
	if err := f.repo.EnsureVisitRowPartitions(ctx, date(day), date(day)); err != nil {
		t.Fatal(err)
	}
	r := mathrand.New(mathrand.NewPCG(30, 1))
	var rows []repository.VisitRow
	for id := int64(1); id <= 400; id++ {
		var pages []string
		var engaged []repository.EngagedPage
		for range 1 + r.IntN(4) {
			p := fmt.Sprintf("/p%d", r.IntN(40))
			pages = append(pages, p)
			if r.IntN(3) > 0 {
				e := repository.EngagedPage{Page: p, Millis: int32(r.IntN(60_000)), Depth: int8(r.IntN(101))}
				if r.IntN(4) == 0 {
					e.Millis = -1
				}
				if r.IntN(4) == 0 {
					e.Depth = -1
				}
				engaged = append(engaged, e)
			}
		}
		country := []string{"DE:Germany", "FR:France", "US:United States"}[r.IntN(3)]
		rows = append(rows, repository.VisitRow{WebsiteID: f.sites[0], Day: date(day), Visitor: int32(id % 150), ID: id, Hour: 10,
			Pageviews: len(pages), Values: stats.ValuesOf(map[stats.Name]string{stats.Country: country}), Pages: pages, Engaged: engaged})
	}
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000031", Rows: repository.VisitRowList(rows)}, 0); err != nil {
		t.Fatal(err)
	}
	rng := stats.Range{From: date(day), To: date(day)}
	for _, filters := range []stats.Filters{
		{{Name: stats.Country, Value: "DE"}},
		{{Name: stats.Page, Value: "/p3"}},
		{{Name: stats.Country, Op: stats.NoneOf, Values: []string{"FR"}}},
		{{Name: stats.Browser, Value: ""}}, // every row
	} {
		for _, q := range []repository.StatQuery{
			{Name: stats.Page, SortBy: "count", Desc: true, Limit: 10},
			{Name: stats.Page, SortBy: "count", Desc: true, Limit: 10, Offset: 10},
			{Name: stats.Page, SortBy: "value", Limit: 7, Offset: 3},
			{Name: stats.Page, SortBy: "count", Desc: false, Limit: 5, Search: "1"},
			{Name: stats.Page, SortBy: "count", Desc: true, Limit: 10, Offset: 1000},
		} {
			reader := f.repo.Reader(f.sites[0], rng, filters)
			entries, total, engaged, err := repository.PageListWithEngagement(ctx, reader, q)
			if err != nil {
				t.Fatal(err)
			}
			wantEntries, wantTotal, err := reader.List(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			pages := make([]string, len(wantEntries))
			for i, e := range wantEntries {
				pages[i] = e.Value
			}
			wantEngaged, err := reader.Engagement(ctx, pages)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 && len(wantEntries) == 0 {
				entries, wantEntries = nil, nil
			}
			if !reflect.DeepEqual(entries, wantEntries) || total != wantTotal {
				t.Errorf("%v %+v: list %v (%d), want %v (%d)", filters, q, entries, total, wantEntries, wantTotal)
			}
			for _, p := range pages {
				if got, want := engaged[p], wantEngaged[p]; !reflect.DeepEqual(got, want) {
					t.Errorf("%v %+v: engagement of %s %+v, want %+v", filters, q, p, got, want)
				}
			}
			if q.Offset == 0 && q.Search == "" && len(entries) == 0 {
				t.Errorf("%v %+v: no entries", filters, q)
			}
		}
	}
}
