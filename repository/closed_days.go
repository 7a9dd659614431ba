package repository

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Closed days (docs/big-sites.md, "Closed days"). A day of a website is closed once no flush
// writes its visit rows any more: the column store copies it, visit_row_values and
// visit_row_repeats keep what it holds, and none of them looks at it again. Two bounds say
// so, and the later one counts:
//   - closedAfter days before today in the website's zone, which no open visit or buffer of
//     a live node reaches (a visit of day D is written until the next salt midnight plus
//     twice VISIT_TIMEOUT, up to about 32 hours after D ends);
//   - what the nodes report (node_open_days, written by each flush in the transaction of
//     its rows): a node writes later only rows of its open visits' oldest day or after, or
//     of a day that starts after its report. A day before every node's bound and before
//     today's first date on Earth (UTC-12: the visits that open now count on today or
//     later in every zone) is closed. Each instant is taken clockDrift back, for the clocks
//     of two machines. In a steady state that is yesterday, from noon UTC on.
//
// The job that rewrites a partition in key order (app/jobs.go) keeps three days of its own:
// CLUSTER locks the partition, which a late flush would wait for.

// closedAfter is how many days after a day its rows stop changing at the latest.
const closedAfter = 3

// clockDrift is how far two nodes' clocks may disagree.
const clockDrift = time.Minute

// nodeLost is the age past which a node's report is ignored: a node that died without
// leaving (its row stays) holds the days back that long at most.
const nodeLost = 24 * time.Hour

// openReportsTTL is how long a read uses the reports it read: a report only ever moves
// forward, so an older one closes fewer days, never more.
const openReportsTTL = time.Second

// earliestToday is the first calendar date of any zone (stats.LastZone's) clockDrift before
// t, as a stats.Day.
func earliestToday(t time.Time) time.Time {
	return stats.Day(t.Add(-clockDrift).In(stats.LastZone))
}

// openReports caches node_open_days for openReportsTTL.
type openReports struct {
	mu     sync.Mutex
	read   time.Time
	bounds []time.Time // per node: the first day it may still write
}

// reportedClosed is the last day closed by the nodes' reports (zone-free: the bound of every
// website).
func (r *Repository) reportedClosed(ctx context.Context) (time.Time, error) {
	now := r.now()
	bounds, err := r.nodeBounds(ctx, now)
	if err != nil {
		return time.Time{}, err
	}
	first := earliestToday(now)
	for _, b := range bounds {
		if b.Before(first) {
			first = b
		}
	}
	return first.AddDate(0, 0, -1), nil
}

// nodeBounds are the first day each live node may still write, read at most openReportsTTL
// before now.
func (r *Repository) nodeBounds(ctx context.Context, now time.Time) ([]time.Time, error) {
	c := r.openDays
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.read.IsZero() && now.Sub(c.read) >= 0 && now.Sub(c.read) < openReportsTTL {
		return c.bounds, nil
	}
	rows, err := r.reads.QueryContext(ctx, `SELECT oldest, flushed_at FROM node_open_days WHERE flushed_at > $1`, now.Add(-nodeLost).UTC())
	if err != nil {
		return nil, fmt.Errorf("closed days: %w", err)
	}
	defer rows.Close()
	var bounds []time.Time
	for rows.Next() {
		var oldest sql.NullTime
		var at time.Time
		if err := rows.Scan(&oldest, &at); err != nil {
			return nil, fmt.Errorf("closed days: %w", err)
		}
		b := earliestToday(at)
		if oldest.Valid && dayOf(oldest.Time).Before(b) {
			b = dayOf(oldest.Time)
		}
		bounds = append(bounds, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("closed days: %w", err)
	}
	c.read, c.bounds = now, bounds
	return bounds, nil
}

// lastClosed is the last closed day of a website whose today is today (in its zone).
func (r *Repository) lastClosed(ctx context.Context, today time.Time) (time.Time, error) {
	reported, err := r.reportedClosed(ctx)
	if err != nil {
		return time.Time{}, err
	}
	static := today.AddDate(0, 0, -closedAfter)
	if reported.After(static) {
		return reported, nil
	}
	return static, nil
}
