// Package closed tells which days are closed (docs/big-sites.md, "Closed days"). A day of a
// website is closed once no flush writes its visit rows any more: the column store copies it,
// visit_row_values and visit_row_repeats keep what it holds, and none of them looks at it
// again. Two bounds say
// so, and the later one counts:
//   - After days before today in the website's zone, which no open visit or buffer of
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
package closed

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// After is how many days after a day its rows stop changing at the latest.
const After = 3

// clockDrift is how far two nodes' clocks may disagree.
const clockDrift = time.Minute

// NodeLost is the age past which a node's report is ignored: a node that died without
// leaving (its row stays) holds the days back that long at most.
const NodeLost = 24 * time.Hour

// ReportsTTL is how long a read uses the reports it read: a report only ever moves
// forward, so an older one closes fewer days, never more.
const ReportsTTL = time.Second

// earliestToday is the first calendar date of any zone (stats.LastZone's) clockDrift before
// t, as a stats.Day.
func earliestToday(t time.Time) time.Time {
	return stats.Day(t.Add(-clockDrift).In(stats.LastZone))
}

// Days reads the nodes' reports (node_open_days), cached for ReportsTTL.
type Days struct {
	db  Queryer
	now func() time.Time

	mu     sync.Mutex
	read   time.Time
	bounds []time.Time // per node: the first day it may still write
}

// Queryer runs a query: a connection pool.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// New reads the reports on db, with now's clock (nil: time.Now).
func New(db Queryer, now func() time.Time) *Days {
	if now == nil {
		now = time.Now
	}
	return &Days{db: db, now: now}
}

// reportedClosed is the last day closed by the nodes' reports (zone-free: the bound of every
// website).
func (d *Days) reportedClosed(ctx context.Context) (time.Time, error) {
	now := d.now()
	bounds, err := d.nodeBounds(ctx, now)
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

// nodeBounds are the first day each live node may still write, read at most ReportsTTL
// before now.
func (d *Days) nodeBounds(ctx context.Context, now time.Time) ([]time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.read.IsZero() && now.Sub(d.read) >= 0 && now.Sub(d.read) < ReportsTTL {
		return d.bounds, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT oldest, flushed_at FROM node_open_days WHERE flushed_at > $1`, now.Add(-NodeLost).UTC())
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
		if oldest.Valid && stats.Day(oldest.Time).Before(b) {
			b = stats.Day(oldest.Time)
		}
		bounds = append(bounds, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("closed days: %w", err)
	}
	d.read, d.bounds = now, bounds
	return bounds, nil
}

// Last is the last closed day of a website whose today is today (in its zone).
func (d *Days) Last(ctx context.Context, today time.Time) (time.Time, error) {
	reported, err := d.reportedClosed(ctx)
	if err != nil {
		return time.Time{}, err
	}
	static := today.AddDate(0, 0, -After)
	if reported.After(static) {
		return reported, nil
	}
	return static, nil
}
