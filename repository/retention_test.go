package repository_test

import (
	"context"
	mathrand "math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// rowsOf counts a website's rows of a table, of the days from..to of its day column when
// given.
func rowsOf(t *testing.T, db *sqlx.DB, table, dayColumn string, site int64, from, to string) int {
	t.Helper()
	query := `SELECT count(*) FROM ` + table + ` WHERE website_id = $1`
	args := []any{site}
	if from != "" {
		query += ` AND ` + dayColumn + ` BETWEEN $2 AND $3`
		args = append(args, from, to)
	}
	var n int
	if err := db.Get(&n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// A range's deletion empties every table of the website's data for those days, in one
// transaction, and nothing else: the other days and the other website keep theirs, and the
// rollups of the periods it touched equal their days again.
func TestDeleteStatsOfARange(t *testing.T) {
	f := newFixture(t, "a.example", "b.example")
	db, repo, a, b := f.db, f.repo, f.sites[0], f.sites[1]
	ctx := context.Background()
	rolledUpThroughJune(t, db) // June's weeks and month are rolled up, July's not
	days := []string{"2026-06-10", "2026-06-24", "2026-06-28", "2026-07-02", "2026-07-09"}
	rng := mathrand.New(mathrand.NewPCG(1, 2))
	for _, site := range []int64{a, b} {
		for _, day := range days {
			_, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: repotest.RandomVisitDay(rng, date(day), 20).Counts(site),
				Members: []repository.Member{{WebsiteID: site, Day: date(day), Key: [16]byte{byte(site), 1}, Visited: true}}}, 0)
			if err != nil {
				t.Fatal(err)
			}
		}
		repotest.WriteVisitRows(t, db, site, repotest.RandomVisits(rng, date(days[0]), date(days[len(days)-1]), 5))
		db.MustExec(`INSERT INTO imported_days (website_id, day, source) VALUES ($1, '2026-06-24', 'plausible')`, site)
		db.MustExec(`INSERT INTO property_keys (website_id, day, key, value_count) VALUES ($1, '2026-06-28', 'plan', 1)`, site)
		db.MustExec(`INSERT INTO visit_row_repeats (website_id, day, visitors) VALUES ($1, '2026-06-28', '{1, 2}'), ($1, '2026-07-09', '{3}')`, site)
	}
	tables := [][2]string{{"stats", "date"}, {"stats_value_counts", "date"}, {"visit_rows", "day"}, {"visitor_days", "day"},
		{"imported_days", "day"}, {"property_keys", "day"}, {"visit_row_repeats", "day"}}
	before := map[[2]string]int{}
	for _, tc := range tables {
		before[tc] = rowsOf(t, db, tc[0], tc[1], a, "2026-06-01", "2026-06-20") + rowsOf(t, db, tc[0], tc[1], a, "2026-07-03", "2026-07-31")
	}
	bBefore := map[[2]string]int{}
	for _, tc := range tables {
		bBefore[tc] = rowsOf(t, db, tc[0], tc[1], b, "", "")
	}

	reset, err := repo.DeleteStats(ctx, a, &stats.Range{From: date("2026-06-21"), To: date("2026-07-02")}, stats.FixedZone(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if reset.All() || !reset.From.Equal(date("2026-06-21")) || !reset.To.Equal(date("2026-07-02")) {
		t.Fatalf("reset %+v", reset)
	}
	for _, tc := range tables {
		if n := rowsOf(t, db, tc[0], tc[1], a, "2026-06-21", "2026-07-02"); n != 0 {
			t.Errorf("%s: %d rows of the deleted days left", tc[0], n)
		}
		if n := rowsOf(t, db, tc[0], tc[1], a, "2026-06-01", "2026-06-20") + rowsOf(t, db, tc[0], tc[1], a, "2026-07-03", "2026-07-31"); n != before[tc] {
			t.Errorf("%s: %d rows of the other days, %d before", tc[0], n, before[tc])
		}
		if n := rowsOf(t, db, tc[0], tc[1], b, "", ""); n != bBefore[tc] {
			t.Errorf("%s: the other website has %d rows, %d before", tc[0], n, bBefore[tc])
		}
	}
	if n := rollupsDisagree(t, db); n != 0 {
		t.Fatalf("%d rollup rows differ from their days", n)
	}
	// A fresh reader (no cached rollup dates) reads June from its rollups: the remaining days.
	var want int64
	db.Get(&want, `SELECT coalesce(sum(count), 0) FROM stats WHERE website_id = $1 AND name = 'pageview' AND date BETWEEN '2026-06-01' AND '2026-06-30'`, a)
	sums, err := repository.New(db, nil).SumStats(ctx, a, []stats.Name{stats.Pageview}, stats.Range{From: date("2026-06-01"), To: date("2026-06-30")})
	if err != nil || sums[stats.Pageview] != want || want == 0 {
		t.Fatalf("June's pageviews read %d (%v), its days hold %d", sums[stats.Pageview], err, want)
	}

	// The hits a node held for those days are written after it and count; a negative count of
	// a visit then open (a bounce that ended) finds no row and is dropped, failing nothing.
	_, err = repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
		{WebsiteID: a, Name: string(stats.Bounce), Date: date("2026-06-24"), Value: "2026-06-24", Count: -1},
		{WebsiteID: a, Name: string(stats.Pageview), Date: date("2026-06-24"), Value: "2026-06-24", Count: 2},
	}}, 0)
	if err != nil {
		t.Fatalf("a flush after the deletion: %v", err)
	}
	var rows []repository.StatEntry
	db.Select(&rows, `SELECT value, count FROM stats WHERE website_id = $1 AND date = '2026-06-24'`, a)
	if len(rows) != 1 || rows[0].Count != 2 {
		t.Fatalf("after the deletion a flush left %v", rows)
	}

	// Its note, for every range that overlaps it.
	for _, r := range []struct {
		from, to string
		n        int
	}{{"2026-06-01", "2026-06-21", 1}, {"2026-07-02", "2026-07-31", 1}, {"2026-06-01", "2026-06-20", 0}, {"2026-07-03", "2026-07-03", 0}} {
		got, err := repo.StatsResets(ctx, a, stats.Range{From: date(r.from), To: date(r.to)})
		if err != nil || len(got) != r.n {
			t.Errorf("resets of %s..%s: %v (%v), want %d", r.from, r.to, got, err, r.n)
		}
	}
}

// A reset of all stats leaves nothing of the website's data, rollups included, and notes every
// day up to today.
func TestDeleteAllStats(t *testing.T) {
	f := newFixture(t, "a.example", "b.example")
	db, repo, a, b := f.db, f.repo, f.sites[0], f.sites[1]
	ctx := context.Background()
	rolledUpThroughJune(t, db)
	rng := mathrand.New(mathrand.NewPCG(3, 4))
	for _, site := range []int64{a, b} {
		for _, day := range []string{"2026-05-05", "2026-06-15"} {
			if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: repotest.RandomVisitDay(rng, date(day), 10).Counts(site)}, 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := repo.RollUp(ctx, date("2026-07-20")); err != nil {
			t.Fatal(err)
		}
	}
	reset, err := repo.DeleteStats(ctx, a, nil, stats.FixedZone(time.UTC))
	if err != nil || !reset.All() {
		t.Fatalf("reset %+v, %v", reset, err)
	}
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly", "stats_value_counts"} {
		if n := rowsOf(t, db, table, "", a, "", ""); n != 0 {
			t.Errorf("%s: %d rows left", table, n)
		}
		if n := rowsOf(t, db, table, "", b, "", ""); n == 0 {
			t.Errorf("%s: the other website lost its rows", table)
		}
	}
	got, err := repo.StatsResets(ctx, a, stats.Range{From: date("2001-01-01"), To: date("2001-01-01")})
	if err != nil || len(got) != 1 || !got[0].All() {
		t.Fatalf("a reset of everything is not noted on an old range: %v %v", got, err)
	}
	if _, err := repo.DeleteStats(ctx, 999999, nil, stats.FixedZone(time.UTC)); err == nil {
		t.Fatal("no error for no website")
	}
}

// Realtime data is the website's of the deleted days only; current visitors go when the range
// holds now.
func TestDeleteStatsRealtime(t *testing.T) {
	now := time.Date(2026, 3, 3, 23, 20, 0, 0, time.UTC) // 00:20 on the 4th in Berlin
	f := newFixture(t, "a.example")
	db, a := f.db, f.sites[0]
	repo := repository.New(db, func() time.Time { return now })
	berlin, _ := time.LoadLocation("Europe/Berlin")
	minute := now.Truncate(time.Minute)
	// 00:20 on the 4th and 23:55 on the 3rd in Berlin.
	db.MustExec(`INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, 3), ($1, $3, 2)`, a, minute, minute.Add(-25*time.Minute))
	db.MustExec(`INSERT INTO realtime_visitors (node, website_id, visitors, flushed_at) VALUES ('n1', $1, 4, $2)`, a, now)
	// Yesterday in Berlin (today in UTC): its minute only.
	if _, err := repo.DeleteStats(context.Background(), a, &stats.Range{From: date("2026-03-03"), To: date("2026-03-03")}, stats.FixedZone(berlin)); err != nil {
		t.Fatal(err)
	}
	var minutes, visitors int
	db.Get(&minutes, `SELECT count(*) FROM realtime_minutes WHERE website_id = $1`, a)
	db.Get(&visitors, `SELECT count(*) FROM realtime_visitors WHERE website_id = $1`, a)
	if minutes != 1 || visitors != 1 {
		t.Fatalf("yesterday deleted: %d minutes and %d visitor counts left, want 1 and 1", minutes, visitors)
	}
	if _, err := repo.DeleteStats(context.Background(), a, &stats.Range{From: date("2026-03-04"), To: date("2026-03-04")}, stats.FixedZone(berlin)); err != nil {
		t.Fatal(err)
	}
	db.Get(&minutes, `SELECT count(*) FROM realtime_minutes WHERE website_id = $1`, a)
	db.Get(&visitors, `SELECT count(*) FROM realtime_visitors WHERE website_id = $1`, a)
	if minutes != 0 || visitors != 0 {
		t.Fatalf("today deleted: %d minutes and %d visitor counts left", minutes, visitors)
	}
}

// A website's own retention deletes its visit rows past it, a few days a run, after moving
// its filters_from so that no read counts a day going; others keep theirs.
func TestForgetVisitRows(t *testing.T) {
	f := newFixture(t, "a.example", "b.example")
	db, repo, a, b := f.db, f.repo, f.sites[0], f.sites[1]
	ctx := context.Background()
	rng := mathrand.New(mathrand.NewPCG(5, 6))
	for _, site := range []int64{a, b} {
		repotest.WriteVisitRows(t, db, site, repotest.RandomVisits(rng, date("2026-02-01"), date("2026-02-10"), 3))
	}
	db.MustExec(`UPDATE websites SET filters_from = '2026-02-01'`)
	done, err := repo.ForgetVisitRows(ctx, a, date("2026-02-06"), 3)
	if err != nil || done != 3 {
		t.Fatalf("first run: %d days (%v), want 3", done, err)
	}
	from, err := repo.FilteredFrom(ctx, a, stats.Range{From: date("2026-02-01"), To: date("2026-02-10")})
	if err != nil || !from.Equal(date("2026-02-06")) {
		t.Fatalf("filtered from %v (%v), want 2026-02-06 at once", from, err)
	}
	if done, err = repo.ForgetVisitRows(ctx, a, date("2026-02-06"), 3); err != nil || done != 2 {
		t.Fatalf("second run: %d days (%v), want the 2 left", done, err)
	}
	if done, err = repo.ForgetVisitRows(ctx, a, date("2026-02-06"), 3); err != nil || done != 0 {
		t.Fatalf("third run: %d days (%v), want none", done, err)
	}
	if n := rowsOf(t, db, "visit_rows", "day", a, "2026-02-01", "2026-02-05"); n != 0 {
		t.Errorf("%d rows past the retention left", n)
	}
	if n := rowsOf(t, db, "visit_rows", "day", a, "2026-02-06", "2026-02-10"); n != 15 {
		t.Errorf("%d rows within the retention, want 15", n)
	}
	if n := rowsOf(t, db, "visit_rows", "day", b, "", ""); n != 30 {
		t.Errorf("the other website has %d rows, want 30", n)
	}
}
