package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SiteCheck is the last installation check of a website (site_checks): whether a script that
// sends here was found on its home page, the sentence that says so, and when.
type SiteCheck struct {
	CheckedAt time.Time `db:"checked_at"`
	Found     bool      `db:"found"`
	Message   string    `db:"message"`
}

// SaveSiteCheck keeps a website's check in place of its last one, and deletes the checks of
// every website made before keepAfter, which are shown no more.
func (r *Repository) SaveSiteCheck(ctx context.Context, websiteID int64, c SiteCheck, keepAfter time.Time) error {
	const query = `
		WITH expired AS (DELETE FROM site_checks WHERE checked_at < $5 AND website_id <> $1)
		INSERT INTO site_checks (website_id, checked_at, found, message) VALUES ($1, $2, $3, $4)
		ON CONFLICT (website_id) DO UPDATE
			SET checked_at = EXCLUDED.checked_at, found = EXCLUDED.found, message = EXCLUDED.message`
	if _, err := r.db.ExecContext(ctx, query, websiteID, c.CheckedAt, c.Found, c.Message, keepAfter); err != nil {
		return fmt.Errorf("site_checks.save: %w", err)
	}
	return nil
}

// LastSiteCheck is a website's check made at or after since; ErrNotFound when there is none.
func (r *Repository) LastSiteCheck(ctx context.Context, websiteID int64, since time.Time) (SiteCheck, error) {
	var c SiteCheck
	err := r.db.GetContext(ctx, &c, `SELECT checked_at, found, message FROM site_checks WHERE website_id = $1 AND checked_at >= $2`, websiteID, since)
	if errors.Is(err, sql.ErrNoRows) {
		return SiteCheck{}, fmt.Errorf("site_checks.last: %w", ErrNotFound)
	}
	if err != nil {
		return SiteCheck{}, fmt.Errorf("site_checks.last: %w", err)
	}
	return c, nil
}
