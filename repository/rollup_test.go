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

// rollupsDisagree counts the rollup rows of rolled-up periods that differ from the sums of
// their daily rows (missing, extra or another count): the invariant of 0009_rollup_watermark.
func rollupsDisagree(t *testing.T, db *sqlx.DB) int {
	t.Helper()
	var n int
	err := db.Get(&n, `
		WITH daily_weeks AS (
			SELECT website_id, name, date_trunc('week', date)::date AS period, value, sum(count) AS count
			FROM stats, rollup_state WHERE date_trunc('week', date)::date <= weeks_through
			GROUP BY 1, 2, 3, 4
		), weeks AS (
			SELECT website_id, name, week AS period, value, count
			FROM stats_weekly, rollup_state WHERE week <= weeks_through
		), daily_months AS (
			SELECT website_id, name, date_trunc('month', date)::date AS period, value, sum(count) AS count
			FROM stats, rollup_state WHERE date_trunc('month', date)::date <= months_through
			GROUP BY 1, 2, 3, 4
		), months AS (
			SELECT website_id, name, month AS period, value, count
			FROM stats_monthly, rollup_state WHERE month <= months_through
		)
		SELECT (SELECT count(*) FROM daily_weeks d FULL JOIN weeks w USING (website_id, name, period, value)
			WHERE d.count IS DISTINCT FROM w.count)
		     + (SELECT count(*) FROM daily_months d FULL JOIN months m USING (website_id, name, period, value)
			WHERE d.count IS DISTINCT FROM m.count)`)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func rolledThrough(t *testing.T, db *sqlx.DB) (weeks, months string) {
	t.Helper()
	var row struct {
		Weeks  time.Time `db:"weeks_through"`
		Months time.Time `db:"months_through"`
	}
	if err := db.Get(&row, `SELECT weeks_through, months_through FROM rollup_state`); err != nil {
		t.Fatal(err)
	}
	return row.Weeks.Format(time.DateOnly), row.Months.Format(time.DateOnly)
}

// rolledUpThroughJune makes the database one rolled up through June 2026 (its last week
// starting on the 22nd), as a database running since then would be.
func rolledUpThroughJune(t *testing.T, db *sqlx.DB) {
	t.Helper()
	if _, err := db.Exec(`UPDATE rollup_state SET weeks_through = '2026-06-22', months_through = '2026-06-01'`); err != nil {
		t.Fatal(err)
	}
}

// A database rolled up through June 2026: flushes of later days write daily rows only; RollUp
// writes the rollups of the periods ended since, replacing whatever they held; a late flush of
// a rolled-up period adds to its rollups; reads give the daily sums throughout.
func TestRollUp(t *testing.T) {
	f := newFixture(t, "example.com")
	db, repo, site := f.db, f.repo, f.sites[0]
	ctx := context.Background()
	rolledUpThroughJune(t, db)
	var total int64
	add := func(day string, n int64) {
		t.Helper()
		_, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
			{WebsiteID: site, Name: "page", Date: date(day), Value: "/", Count: n},
			{WebsiteID: site, Name: "page", Date: date(day), Value: "/" + day, Count: 1},
		}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		total += n + 1
	}
	rollupRows := func(table, column, period string) int {
		t.Helper()
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM `+table+` WHERE `+column+` = $1`, period); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sumOver := func(from, to string) int64 {
		t.Helper()
		sums, err := repo.SumStats(ctx, site, []stats.Name{stats.Page}, stats.Range{From: date(from), To: date(to)})
		if err != nil {
			t.Fatal(err)
		}
		return sums["page"]
	}
	for _, day := range []string{"2026-06-10", "2026-06-28", "2026-06-29", "2026-07-15", "2026-08-03", "2026-08-18"} {
		add(day, 10)
	}
	if rollupRows("stats_weekly", "week", "2026-06-22") != 2 || rollupRows("stats_monthly", "month", "2026-06-01") != 4 {
		t.Fatal("a flush of a rolled-up period did not add to its rollups")
	}
	if n := rollupRows("stats_weekly", "week", "2026-06-29") + rollupRows("stats_monthly", "month", "2026-07-01"); n != 0 {
		t.Fatalf("a flush of a period not rolled up wrote %d rollup rows", n)
	}
	// What a flush of an older version left: a partial sum, and a value no day has.
	if _, err := db.Exec(`INSERT INTO stats_weekly VALUES ($1, 'page', '2026-07-13', '/', 3), ($1, 'page', '2026-07-13', '/gone', 1)`, site); err != nil {
		t.Fatal(err)
	}
	if got := sumOver("2026-06-01", "2026-08-31"); got != total {
		t.Fatalf("before the roll-up, June to August sums to %d, want %d", got, total)
	}

	// Wednesday 2026-08-19: weeks through the one of Monday 2026-08-10, months through July.
	if err := repo.RollUp(ctx, date("2026-08-19")); err != nil {
		t.Fatal(err)
	}
	if weeks, months := rolledThrough(t, db); weeks != "2026-08-10" || months != "2026-07-01" {
		t.Fatalf("rolled up through %s and %s, want 2026-08-10 and 2026-07-01", weeks, months)
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("after the roll-up, %d rollup rows differ from their days", n)
	}
	if n := rollupRows("stats_weekly", "week", "2026-08-17") + rollupRows("stats_monthly", "month", "2026-08-01"); n != 0 {
		t.Fatalf("the current week and month got %d rollup rows", n)
	}
	add("2026-07-15", 5) // late: July is rolled up now
	add("2026-08-19", 7) // today: not rolled up
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("after late flushes, %d rollup rows differ from their days", n)
	}
	for _, r := range [][2]string{{"2026-06-01", "2026-08-31"}, {"2026-07-01", "2026-07-31"}, {"2026-06-29", "2026-08-23"}} {
		var want int64
		if err := db.Get(&want, `SELECT sum(count) FROM stats WHERE website_id = $1 AND date BETWEEN $2 AND $3`, site, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
		// A new repository: no cached rollup dates, so the reads use the rollups just written.
		sums, err := repository.New(db, nil).SumStats(ctx, site, []stats.Name{stats.Page}, stats.Range{From: date(r[0]), To: date(r[1])})
		if err != nil || sums["page"] != want {
			t.Fatalf("%s..%s sums to %d (%v), want the days' %d", r[0], r[1], sums["page"], err, want)
		}
	}

	// Again, from another node that does not know: nothing changes.
	if err := repository.New(db, nil).RollUp(ctx, date("2026-08-20")); err != nil {
		t.Fatal(err)
	}
	if weeks, months := rolledThrough(t, db); weeks != "2026-08-10" || months != "2026-07-01" {
		t.Fatalf("a second roll-up moved the dates to %s and %s", weeks, months)
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("after a second roll-up, %d rollup rows differ from their days", n)
	}
}

// Flushes of days around period ends while the days pass and nodes roll up: whatever the
// interleaving, every rolled-up period's rollups equal its days and nothing is counted twice.
func TestRollUpRacingFlushes(t *testing.T) {
	f := newFixture(t, "a.example.com", "b.example.com", "c.example.com")
	db, sites := f.db, f.sites
	ctx := context.Background()
	rolledUpThroughJune(t, db)
	first := date("2026-06-25")
	const days = 60
	var today sync.Map // the day each writer has reached
	var wg sync.WaitGroup
	var mu sync.Mutex
	var written int64
	for writer := range 3 {
		today.Store(writer, first)
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := repository.New(db, nil)
			rng := rand.New(rand.NewPCG(uint64(writer), 9))
			for d := range days {
				day := first.AddDate(0, 0, d)
				today.Store(writer, day)
				// A batch of today's counters and a few late ones of the days before.
				var batch []repository.StatCount
				var n int64
				for range 40 {
					when := day.AddDate(0, 0, -rng.IntN(3))
					c := repository.StatCount{WebsiteID: sites[rng.IntN(len(sites))], Name: "page", Date: when,
						Value: fmt.Sprintf("/%d", rng.IntN(5)), Count: 1 + rng.Int64N(3)}
					batch = append(batch, c)
					n += c.Count
				}
				if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written += n
				mu.Unlock()
			}
		}()
	}
	writers := make(chan struct{})
	go func() { wg.Wait(); close(writers) }()
	var nodes sync.WaitGroup
	for node := range 2 {
		nodes.Add(1)
		go func() {
			defer nodes.Done()
			for {
				// A node that starts afresh each time, on the day the writers have reached.
				day := first.AddDate(0, 0, days)
				today.Range(func(_, v any) bool {
					day = minTime(day, v.(time.Time))
					return true
				})
				if err := repository.New(db, nil).RollUp(ctx, day); err != nil {
					t.Errorf("node %d, %v: %v", node, day, err)
					return
				}
				select {
				case <-writers:
					// The writers' last day, now that all have reached it.
					if err := repository.New(db, nil).RollUp(ctx, first.AddDate(0, 0, days-1)); err != nil {
						t.Errorf("node %d: %v", node, err)
					}
					return
				default:
				}
			}
		}()
	}
	nodes.Wait()
	if t.Failed() {
		return
	}
	if weeks, months := rolledThrough(t, db); weeks != "2026-08-10" || months != "2026-07-01" {
		t.Fatalf("rolled up through %s and %s, want 2026-08-10 and 2026-07-01", weeks, months)
	}
	var daily int64
	if err := db.Get(&daily, `SELECT sum(count) FROM stats`); err != nil {
		t.Fatal(err)
	}
	if daily != written {
		t.Fatalf("daily rows sum to %d, %d were written", daily, written)
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("%d rollup rows differ from their days", n)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
