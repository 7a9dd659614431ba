package repository

import (
	"context"
	"fmt"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// visit_rows (migration 0020, docs/filters.md) holds one row per visit for filtered reads,
// in one partition a day. This file makes the partitions and says from which day filtered
// numbers exist; the flush writes the rows (AddVisitBatch) and filtered_read.go reads them.

// visitRowPartition names the partition of a day.
func visitRowPartition(day time.Time) string {
	return "visit_rows_" + day.Format("20060102")
}

// EnsureVisitRowPartitions makes the partitions of the days from..to (calendar days) that do
// not exist yet. Each is made in its own transaction, under an advisory lock, so that nodes
// starting together do not race.
func (r *Repository) EnsureVisitRowPartitions(ctx context.Context, from, to time.Time) error {
	for day := stats.Day(from); !day.After(stats.Day(to)); day = day.AddDate(0, 0, 1) {
		if err := r.ensureVisitRowPartition(ctx, day); err != nil {
			return fmt.Errorf("visit_rows.ensure_partitions: %s: %w", day.Format(dateLayout), err)
		}
	}
	return nil
}

// visitRowLock is the advisory lock key taken while partitions are made or dropped.
const visitRowLock = 0x76697369 // "visi"

func (r *Repository) ensureVisitRowPartition(ctx context.Context, day time.Time) error {
	var exists bool
	if err := r.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM visit_row_partitions WHERE day = $1)`, day.Format(dateLayout)); err != nil {
		return err
	}
	if exists {
		return nil
	}
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, visitRowLock); err != nil {
		return err
	}
	create := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF visit_rows FOR VALUES FROM ('%s') TO ('%s')`,
		visitRowPartition(day), day.Format(dateLayout), day.AddDate(0, 0, 1).Format(dateLayout))
	if _, err := tx.ExecContext(ctx, create); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO visit_row_partitions (day) VALUES ($1) ON CONFLICT DO NOTHING`, day.Format(dateLayout)); err != nil {
		return err
	}
	return tx.Commit()
}

// FilteredFrom is the first day of the range that filtered numbers count (CONTRACT.md section
// 9, meta.filtered_from): the later of the website's filters_from and the oldest partition
// kept, when that is after the range's first day; the zero time when filtered numbers cover
// the whole range. It may be after the range's last day: then no day of it has filter rows.
func (r *Repository) FilteredFrom(ctx context.Context, websiteID int64, days stats.Range) (time.Time, error) {
	const query = `
		SELECT greatest(w.filters_from, (SELECT min(day) FROM visit_row_partitions))
		FROM websites w WHERE w.id = $1`
	var from *time.Time
	if err := r.db.GetContext(ctx, &from, query, websiteID); err != nil {
		return time.Time{}, fmt.Errorf("visit_rows.filtered_from: %w", err)
	}
	if from == nil || !stats.Day(*from).After(days.From) {
		return time.Time{}, nil
	}
	return stats.Day(*from), nil
}
