package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// capped writes a batch with a limit of maxValues values a day.
func capped(t *testing.T, repo *repository.Repository, id string, maxValues int, counts ...repository.StatCount) repository.Added {
	t.Helper()
	added, err := repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: id, Counts: counts}, maxValues)
	if err != nil {
		t.Fatal(err)
	}
	return added
}

// dayValues is a website's statistic on a day as stored: value -> count.
func dayValues(t *testing.T, db *sqlx.DB, site int64, name, day string) map[string]int64 {
	t.Helper()
	var rows []struct {
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := db.Select(&rows, `SELECT value, count FROM stats WHERE website_id = $1 AND name = $2 AND date = $3`, site, name, day); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Value] = r.Count
	}
	return out
}

// valueCountsWrong counts the days whose stats_value_counts row differs from the values their
// daily rows hold, (other) not included (a missing row is 0).
func valueCountsWrong(t *testing.T, db *sqlx.DB) int {
	t.Helper()
	var n int
	err := db.Get(&n, `
		SELECT count(*)
		FROM (
			SELECT website_id, name, date, count(*) FILTER (WHERE value <> $1) AS n
			FROM stats GROUP BY 1, 2, 3
		) AS d
		FULL JOIN stats_value_counts c USING (website_id, name, date)
		WHERE coalesce(d.n, 0) <> coalesce(c.value_count, 0)`, stats.Other)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A day keeps at most the limit of values: new values past it are counted under (other), the
// most counted of a batch taking the room left; stored values keep counting under themselves;
// every count is added once, retried or not, in the days and in their rollups alike.
func TestValueCap(t *testing.T) {
	f := newFixture(t, "example.com")
	db, repo, site := f.db, f.repo, f.sites[0]
	rolledUpThroughJune(t, db) // June 10 is a late write: its week and month are rolled up
	const limit = 5
	page := func(day, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: site, Name: "page", Date: date(day), Value: value, Count: n}
	}
	campaign := func(day, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: site, Name: "campaign", Date: date(day), Value: value, Count: n}
	}
	for _, day := range []string{"2026-06-10", "2026-07-15"} {
		t.Run(day, func(t *testing.T) {
			var total int64
			write := func(id string, counts ...repository.StatCount) repository.Added {
				t.Helper()
				added := capped(t, repo, id, limit, counts...)
				if added.Applied {
					for _, c := range counts {
						total += c.Count
					}
				}
				return added
			}
			// Three values, and a campaign literally named "(other)": room for all.
			if a := write(uuid.NewString(), page(day, "/a", 1), page(day, "/b", 2), page(day, "/c", 3), campaign(day, stats.Other, 1)); !a.Applied || a.Overflow != 0 {
				t.Fatalf("first batch: %+v", a)
			}
			// Six new values for the two places left (the two most counted take them; a tie
			// goes to the first value), a stored one counted again, a key repeated.
			second := []repository.StatCount{page(day, "/b", 4), page(day, "/n1", 1), page(day, "/n2", 7),
				page(day, "/n3", 2), page(day, "/n4", 2), page(day, "/n5", 1), page(day, "/n6", 1), page(day, "/n5", 1)}
			id := uuid.NewString()
			if a := write(id, second...); !a.Applied || a.Overflow != 1+2+2+1 {
				t.Fatalf("second batch: %+v, want an overflow of 6 (/n1, /n4, /n5 twice, /n6)", a)
			}
			if a := write(id, second...); a.Applied || a.Overflow != 0 {
				t.Fatalf("the second batch retried: %+v, want nothing applied", a)
			}
			// Full: stored values go on counting, new ones go to (other), as does the
			// campaign "(other)", which never took a place.
			if a := write(uuid.NewString(), page(day, "/a", 10), page(day, "/n7", 3), page(day, stats.Other, 1),
				campaign(day, "spring", 2), campaign(day, stats.Other, 1)); a.Overflow != 3 {
				t.Fatalf("third batch: %+v, want an overflow of 3 (/n7)", a)
			}
			want := map[string]int64{"/a": 11, "/b": 6, "/c": 3, "/n2": 7, "/n3": 2, stats.Other: 6 + 3 + 1}
			if got := dayValues(t, db, site, "page", day); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("pages\n got  %v\n want %v", got, want)
			}
			if got := dayValues(t, db, site, "campaign", day); fmt.Sprint(got) != fmt.Sprint(map[string]int64{stats.Other: 2, "spring": 2}) {
				t.Fatalf("campaigns %v", got)
			}
			var stored int64
			if err := db.Get(&stored, `SELECT sum(count) FROM stats WHERE website_id = $1 AND date = $2`, site, day); err != nil || stored != total {
				t.Fatalf("the day sums to %d (%v), %d were added", stored, err, total)
			}
		})
	}
	if n := valueCountsWrong(t, db); n != 0 {
		t.Fatalf("%d days' value counts differ from their rows", n)
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("%d rollup rows differ from their days", n)
	}
	var june int64
	if err := db.Get(&june, `SELECT count FROM stats_monthly WHERE website_id = $1 AND name = 'page' AND month = '2026-06-01' AND value = $2`, site, stats.Other); err != nil || june != 10 {
		t.Fatalf("June's rollup counts %d under (other) (%v), want 10", june, err)
	}
}

// Writers flushing at once each see the count of values as it was before the others commit,
// so together they may pass the limit by their new values, but no more; nothing is counted
// twice or lost, and the count of values stays exact. A third transaction holds the day's
// pageview row, which both batches write after their pages, so that the second writer reads
// the count while the first is inside its transaction.
func TestValueCapRacingWriters(t *testing.T) {
	r := newRace(t)
	const limit = 5
	day := date("2026-06-01")
	row := func(name, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: r.a, Name: name, Date: day, Value: value, Count: n}
	}
	capped(t, r.repo, uuid.NewString(), limit, row("page", "/1", 1), row("page", "/2", 1), row("page", "/3", 1),
		row("pageview", "2026-06-01", 3))
	blocker, err := r.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blocker.Exec(`SELECT 1 FROM stats WHERE website_id = $1 AND name = 'pageview' FOR UPDATE`, r.a); err != nil {
		t.Fatal(err)
	}
	type result struct {
		added repository.Added
		err   error
	}
	flush := func(counts ...repository.StatCount) <-chan result {
		out := make(chan result, 1)
		go func() {
			added, err := r.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, limit)
			out <- result{added, err}
		}()
		return out
	}
	first := flush(row("page", "/a1", 1), row("page", "/a2", 1), row("page", "/a3", 1), row("pageview", "2026-06-01", 3))
	r.waitForLockWaits(1)
	second := flush(row("page", "/b1", 1), row("page", "/b2", 1), row("page", "/b3", 1), row("pageview", "2026-06-01", 3))
	r.waitForLockWaits(2)
	mustRollback(t, blocker)
	a, b := <-first, <-second
	if a.err != nil || b.err != nil || a.added.Overflow != 1 || b.added.Overflow != 1 {
		t.Fatalf("first %+v, second %+v; want both applied with an overflow of 1", a, b)
	}
	got := dayValues(t, r.db, r.a, "page", "2026-06-01")
	if len(got) != limit+2+1 || got[stats.Other] != 2 {
		t.Fatalf("pages %v: want the limit passed by 2, and 2 under (other)", got)
	}
	// The count saw both: the next new value goes to (other).
	if added := capped(t, r.repo, uuid.NewString(), limit, row("page", "/c", 4)); added.Overflow != 4 {
		t.Fatalf("after the race, a new value: %+v, want it under (other)", added)
	}
	var pages, pageviews int64
	r.db.Get(&pages, `SELECT sum(count) FROM stats WHERE name = 'page'`)
	r.db.Get(&pageviews, `SELECT sum(count) FROM stats WHERE name = 'pageview'`)
	if pages != 9+4 || pageviews != 9 {
		t.Fatalf("pages sum to %d, pageviews to %d; want 13 and 9", pages, pageviews)
	}
	if n := valueCountsWrong(t, r.db); n != 0 {
		t.Fatalf("%d days' value counts differ from their rows", n)
	}
}

// Many writers at once, with late writes to rolled-up periods and new values past the limit:
// every count is added once, the rollups equal their days, the count of values of each day is
// exact (which also checks that the flush tells the rows it inserted from those it updated),
// and no day passes the limit by more than the new values of the other writers' batches.
func TestValueCapConcurrently(t *testing.T) {
	f := newFixture(t, "a.example.com", "b.example.com")
	db := f.db
	rolledUpThroughJune(t, db)
	const (
		limit   = 20
		writers = 4
		batches = 25
		rows    = 30 // a batch's rows: the most new values it can bring to a day
	)
	days := []time.Time{date("2026-06-30"), date("2026-07-01")}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var written int64
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := repository.New(db, nil)
			rng := rand.New(rand.NewPCG(uint64(w), 15))
			for range batches {
				var batch []repository.StatCount
				var n int64
				for range rows {
					c := repository.StatCount{WebsiteID: f.sites[rng.IntN(2)], Name: []string{"page", "event"}[rng.IntN(2)],
						Date: days[rng.IntN(2)], Value: fmt.Sprintf("/%d", rng.IntN(60)), Count: 1 + rng.Int64N(3)}
					batch = append(batch, c)
					n += c.Count
				}
				if _, err := repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, limit); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written += n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var daily int64
	if err := db.Get(&daily, `SELECT sum(count) FROM stats`); err != nil || daily != written {
		t.Fatalf("daily rows sum to %d (%v), %d were written", daily, err, written)
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("%d rollup rows differ from their days", n)
	}
	if n := valueCountsWrong(t, db); n != 0 {
		t.Fatalf("%d days' value counts differ from their rows", n)
	}
	var most, others int
	if err := db.Get(&most, `SELECT max(n) FROM (SELECT count(*) AS n FROM stats WHERE value <> $1 GROUP BY website_id, name, date) AS d`, stats.Other); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&others, `SELECT count(*) FROM stats WHERE value = $1`, stats.Other); err != nil {
		t.Fatal(err)
	}
	if most < limit || most > limit+(writers-1)*rows || others == 0 {
		t.Fatalf("a day holds up to %d values, %d days have (other); want the limit of %d reached, passed by a few at most", most, others, limit)
	}
	t.Logf("the most values a day: %d (limit %d)", most, limit)
}

// Migration 0011 counts the values every day already holds, (other) aside.
func TestMigrationCountsValues(t *testing.T) {
	f := newFixture(t, "example.com")
	db, repo, site := f.db, f.repo, f.sites[0]
	var counts []repository.StatCount
	for i, name := range []string{"page", "referrer", "campaign"} {
		for v := range 3 + i {
			counts = append(counts, repository.StatCount{WebsiteID: site, Name: name, Date: date("2026-06-01"), Value: fmt.Sprint(v), Count: 1})
		}
	}
	counts = append(counts, repository.StatCount{WebsiteID: site, Name: "campaign", Date: date("2026-06-02"), Value: stats.Other, Count: 1})
	capped(t, repo, uuid.NewString(), 100, counts...)
	for _, q := range []string{
		`DROP TABLE stats_value_counts`,
		`DELETE FROM schema_migrations WHERE version = '0011_stats_value_counts'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := repository.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	var rows int
	db.Get(&rows, `SELECT count(*) FROM stats_value_counts`)
	if n := valueCountsWrong(t, db); n != 0 || rows != 4 {
		t.Fatalf("after the migration, %d of %d days' value counts differ from their rows", n, rows)
	}
}
