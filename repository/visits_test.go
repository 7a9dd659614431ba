package repository_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
)

// Negative deltas (an exit page that moved, a bounce that ended) lower rows an earlier batch
// wrote, in the daily table and in the rollups already made; a row they bring to 0 is deleted,
// never stored as 0 (the tables keep count > 0), and a delta whose value went to (other) is
// taken from (other).
func TestNegativeDeltasDeleteRowsAtZero(t *testing.T) {
	f := newFixture(t, "neg.example")
	ctx := context.Background()
	site := f.sites[0]
	day := date("2026-02-10") // a week and a month the rollup below makes whole
	add := func(maxValues int, counts ...repository.StatCount) {
		t.Helper()
		if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, maxValues); err != nil {
			t.Fatal(err)
		}
	}
	exit := func(value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: site, Name: "exit_page", Date: day, Value: value, Count: n}
	}
	add(10, exit("/a", 2), exit("/b", 1))
	if err := f.repo.RollUp(ctx, date("2026-04-01")); err != nil {
		t.Fatal(err)
	}
	add(10, exit("/a", -1), exit("/b", -1), exit("/c", 1))
	// /d has no room on a day capped at 3 values: its +1 goes to (other), and so its -1.
	add(3, exit("/d", 1))
	add(3, exit("/d", -1), exit("/c", 1))
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		var rows []struct {
			Value string `db:"value"`
			Count int64  `db:"count"`
		}
		if err := f.db.Select(&rows, `SELECT value, count FROM `+table+` WHERE website_id = $1 AND name = 'exit_page' ORDER BY value`, site); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rows); got != "[{/a 1} {/c 2}]" {
			t.Errorf("%s: %s, want [{/a 1} {/c 2}] (/b and (other) at 0 deleted)", table, got)
		}
	}
}

// AddVisitBatch counts a visitor once a day however many batches (nodes) send its key, and each
// hour of it once; a retried batch adds nothing.
func TestVisitorsOnceADayAcrossBatches(t *testing.T) {
	f := newFixture(t, "members.example")
	ctx := context.Background()
	site, day := f.sites[0], date("2026-03-04")
	key := [16]byte{1, 2, 3}
	other := [16]byte{9}
	batch := func(members ...repository.Member) repository.VisitBatch {
		return repository.VisitBatch{ID: uuid.NewString(), Members: members,
			Counts: []repository.StatCount{{WebsiteID: site, Name: "pageview", Date: day, Value: "2026-03-04", Count: 1}}}
	}
	write := func(b repository.VisitBatch) {
		t.Helper()
		if _, err := f.repo.AddVisitBatch(ctx, b, 100); err != nil {
			t.Fatal(err)
		}
	}
	first := batch(repository.Member{WebsiteID: site, Day: day, Key: key, Visited: true, Hours: 1 << 10})
	write(first)
	write(first) // retried: nothing more
	write(batch(repository.Member{WebsiteID: site, Day: day, Key: key, Visited: true, Hours: 1<<10 | 1<<11},
		repository.Member{WebsiteID: site, Day: day, Key: other, Visited: true, Hours: 1 << 11}))
	write(batch(repository.Member{WebsiteID: site, Day: day, Key: key, Hours: 1 << 12}))
	var rows []struct {
		Name  string `db:"name"`
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := f.db.Select(&rows, `SELECT name, value, count FROM stats WHERE website_id = $1 AND name IN ('visitor', 'visitor_hour', 'pageview') ORDER BY name, value`, site); err != nil {
		t.Fatal(err)
	}
	want := "[{pageview 2026-03-04 3} {visitor 2026-03-04 2} {visitor_hour 10 1} {visitor_hour 11 2} {visitor_hour 12 1}]"
	if got := fmt.Sprint(rows); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// The realtime job keeps 30 minutes and the last 25 pageviews of each website, and the nodes'
// reports of what they may still write for a week; the minutes' job the minutes of
// MinutesKept; the salt job deletes salts and day membership of the days before the one given.
func TestForgetRealtimeAndSalts(t *testing.T) {
	f := newFixture(t, "rt.example")
	ctx := context.Background()
	site := f.sites[0]
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	var recent []repository.RecentPageview
	for i := range 30 {
		recent = append(recent, repository.RecentPageview{WebsiteID: site, At: now.Add(-time.Duration(i) * time.Second), Page: fmt.Sprint("/", i)})
	}
	recent = append(recent, repository.RecentPageview{WebsiteID: site, At: now.Add(-31 * time.Minute), Page: "/old"})
	b := repository.VisitBatch{ID: uuid.NewString(), Recent: recent, Minutes: []repository.RealtimeMinute{
		{WebsiteID: site, Minute: now.Truncate(time.Minute), Pageviews: 3}, {WebsiteID: site, Minute: now.Add(-40 * time.Minute).Truncate(time.Minute), Pageviews: 1},
		{WebsiteID: site, Minute: now.Add(-repository.MinutesKept), Visitors: 1}, {WebsiteID: site, Minute: now.Add(-repository.MinutesKept - time.Minute), Pageviews: 1}},
		Node: "n1", Visitors: []repository.NodeVisitors{{WebsiteID: site, Visitors: 4}}, At: now.Add(-2 * time.Minute),
		Members: []repository.Member{{WebsiteID: site, Day: date("2026-03-02"), Key: [16]byte{1}, Visited: true}}}
	if _, err := f.repo.AddVisitBatch(ctx, b, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.Salts(ctx, []time.Time{date("2026-03-02"), date("2026-03-03"), date("2026-03-04")}); err != nil {
		t.Fatal(err)
	}
	for node, at := range map[string]time.Time{"died": now.AddDate(0, 0, -7).Add(-time.Second), "quiet": now.AddDate(0, 0, -6)} {
		open := repository.VisitBatch{ID: uuid.NewString(), Open: &repository.NodeOpen{Node: node, At: at}}
		if _, err := f.repo.AddVisitBatch(ctx, open, 100); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.repo.ForgetRealtime(ctx, now); err != nil {
		t.Fatal(err)
	}
	var reports []string
	if err := f.db.Select(&reports, `SELECT node FROM node_open_days ORDER BY node`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(reports) != "[quiet]" {
		t.Errorf("nodes' reports left %v, want the one of 6 days ago", reports)
	}
	if err := f.repo.ForgetMinutes(ctx, now); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.ForgetSalts(ctx, date("2026-03-03")); err != nil {
		t.Fatal(err)
	}
	var n struct {
		Recent  int    `db:"recent"`
		Oldest  string `db:"oldest"`
		Minutes int    `db:"minutes"`
		Nodes   int    `db:"nodes"`
		Salts   int    `db:"salts"`
		Members int    `db:"members"`
	}
	err := f.db.Get(&n, `SELECT (SELECT count(*) FROM realtime_recent) AS recent,
		(SELECT page FROM realtime_recent ORDER BY at LIMIT 1) AS oldest,
		(SELECT count(*) FROM realtime_minutes) AS minutes, (SELECT count(*) FROM realtime_visitors) AS nodes,
		(SELECT count(*) FROM visitor_salts) AS salts, (SELECT count(*) FROM visitor_days) AS members`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", n); got != "{Recent:25 Oldest:/24 Minutes:3 Nodes:0 Salts:2 Members:0}" {
		t.Fatalf("left %s", got)
	}
}
