package repository_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

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

// A rollup declared in the test (a yearly one, with its table and rollup_state column) is
// written by the stats writer from that declaration alone: the days of the years rolled up are
// added to it, later ones are not, and a negative count that brings a row to 0 deletes it.
func TestNewRollupIsOneDeclaration(t *testing.T) {
	f := newFixture(t, "a.example.com")
	for _, ddl := range []string{
		`CREATE TABLE stats_yearly (website_id bigint NOT NULL, name text NOT NULL, year date NOT NULL,
			value text COLLATE "C" NOT NULL, count bigint NOT NULL CHECK (count > 0),
			PRIMARY KEY (website_id, name, year, value))`,
		`ALTER TABLE rollup_state ADD COLUMN years_through date NOT NULL DEFAULT '2025-01-01'`,
	} {
		if _, err := f.db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
	}
	repository.AddRollup(t, "stats_yearly", "year", "date_trunc('year', date)::date", "years_through", 12)
	site, ctx := f.sites[0], context.Background()
	write := func(counts ...repository.StatCount) {
		t.Helper()
		if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
			t.Fatal(err)
		}
	}
	page := func(day, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: site, Name: string(stats.Page), Date: date(day), Value: value, Count: n}
	}
	write(page("2025-03-04", "/a", 2), page("2025-07-01", "/a", 3), page("2025-07-01", "/b", 1), page("2026-01-05", "/a", 7))
	write(page("2025-07-01", "/b", -1))
	type row struct {
		Year  string `db:"year"`
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	var rows []row
	if err := f.db.Select(&rows, `SELECT to_char(year, 'YYYY-MM-DD') AS year, value, count FROM stats_yearly
		WHERE website_id = $1 ORDER BY year, value`, site); err != nil {
		t.Fatal(err)
	}
	if want := []row{{"2025-01-01", "/a", 5}}; !slices.Equal(rows, want) {
		t.Fatalf("stats_yearly %v; want %v", rows, want)
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
