package counters

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/store"
	"github.com/analytics-service/analytics/stats"
)

// Import sources, as imported_days.source spells them (docs/imports.md).
const (
	SourcePlausible    = "plausible"
	SourcePHPAnalytics = "phpanalytics"
	SourceGoatCounter  = "goatcounter"
)

// HeldDay is a day an import was refused because the website already holds data on it.
type HeldDay struct {
	Day time.Time
	// Source is the import that brought the day's data (SourcePlausible...), "" when it was
	// collected.
	Source string
}

// Import writes imported history of one website in one transaction (BeginImport): the
// counters go through the collector's stats writer (WriteBatch), so the rollups stay right,
// without the value cap of collection (history is not an attack). Commit makes it all visible
// at once; Rollback, or any error, leaves the website as it was.
type Import struct {
	tx        *sqlx.Tx
	websiteID int64
}

// BeginImport starts an import of days of a website from source: it locks the website against
// a concurrent import (collection's writes go on), marks as imported the days that hold no
// data yet, and returns those that do, which the import must leave out. A website that does
// not exist is store.ErrNotFound.
func BeginImport(ctx context.Context, db *sqlx.DB, websiteID int64, source string, days []time.Time) (*Import, []HeldDay, error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("imports.begin: %w", err)
	}
	held, err := beginImport(ctx, tx, websiteID, source, days)
	if err != nil {
		return nil, nil, errors.Join(err, tx.Rollback())
	}
	return &Import{tx: tx, websiteID: websiteID}, held, nil
}

// NewImport is an import into a website made in tx (an imported website's, whose days hold
// nothing yet: MarkNewWebsiteDays marks them); Commit or Rollback ends tx.
func NewImport(tx *sqlx.Tx, websiteID int64) *Import { return &Import{tx: tx, websiteID: websiteID} }

func beginImport(ctx context.Context, tx *sqlx.Tx, websiteID int64, source string, days []time.Time) ([]HeldDay, error) {
	var id int64
	// FOR NO KEY UPDATE: a second import of the website waits for this one (and then sees its
	// days as held), while the flush's FOR KEY SHARE does not.
	err := tx.GetContext(ctx, &id, `SELECT id FROM websites WHERE id = $1 FOR NO KEY UPDATE`, websiteID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("imports.begin: website %d: %w", websiteID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("imports.begin: %w", err)
	}
	dates := make([]string, len(days))
	for i, d := range days {
		dates[i] = d.Format(dateLayout)
	}
	// A day holds data when it was imported before, or when collection counted a pageview, a
	// visit or an event on it (every hit counts one of these).
	const query = `
		WITH wanted AS (SELECT DISTINCT unnest($2::date[]) AS day)
		SELECT to_char(w.day, 'YYYY-MM-DD') AS day, coalesce(i.source, '') AS source
		FROM wanted w
		LEFT JOIN imported_days i ON i.website_id = $1 AND i.day = w.day
		WHERE i.day IS NOT NULL OR EXISTS (
			SELECT 1 FROM stats s
			WHERE s.website_id = $1 AND s.name = ANY($3::text[]) AND s.date = w.day)
		ORDER BY w.day`
	var rows []struct {
		Day    string `db:"day"`
		Source string `db:"source"`
	}
	collected := []string{string(stats.Pageview), string(stats.Visit), string(stats.Visitor), string(stats.Event)}
	if err := tx.SelectContext(ctx, &rows, query, websiteID, pq.Array(dates), pq.Array(collected)); err != nil {
		return nil, fmt.Errorf("imports.held_days: %w", err)
	}
	held := make([]HeldDay, len(rows))
	isHeld := make(map[string]bool, len(rows))
	for i, row := range rows {
		day, err := time.Parse(dateLayout, row.Day)
		if err != nil {
			return nil, fmt.Errorf("imports.held_days: %w", err)
		}
		held[i] = HeldDay{Day: day, Source: row.Source}
		isHeld[row.Day] = true
	}
	kept := make([]string, 0, len(dates))
	for _, d := range dates {
		if !isHeld[d] {
			kept = append(kept, d)
		}
	}
	const mark = `
		INSERT INTO imported_days (website_id, day, source)
		SELECT $1, d, $3 FROM unnest($2::date[]) AS d
		ON CONFLICT DO NOTHING`
	if _, err := tx.ExecContext(ctx, mark, websiteID, pq.Array(kept), source); err != nil {
		return nil, fmt.Errorf("imports.mark_days: %w", err)
	}
	return held, nil
}

// Add adds counters of the import's website (their WebsiteID is ignored); the days must be
// among those BeginImport marked. It may be called many times, with batches of any size the
// memory allows.
func (im *Import) Add(ctx context.Context, counts []StatCount) error {
	for i := range counts {
		counts[i].WebsiteID = im.websiteID
	}
	// The value cap does not apply to history: a past day's values are what the other product
	// counted, not a flood. No batch id either: the import's transaction is its once, as it
	// commits whole or not at all, and Add is never retried within it.
	if _, err := WriteBatch(ctx, im.tx, nil, VisitBatch{Counts: counts}, historyUncapped); err != nil {
		return fmt.Errorf("imports.add: %w", err)
	}
	return nil
}

// historyUncapped is the value cap of imported history: none (the writer's statement compares
// it as an integer).
const historyUncapped = math.MaxInt32

// Commit makes the import visible.
func (im *Import) Commit() error {
	if err := im.tx.Commit(); err != nil {
		return fmt.Errorf("imports.commit: %w", err)
	}
	return nil
}

// Rollback undoes the import; after Commit it does nothing.
func (im *Import) Rollback() error {
	if err := im.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("imports.rollback: %w", err)
	}
	return nil
}

// MarkNewWebsiteDays records the days of a website this import created (BeginWebsiteImport),
// none of which can hold data yet, as imported from source, and moves the website's
// visits_from (the first day counted by visits) past the last of them, so that the dashboard
// tells them apart from collected days.
func (im *Import) MarkNewWebsiteDays(ctx context.Context, days []time.Time, source string) error {
	if len(days) == 0 {
		return nil
	}
	dates := make([]string, len(days))
	for i, d := range days {
		dates[i] = d.Format(dateLayout)
	}
	const mark = `
		INSERT INTO imported_days (website_id, day, source)
		SELECT $1, d, $3 FROM unnest($2::date[]) AS d
		ORDER BY d
		ON CONFLICT (website_id, day) DO NOTHING`
	if _, err := im.tx.ExecContext(ctx, mark, im.websiteID, pq.Array(dates), source); err != nil {
		return fmt.Errorf("imports.mark_days: %w", err)
	}
	const move = `
		UPDATE websites
		SET visits_from = greatest(visits_from, (SELECT max(d) FROM unnest($2::date[]) AS d) + 1)
		WHERE id = $1`
	if _, err := im.tx.ExecContext(ctx, move, im.websiteID, pq.Array(dates)); err != nil {
		return fmt.Errorf("imports.mark_days: %w", err)
	}
	return nil
}
