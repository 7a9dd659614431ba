package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// The last closed day follows the nodes' reports (node_open_days): with none, every day
// before today's first date on Earth (UTC-12's, a minute back); a node's open visit of an
// older day, or a report of its own from before that, holds the days from it on back; a
// report a day old is a node that died and counts no more; and closed.After days before
// today are closed whatever a node says. A report read is used for up to a second.
func TestLastClosedFollowsTheNodes(t *testing.T) {
	db, _ := repotest.New(t)
	now := time.Date(2026, 3, 5, 13, 0, 0, 0, time.UTC)
	r := repository.New(db, func() time.Time { return now })
	ctx := context.Background()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	report := func(node, oldest string, at time.Time) {
		t.Helper()
		var o any
		if oldest != "" {
			o = oldest
		}
		if _, err := db.Exec(`INSERT INTO node_open_days (node, oldest, flushed_at) VALUES ($1, $2, $3)
			ON CONFLICT (node) DO UPDATE SET oldest = EXCLUDED.oldest, flushed_at = EXCLUDED.flushed_at`, node, o, at); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name, want string) {
		t.Helper()
		now = now.Add(repository.OpenReportsTTL) // past the reports read before
		got, err := repository.LastClosed(ctx, r, day("2026-03-05"))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(day(want)) {
			t.Errorf("%s: the last closed day is %s, want %s", name, got.Format(time.DateOnly), want)
		}
	}
	check("no node, after noon UTC", "2026-03-04")
	now = time.Date(2026, 3, 5, 11, 0, 0, 0, time.UTC)
	check("no node, before noon UTC: UTC-12's today is the 4th", "2026-03-03")
	now = time.Date(2026, 3, 5, 13, 0, 0, 0, time.UTC)

	report("a", "", now.Add(-10*time.Second))
	check("a node with no open visit", "2026-03-04")
	report("b", "2026-03-04", now.Add(-10*time.Second))
	check("a node with an open visit of the 4th", "2026-03-03")
	report("b", "", now.Add(-10*time.Second))
	report("c", "", time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC))
	check("a node whose last report is of the 4th (UTC-12's)", "2026-03-03")
	report("c", "", now.Add(-repository.NodeLost-time.Minute))
	check("a node a day silent", "2026-03-04")
	report("d", "2026-02-01", now.Add(-10*time.Second))
	check("a node holding a visit of February", "2026-03-02")

	// A report read is used for a second: one written meanwhile counts after it.
	if _, err := db.Exec(`DELETE FROM node_open_days`); err != nil {
		t.Fatal(err)
	}
	check("every node left", "2026-03-04")
	report("e", "2026-03-01", now)
	if got, err := repository.LastClosed(ctx, r, day("2026-03-05")); err != nil || !got.Equal(day("2026-03-04")) {
		t.Errorf("within the second: %v %v, want the reports read before (2026-03-04)", got, err)
	}
	check("a second later", "2026-03-02")
}
