package repository_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A batch retried after an unknown outcome must not count twice; counts of a website that no
// longer exists are dropped rather than failing the batch.
func TestBatchWrittenOnce(t *testing.T) {
	f := newFixture(t, "example.com")
	db, repo, site := f.db, f.repo, f.sites[0]
	ctx := context.Background()
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	batch := []repository.StatCount{
		{WebsiteID: site, Name: "page", Date: day, Value: "/", Count: 2},
		{WebsiteID: site, Name: "page", Date: day, Value: "/", Count: 3},
		{WebsiteID: site + 1000, Name: "page", Date: day, Value: "/", Count: 9}, // no such website
	}
	id := uuid.NewString()
	for attempt, wantApplied := range []bool{true, false, false} {
		added, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Counts: batch}, 0)
		applied := added.Applied
		if err != nil || applied != wantApplied {
			t.Fatalf("attempt %d: applied %v, err %v; want %v", attempt, applied, err, wantApplied)
		}
	}
	var daily, weekly, monthly, orphans int64
	db.Get(&daily, `SELECT sum(count) FROM stats WHERE website_id = $1`, site)
	db.Get(&weekly, `SELECT sum(count) FROM stats_weekly WHERE website_id = $1 AND week = '2026-06-01'`, site)
	db.Get(&monthly, `SELECT sum(count) FROM stats_monthly WHERE website_id = $1`, site)
	db.Get(&orphans, `SELECT count(*) FROM stats WHERE website_id <> $1`, site)
	if daily != 5 || weekly != 5 || monthly != 5 || orphans != 0 {
		t.Fatalf("daily %d, weekly %d, monthly %d, orphan rows %d; want 5, 5, 5, 0", daily, weekly, monthly, orphans)
	}
	if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
		t.Fatal(err)
	}
	db.Get(&daily, `SELECT sum(count) FROM stats WHERE website_id = $1`, site)
	if daily != 10 {
		t.Fatalf("a new batch added %d, want 10 in all", daily)
	}
	if err := repo.ForgetBatches(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// SumStats reads whole months from the rollup and the edges from the daily table; its sums must
// equal plain sums of the daily counters over any range, for each name asked and no other.
func TestSumStatsMatchesDailySums(t *testing.T) {
	f := newFixture(t, "example.com")
	repo, site := f.repo, f.sites[0]
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2027, 11, 20, 0, 0, 0, 0, time.UTC)
	var counts []repository.StatCount
	for d := 0; d < 130; d++ {
		date := start.AddDate(0, 0, d)
		for _, name := range []string{"pageview", "visitor", "page"} {
			if rng.IntN(4) == 0 {
				continue
			}
			counts = append(counts, repository.StatCount{WebsiteID: site, Name: name, Date: date,
				Value: date.Format(time.DateOnly), Count: int64(rng.IntN(90) + 1)})
		}
	}
	if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		from := start.AddDate(0, 0, rng.IntN(140)-5)
		to := from.AddDate(0, 0, rng.IntN(100))
		want := map[string]int64{"pageview": 0, "visitor": 0}
		for _, c := range counts {
			if _, asked := want[c.Name]; asked && !c.Date.Before(from) && !c.Date.After(to) {
				want[c.Name] += c.Count
			}
		}
		got, err := repo.SumStats(ctx, site, []stats.Name{stats.Pageview, stats.Visitor}, stats.Range{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got["pageview"] != want["pageview"] || got["visitor"] != want["visitor"] {
			t.Fatalf("%s..%s: got %v, want %v", from.Format(time.DateOnly), to.Format(time.DateOnly), got, want)
		}
	}
}

// The first day with data is the earliest pageview or event, whichever comes first; other
// statistics do not count (they come with a pageview).
func TestFirstStatDay(t *testing.T) {
	f := newFixture(t, "example.com")
	repo, site := f.repo, f.sites[0]
	ctx := context.Background()
	if _, err := repo.FirstStatDay(ctx, site); !errors.Is(err, repository.ErrNotFound) {
		t.Fatalf("no data: %v", err)
	}
	add := func(name, day string) {
		if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
			{WebsiteID: site, Name: name, Date: date(day), Value: "x", Count: 1}}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	add("page", "2026-01-01")
	add("pageview", "2026-03-05")
	add("event", "2026-03-02")
	add("pageview", "2026-02-10")
	got, err := repo.FirstStatDay(ctx, site)
	if err != nil || !got.Equal(date("2026-02-10")) {
		t.Fatalf("first day %v (%v), want 2026-02-10", got, err)
	}
	add("event", "2026-02-01")
	if got, _ := repo.FirstStatDay(ctx, site); !got.Equal(date("2026-02-01")) {
		t.Fatalf("first day %v, want the earlier event's 2026-02-01", got)
	}
}

// counters.Split must cover every day of a range exactly once, whatever its length and edges, with
// weeks from a Monday and months from a 1st, and read a rollup only for periods rolled up.
func TestSplitRangeCoversEachDayOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	start := time.Date(2027, 12, 20, 0, 0, 0, 0, time.UTC)
	monday := time.Date(2027, 12, 6, 0, 0, 0, 0, time.UTC)
	rollups := map[string]int{}
	for i := 0; i < 5000; i++ {
		from := start.AddDate(0, 0, rng.IntN(120))
		to := from.AddDate(0, 0, rng.IntN(500))
		// Rolled up through some week and month around the range (or long before it).
		weeks := monday.AddDate(0, 0, 7*rng.IntN(100))
		months := time.Date(2027, 12+time.Month(rng.IntN(25)), 1, 0, 0, 0, 0, time.UTC)
		if rng.IntN(4) == 0 {
			weeks, months = time.Time{}, time.Time{}
		}
		seen := map[time.Time]int{}
		for _, seg := range repository.SplitRange(from, to, weeks, months) {
			step := map[string]func(time.Time) time.Time{
				"stats":         func(d time.Time) time.Time { return d.AddDate(0, 0, 1) },
				"stats_weekly":  func(d time.Time) time.Time { return d.AddDate(0, 0, 7) },
				"stats_monthly": func(d time.Time) time.Time { return d.AddDate(0, 1, 0) },
			}[seg.Table]
			if seg.From.After(seg.To) {
				t.Fatalf("%v..%v: empty segment %+v", from, to, seg)
			}
			rollups[seg.Table]++
			if seg.Table == "stats_weekly" && seg.To.After(weeks) || seg.Table == "stats_monthly" && seg.To.After(months) {
				t.Fatalf("%v..%v rolled up through %v and %v: %+v reads a period not rolled up", from, to, weeks, months, seg)
			}
			for unit := seg.From; !unit.After(seg.To); unit = step(unit) {
				if seg.Table == "stats_weekly" && unit.Weekday() != time.Monday ||
					seg.Table == "stats_monthly" && unit.Day() != 1 {
					t.Fatalf("%v..%v: %s unit starts %v", from, to, seg.Table, unit)
				}
				for d := unit; d.Before(step(unit)); d = d.AddDate(0, 0, 1) {
					seen[d]++
				}
			}
		}
		days := int(to.Sub(from).Hours()/24) + 1
		if len(seen) != days {
			t.Fatalf("%v..%v: %d days covered, want %d", from, to, len(seen), days)
		}
		for d, n := range seen {
			if n != 1 || d.Before(from) || d.After(to) {
				t.Fatalf("%v..%v: day %v covered %d times", from, to, d, n)
			}
		}
	}
	if rollups["stats_weekly"] < 1000 || rollups["stats_monthly"] < 1000 {
		t.Fatalf("segments read %v: too few rollups for the test to mean much", rollups)
	}
}

// The flush adds to the same daily rows again and again; those updates must stay on their heap
// page (HOT) rather than move the row and add an index entry each time (see
// 0008_stats_fillfactor).
func TestRepeatedFlushesUpdateInPlace(t *testing.T) {
	f := newFixture(t, "example.com")
	db, repo, site := f.db, f.repo, f.sites[0]
	ctx := context.Background()
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]repository.StatCount, 2000) // about 25 pages of rows
	for i := range batch {
		batch[i] = repository.StatCount{WebsiteID: site, Name: "page", Date: day, Value: fmt.Sprintf("/page/%05d", i), Count: 1}
	}
	const flushes = 10
	for range flushes {
		if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var updates, hot int64
	if err := db.QueryRowContext(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'stats'`).Scan(&updates, &hot); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(batch) * (flushes - 1)); updates != want {
		t.Fatalf("%d updates, want %d", updates, want)
	}
	// About 93% alone, 75% under the whole suite's load and once 37% with other suites running
	// beside it (a concurrent snapshot, such as autovacuum's ANALYZE, keeps a page from being
	// pruned); 7% on full pages. A quarter tells the two apart without failing on a busy machine.
	if hot*4 < updates {
		t.Errorf("%d of %d updates were HOT, want at least a quarter", hot, updates)
	}
}
