package repository

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Import sources, as imported_days.source spells them (CONTRACT.md section 11).
const (
	SourcePHPAnalytics = "phpanalytics"
	SourcePlausible    = "plausible"
)

// Import is one website's import of history: everything it writes is in one transaction, so
// an import that fails or is abandoned leaves nothing behind (CONTRACT.md section 11).
type Import struct {
	tx  *sqlx.Tx
	now func() time.Time
}

// BeginImport starts an import's transaction; Commit or Rollback ends it.
func (r *Repository) BeginImport(ctx context.Context) (*Import, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("imports.begin: %w", err)
	}
	return &Import{tx: tx, now: r.now}, nil
}

// ImportedWebsite is a website brought from another product with its settings, already checked
// by the website rules, and what that product knew of it besides.
type ImportedWebsite struct {
	NewWebsite
	Favorite  bool
	CreatedAt time.Time // zero: now
}

// CreateWebsite stores the website for a user; ErrConflict if the domain is taken by anyone
// (the transaction is then unusable: roll it back).
func (im *Import) CreateWebsite(ctx context.Context, userID int64, in ImportedWebsite) (Website, error) {
	w, err := createWebsite(ctx, im.tx, im.now(), userID, in.NewWebsite)
	if err != nil {
		return Website{}, fmt.Errorf("imports.create_website: %w", err)
	}
	if !in.Favorite && in.CreatedAt.IsZero() {
		return w, nil
	}
	created := w.CreatedAt
	if !in.CreatedAt.IsZero() {
		created = in.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	const query = `
		UPDATE websites
		SET favorite = $2, created_at = $3
		WHERE id = $1
		RETURNING ` + websiteColumns
	if err := im.tx.GetContext(ctx, &w, query, w.ID, in.Favorite, created); err != nil {
		return Website{}, fmt.Errorf("imports.create_website: %w", err)
	}
	return w, nil
}

// AddStats adds counts through the collector's statement (so the weekly and monthly rollups
// stay right), without the limit of values a day: history is kept whole.
func (im *Import) AddStats(ctx context.Context, counts []StatCount) error {
	if _, err := addStats(ctx, im.tx, uuid.NewString(), counts, uncapped); err != nil {
		return fmt.Errorf("imports.add_stats: %w", err)
	}
	return nil
}

// MarkImportedDays records the days of a website that hold imported numbers, and moves its
// visits_from (the first day counted by visits) past the last of them, so that the dashboard
// tells those days apart from collected ones. A day marked before keeps its source.
func (im *Import) MarkImportedDays(ctx context.Context, websiteID int64, days []time.Time, source string) error {
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
	if _, err := im.tx.ExecContext(ctx, mark, websiteID, pq.Array(dates), source); err != nil {
		return fmt.Errorf("imports.mark_days: %w", err)
	}
	const move = `
		UPDATE websites
		SET visits_from = greatest(visits_from, (SELECT max(d) FROM unnest($2::date[]) AS d) + 1)
		WHERE id = $1`
	if _, err := im.tx.ExecContext(ctx, move, websiteID, pq.Array(dates)); err != nil {
		return fmt.Errorf("imports.mark_days: %w", err)
	}
	return nil
}

// Commit makes the import visible at once, whole.
func (im *Import) Commit() error {
	if err := im.tx.Commit(); err != nil {
		return fmt.Errorf("imports.commit: %w", err)
	}
	return nil
}

// Rollback abandons the import; after Commit it does nothing.
func (im *Import) Rollback() error {
	if err := im.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("imports.rollback: %w", err)
	}
	return nil
}
