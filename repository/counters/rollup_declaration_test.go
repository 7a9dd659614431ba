package counters_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

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
	site, ctx := f.sites[0], context.Background()
	write := func(counts ...repository.StatCount) {
		t.Helper()
		tx, err := f.db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := counters.AddStatsWithRollup(ctx, tx, counts, "stats_yearly", "year", "date_trunc('year', date)::date", "years_through", 12); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
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

// fixture is a fresh database with a user and its websites.
type fixture struct {
	db    *sqlx.DB
	repo  *repository.Repository
	sites []int64
}

func newFixture(t testing.TB, domains ...string) fixture {
	t.Helper()
	db, _ := repotest.New(t)
	f := fixture{db: db, repo: repository.New(db, nil)}
	ctx := context.Background()
	u, err := f.repo.CreateUser(ctx, "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range domains {
		w, err := f.repo.CreateWebsite(ctx, u.ID, repository.NewWebsite{Domain: d, ExcludeBots: 1})
		if err != nil {
			t.Fatal(err)
		}
		f.sites = append(f.sites, w.ID)
	}
	return f
}

// date is a calendar day written YYYY-MM-DD.
func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}
