package counters

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository/store"
	"github.com/analytics-service/analytics/stats"
)

// What a website keeps, and what its owner deletes (docs/retention.md): each website's visit
// rows past its own retention, and a range of its stats (or all of them) at its owner's word.

// StatsReset is a range of a website's stats its owner deleted: From zero for every day up to
// To (a reset of all stats, To being the website's day then).
type StatsReset struct {
	ID      int64     `db:"id"`
	From    time.Time `db:"from_day"`
	To      time.Time `db:"to_day"`
	ResetAt time.Time `db:"reset_at"`
}

// All tells whether the reset deleted every day up to To.
func (s StatsReset) All() bool { return s.From.IsZero() }

// dayTables are the tables of a website's data by day that a deletion of days empties, each
// with its day column: the counters and their value counts (the rollups are rebuilt apart),
// the visit rows and what is derived from them, the day membership of visitor keys, and the
// days marked imported.
var dayTables = []struct{ table, day string }{
	{"stats", "date"}, {"stats_value_counts", "date"}, {"visit_rows", "day"}, {"visit_row_values", "day"},
	{"visit_row_repeats", "day"}, {"property_keys", "day"}, {"property_values", "day"}, {"visitor_days", "day"}, {"imported_days", "day"},
}

// DeleteStats deletes a website's stats of the days of a range, or of every day when days is
// nil, in one transaction: counters (daily, and the weekly and monthly rollups rebuilt from
// what is left), visit rows, imports and realtime data, and records the range for the
// dashboard's note. zone is the website's, which realtime's instants are read in (and whose
// today ends a reset of all days). Counts that a node holds in memory for those days at this moment
// (at most FLUSH_INTERVAL of hits, and the later hits of visits then open) are written by its
// next flush and count: a deletion removes what is stored, it does not stop collection. A
// website that does not exist is ErrNotFound.
func (r *Repository) DeleteStats(ctx context.Context, websiteID int64, days *stats.Range, zone stats.Zone) (StatsReset, error) {
	now := r.now()
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	// NO KEY UPDATE, as an import takes it: an import of the website waits for the deletion
	// (and then finds the days free), while the flush's FOR KEY SHARE does not wait.
	var id int64
	err = tx.GetContext(ctx, &id, `SELECT id FROM websites WHERE id = $1 FOR NO KEY UPDATE`, websiteID)
	if errors.Is(err, sql.ErrNoRows) {
		return StatsReset{}, fmt.Errorf("stats.delete: %w", store.ErrNotFound)
	}
	if err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: %w", err)
	}
	reset := StatsReset{To: zone.Today(now), ResetAt: now.UTC().Truncate(time.Microsecond)}
	if days != nil {
		reset.From, reset.To = days.From, days.To
	}
	if err := deleteDays(ctx, tx, websiteID, reset); err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: %w", err)
	}
	if err := nextRowsGeneration(ctx, tx, websiteID); err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: %w", err)
	}
	if err := deleteRealtime(ctx, tx, websiteID, reset, zone, now); err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: %w", err)
	}
	const record = `
		INSERT INTO stats_resets (website_id, from_day, to_day, reset_at)
		VALUES ($1, $2, $3, $4)
		RETURNING id`
	var from *string
	if !reset.All() {
		f := reset.From.Format(dateLayout)
		from = &f
	}
	if err := tx.GetContext(ctx, &reset.ID, record, websiteID, from, reset.To.Format(dateLayout), reset.ResetAt); err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: record: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return StatsReset{}, fmt.Errorf("stats.delete: commit: %w", err)
	}
	return reset, nil
}

// deleteDays deletes the reset's days of every day table and rebuilds the rollups' periods
// that held them.
func deleteDays(ctx context.Context, tx *sqlx.Tx, websiteID int64, reset StatsReset) error {
	// The rollup state FOR KEY SHARE, as a flush holds it: RollUp, which rebuilds ended periods
	// from the daily rows, waits for this deletion (and then rebuilds from what is left) or
	// commits first (and its rows are rebuilt here).
	rolled, err := readRolledUp(ctx, tx, "FOR KEY SHARE")
	if err != nil {
		return fmt.Errorf("rollup state: %w", err)
	}
	for _, t := range dayTables {
		query := `DELETE FROM ` + t.table + ` WHERE website_id = $1`
		args := []any{websiteID}
		if !reset.All() {
			query += ` AND ` + t.day + ` BETWEEN $2 AND $3`
			args = append(args, reset.From.Format(dateLayout), reset.To.Format(dateLayout))
		}
		if _, err := tx.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("%s: %w", t.table, err)
		}
	}
	for _, t := range []struct {
		table   countTable
		through time.Time
	}{{weeklyCounts, rolled.Weeks}, {monthlyCounts, rolled.Months}} {
		if err := rebuildWebsitePeriods(ctx, tx, t.table, websiteID, reset, t.through); err != nil {
			return err
		}
	}
	return nil
}

// rebuildWebsitePeriods makes a rollup's rows of the website for the periods that hold the
// reset's days again from the daily rows left, up to the last period rolled up (through):
// later periods have no rollup rows yet (RollUp writes them from the daily rows when they
// end). A reset of all days leaves no daily row, so no rollup row either.
func rebuildWebsitePeriods(ctx context.Context, tx *sqlx.Tx, t countTable, websiteID int64, reset StatsReset, through time.Time) error {
	if reset.All() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.table+` WHERE website_id = $1`, websiteID); err != nil {
			return fmt.Errorf("%s: %w", t.table, err)
		}
		return nil
	}
	first, last := t.periodStart(reset.From), t.periodStart(reset.To)
	if last.After(through) {
		last = through
	}
	if first.After(last) {
		return nil
	}
	clear, insert := t.rebuildWebsiteSQL()
	end := last.AddDate(0, t.months, t.days-1) // the last day of the last period
	if _, err := tx.ExecContext(ctx, clear, websiteID, first.Format(dateLayout), last.Format(dateLayout)); err != nil {
		return fmt.Errorf("%s: clear: %w", t.table, err)
	}
	if _, err := tx.ExecContext(ctx, insert, websiteID, first.Format(dateLayout), end.Format(dateLayout)); err != nil {
		return fmt.Errorf("%s: rebuild: %w", t.table, err)
	}
	return nil
}

// deleteRealtime deletes the website's realtime rows of the reset's days (the instants of its
// days in the website's zone): at most 30 minutes of them exist, so only a range that holds
// today or yesterday finds any. The nodes' counts of current visitors go when the range holds
// now; each node writes its own again at its next flush.
func deleteRealtime(ctx context.Context, tx *sqlx.Tx, websiteID int64, reset StatsReset, zone stats.Zone, now time.Time) error {
	next := reset.To.AddDate(0, 0, 1)
	until := dayStart(next, zone.OfDay(next))
	since := time.Time{}
	if !reset.All() {
		since = dayStart(reset.From, zone.OfDay(reset.From))
	}
	for _, q := range []string{
		`DELETE FROM realtime_minutes WHERE website_id = $1 AND minute >= $2 AND minute < $3`,
		`DELETE FROM realtime_recent WHERE website_id = $1 AND at >= $2 AND at < $3`,
	} {
		if _, err := tx.ExecContext(ctx, q, websiteID, since, until); err != nil {
			return fmt.Errorf("realtime: %w", err)
		}
	}
	if !now.Before(since) && now.Before(until) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM realtime_visitors WHERE website_id = $1`, websiteID); err != nil {
			return fmt.Errorf("realtime visitors: %w", err)
		}
	}
	return nil
}

// dayStart is the first instant of a calendar day (a Day) in loc (nil: UTC).
func dayStart(day time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
}

// StatsResets are the website's deleted ranges that overlap days, oldest first.
func (r *Repository) StatsResets(ctx context.Context, websiteID int64, days stats.Range) ([]StatsReset, error) {
	const query = `
		SELECT id, coalesce(from_day, '0001-01-01') AS from_day, to_day, reset_at
		FROM stats_resets
		WHERE website_id = $1 AND to_day >= $2 AND (from_day IS NULL OR from_day <= $3)
		ORDER BY reset_at, id`
	var out []StatsReset
	if err := r.db.SelectContext(ctx, &out, query, websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("stats.resets: %w", err)
	}
	for i := range out {
		out[i].To = stats.Day(out[i].To)
		if out[i].From = stats.Day(out[i].From); out[i].From.Year() == 1 {
			out[i].From = time.Time{}
		}
	}
	return out, nil
}

// ForgetVisitRows deletes a website's visit rows (and the values and property keys derived
// from them) of the days before a day, at most maxDays of the days that still hold some, the
// oldest first, one transaction a day; it returns the days done. The website's filters_from
// moves to that day first, so that no read counts a day being deleted; the daily counters
// stay.
func (r *Repository) ForgetVisitRows(ctx context.Context, websiteID int64, before time.Time, maxDays int) (int, error) {
	if _, err := r.db.ExecContext(ctx, `UPDATE websites SET filters_from = greatest(filters_from, $2) WHERE id = $1`,
		websiteID, before.Format(dateLayout)); err != nil {
		return 0, fmt.Errorf("retention.forget: %w", err)
	}
	// The days that hold rows of the website, found by one probe of the primary key each (a
	// loose index scan), not by reading the rows; the partitions kept until FACTS_RETENTION
	// drops them hold none once done.
	const daysQuery = `
		WITH RECURSIVE held AS (
			(SELECT day FROM visit_rows WHERE website_id = $1 AND day < $2 ORDER BY day LIMIT 1)
			UNION ALL
			SELECT (SELECT v.day FROM visit_rows v WHERE v.website_id = $1 AND v.day > held.day AND v.day < $2 ORDER BY v.day LIMIT 1)
			FROM held WHERE held.day IS NOT NULL
		)
		SELECT day FROM held WHERE day IS NOT NULL LIMIT $3`
	var days []time.Time
	if err := r.db.SelectContext(ctx, &days, daysQuery, websiteID, before.Format(dateLayout), maxDays); err != nil {
		return 0, fmt.Errorf("retention.forget: %w", err)
	}
	for i, day := range days {
		if err := r.forgetVisitRowsOf(ctx, websiteID, stats.Day(day)); err != nil {
			return i, fmt.Errorf("retention.forget: %s: %w", day.Format(dateLayout), err)
		}
	}
	return len(days), nil
}

func (r *Repository) forgetVisitRowsOf(ctx context.Context, websiteID int64, day time.Time) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	for _, table := range []string{"visit_rows", "visit_row_values", "visit_row_repeats", "property_keys", "property_values"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE website_id = $1 AND day = $2`, websiteID, day.Format(dateLayout)); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	if err := nextRowsGeneration(ctx, tx, websiteID); err != nil {
		return err
	}
	return tx.Commit()
}

// nextRowsGeneration raises the website's rows_generation in the transaction that deletes some
// of its visit rows: the column store's copies made before it are no longer read
// (column.Forget).
func nextRowsGeneration(ctx context.Context, tx *sqlx.Tx, websiteID int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE websites SET rows_generation = rows_generation + 1 WHERE id = $1`, websiteID); err != nil {
		return fmt.Errorf("rows generation: %w", err)
	}
	return nil
}
