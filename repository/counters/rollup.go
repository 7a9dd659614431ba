package counters

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// RolledUp is how far the rollups are whole (0009_rollup_watermark.sql): every week up to the
// one starting on weeks, every month up to the one starting on months. Reads use a rollup only
// up to there. The dates only move forward, so a value read earlier is still true, only
// cautious: a read that uses it reads a few more daily rows.
type RolledUp struct {
	Weeks, Months time.Time
}

// rolledUpTTL is how long a node reads with the rollup dates it knows before it asks again:
// after a period ends, reads use its daily rows until then.
const rolledUpTTL = time.Minute

type rolledUpCache struct {
	mu      sync.Mutex
	value   RolledUp
	fetched time.Time
}

// get returns the dates known and when they were read.
func (c *rolledUpCache) get() (RolledUp, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.fetched
}

// RolledUp returns the rollup dates, from memory when fetched less than rolledUpTTL ago.
func (r *Repository) RolledUp(ctx context.Context) (RolledUp, error) {
	value, fetched := r.rollups.get()
	if !fetched.IsZero() && time.Since(fetched) < rolledUpTTL {
		return value, nil
	}
	value, err := readRolledUp(ctx, r.db, "")
	if err != nil {
		return RolledUp{}, fmt.Errorf("rollups.state: %w", err)
	}
	r.remember(value)
	return value, nil
}

// readRolledUp reads the state row; lock is "" or a locking clause.
func readRolledUp(ctx context.Context, q sqlx.QueryerContext, lock string) (RolledUp, error) {
	var row struct {
		Weeks  time.Time `db:"weeks_through"`
		Months time.Time `db:"months_through"`
	}
	if err := sqlx.GetContext(ctx, q, &row, `SELECT weeks_through, months_through FROM rollup_state `+lock); err != nil {
		return RolledUp{}, err
	}
	return RolledUp{Weeks: stats.Day(row.Weeks), Months: stats.Day(row.Months)}, nil
}

// remember keeps the latest rollup dates known, never older ones.
func (r *Repository) remember(v RolledUp) {
	c := &r.rollups
	c.mu.Lock()
	defer c.mu.Unlock()
	if v.Weeks.Before(c.value.Weeks) {
		v.Weeks = c.value.Weeks
	}
	if v.Months.Before(c.value.Months) {
		v.Months = c.value.Months
	}
	c.value, c.fetched = v, time.Now()
}

// RollUp writes the weekly and monthly rollups of the periods that have ended by today (a
// calendar day of the service's time zone) and were not rolled up yet, from the daily rows, and
// records that they are whole. It does nothing, without a query, when this node already knows
// they are. Several nodes may run it at once: the state row, taken FOR UPDATE, orders them, and
// the later ones find the work done.
//
// A flush of a period that is being rolled up either commits first (RollUp's lock waits for its
// FOR KEY SHARE, and the daily rows it reads include the flush's) or takes its lock after
// RollUp committed and then adds to the new rollup rows itself (see addStats).
func (r *Repository) RollUp(ctx context.Context, today time.Time) error {
	want := RolledUp{
		Weeks:  stats.WeekStart(today).AddDate(0, 0, -7),  // Monday of last week
		Months: stats.MonthStart(today).AddDate(0, -1, 0), // 1st of last month
	}
	known, _ := r.rollups.get()
	if !known.Weeks.Before(want.Weeks) && !known.Months.Before(want.Months) {
		return nil
	}
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rollups.roll_up: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	have, err := readRolledUp(ctx, tx, "FOR UPDATE")
	if err != nil {
		return fmt.Errorf("rollups.roll_up: state: %w", err)
	}
	if have.Weeks.Before(want.Weeks) || have.Months.Before(want.Months) {
		// Every website FOR KEY SHARE, as a flush does: a delete in progress commits first
		// (its daily rows are then gone from what is read), a later one waits for this.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM websites ORDER BY id FOR KEY SHARE`); err != nil {
			return fmt.Errorf("rollups.roll_up: lock websites: %w", err)
		}
	}
	if have.Weeks.Before(want.Weeks) {
		if err := rebuild(ctx, tx, weeklyCounts, have.Weeks, want.Weeks); err != nil {
			return err
		}
		have.Weeks = want.Weeks
	}
	if have.Months.Before(want.Months) {
		if err := rebuild(ctx, tx, monthlyCounts, have.Months, want.Months); err != nil {
			return err
		}
		have.Months = want.Months
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rollup_state SET weeks_through = $1, months_through = $2`,
		have.Weeks.Format(dateLayout), have.Months.Format(dateLayout)); err != nil {
		return fmt.Errorf("rollups.roll_up: record: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rollups.roll_up: commit: %w", err)
	}
	r.remember(have)
	return nil
}

// rebuild replaces the rows of a rollup for the periods after the one starting on through, up
// to and including the one starting on last, by the sums of the daily rows. Replacing, not
// adding, makes it right whatever the table held for them: partial sums written by a flush of an
// older version, or nothing.
func rebuild(ctx context.Context, tx sqlx.ExecerContext, t countTable, through, last time.Time) error {
	first, end := t.periodsAfter(through, last)
	from, to := first.Format(dateLayout), end.Format(dateLayout)
	clear, insert := t.rebuildSQL()
	if _, err := tx.ExecContext(ctx, clear, from, to); err != nil {
		return fmt.Errorf("rollups.roll_up: clear %s: %w", t.table, err)
	}
	if _, err := tx.ExecContext(ctx, insert, from, to); err != nil {
		return fmt.Errorf("rollups.roll_up: %s: %w", t.table, err)
	}
	return nil
}
