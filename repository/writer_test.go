package repository_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Counters are written by one exported method, AddVisitBatch, which applies the batch's day
// membership: another method taking counts would be a way to count visitors past it.
func TestOneExportedStatsWriter(t *testing.T) {
	counts := reflect.TypeFor[[]repository.StatCount]()
	batch := reflect.TypeFor[repository.VisitBatch]()
	repo := reflect.TypeFor[*repository.Repository]()
	var writers []string
	for i := range repo.NumMethod() {
		m := repo.Method(i)
		for j := range m.Type.NumIn() {
			if in := m.Type.In(j); in == counts || in == batch {
				writers = append(writers, m.Name)
				break
			}
		}
	}
	if !slices.Equal(writers, []string{"AddVisitBatch"}) {
		t.Fatalf("methods of Repository taking counts: %v; want only AddVisitBatch", writers)
	}
}

// Imported history goes through the stats writer without the value cap: a day of the
// import keeps every one of its values, past DefaultMaxValuesPerDay, and none goes to (other).
func TestImportKeepsEveryValue(t *testing.T) {
	f := newFixture(t, "a.example.com")
	site, ctx, day := f.sites[0], context.Background(), date("2025-03-04")
	im, held, err := f.repo.BeginImport(ctx, site, repository.SourcePlausible, []time.Time{day})
	if err != nil || len(held) > 0 {
		t.Fatalf("held %v, err %v", held, err)
	}
	defer im.Rollback()
	n := repository.DefaultMaxValuesPerDay + 10
	counts := make([]repository.StatCount, n)
	for i := range counts {
		counts[i] = repository.StatCount{Name: string(stats.Page), Date: day, Value: fmt.Sprintf("/p%d", i), Count: 1}
	}
	if err := im.Add(ctx, counts); err != nil {
		t.Fatal(err)
	}
	if err := im.Commit(); err != nil {
		t.Fatal(err)
	}
	var values, other int
	if err := f.db.Get(&values, `SELECT count(*) FROM stats WHERE website_id = $1 AND name = 'page'`, site); err != nil {
		t.Fatal(err)
	}
	if err := f.db.Get(&other, `SELECT count(*) FROM stats WHERE website_id = $1 AND value = $2`, site, stats.Other); err != nil {
		t.Fatal(err)
	}
	if values != n || other != 0 {
		t.Fatalf("%d page values, %d (other) rows; want %d and 0", values, other, n)
	}
}
