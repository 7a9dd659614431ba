package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Segment is a saved set of filters of a website (docs/segments.md): its maker's own
// (UserID set: personal) or the website's, seen by everyone who reads its dashboard (UserID
// nil: site). Filters are the query API's filter list as JSON, checked by package query
// before they are stored.
type Segment struct {
	ID        int64     `db:"id"`
	WebsiteID int64     `db:"website_id"`
	UserID    *int64    `db:"user_id"`
	Name      string    `db:"name"`
	Filters   []byte    `db:"filters"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// Site tells whether the segment is the website's rather than one user's.
func (s Segment) Site() bool { return s.UserID == nil }

// MaxSegments and MaxAnnotations bound what one website holds (as Plausible's 500
// segments), so that a member cannot fill the database.
const (
	MaxSegments    = 500
	MaxAnnotations = 1000
)

// ErrPinnedLimit: the website has MaxSegments segments or MaxAnnotations annotations already.
var ErrPinnedLimit = errors.New("limit reached")

const segmentColumns = `id, website_id, user_id, name, filters, created_at, updated_at`

// visibleTo is the condition of a segment's or annotation's row that user $2 may see: the
// website's, or their own. Every read of both uses it.
const visibleTo = `(user_id IS NULL OR user_id = $2)`

// Segments lists the segments of a website that a user sees, by name (ties by id).
func (r *Repository) Segments(ctx context.Context, websiteID, userID int64) ([]Segment, error) {
	var out []Segment
	err := r.db.SelectContext(ctx, &out, `SELECT `+segmentColumns+` FROM segments
		WHERE website_id = $1 AND `+visibleTo+` ORDER BY lower(name), id`, websiteID, userID)
	if err != nil {
		return nil, fmt.Errorf("segments.list: %w", err)
	}
	return out, nil
}

// Segment is one segment of a website that a user sees; ErrNotFound when there is none (of
// another website, another user's personal one, or none at all: not told apart).
func (r *Repository) Segment(ctx context.Context, websiteID, userID, id int64) (Segment, error) {
	var s Segment
	err := r.db.GetContext(ctx, &s, `SELECT `+segmentColumns+` FROM segments
		WHERE website_id = $1 AND `+visibleTo+` AND id = $3`, websiteID, userID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Segment{}, fmt.Errorf("segments.get: %w", ErrNotFound)
	}
	if err != nil {
		return Segment{}, fmt.Errorf("segments.get: %w", err)
	}
	return s, nil
}

// CreateSegment stores a segment (name and filters checked by the caller) of a website,
// personal to owner or the website's (owner nil); ErrPinnedLimit when the website has
// MaxSegments.
func (r *Repository) CreateSegment(ctx context.Context, websiteID int64, owner *int64, name string, filters []byte) (Segment, error) {
	var s Segment
	err := r.withinLimit(ctx, "segments.create", "segments", websiteID, MaxSegments, func(tx *sqlx.Tx) error {
		now := r.now().UTC()
		return tx.GetContext(ctx, &s, `INSERT INTO segments (website_id, user_id, name, filters, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5) RETURNING `+segmentColumns, websiteID, owner, strings.TrimSpace(name), filters, now)
	})
	return s, err
}

// UpdateSegment replaces a segment's owner (nil: the website's), name and filters;
// ErrNotFound when the website has no such segment.
func (r *Repository) UpdateSegment(ctx context.Context, s Segment) (Segment, error) {
	var out Segment
	err := r.db.GetContext(ctx, &out, `UPDATE segments SET user_id = $3, name = $4, filters = $5, updated_at = $6
		WHERE website_id = $1 AND id = $2 RETURNING `+segmentColumns,
		s.WebsiteID, s.ID, s.UserID, strings.TrimSpace(s.Name), s.Filters, r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return Segment{}, fmt.Errorf("segments.update: %w", ErrNotFound)
	}
	if err != nil {
		return Segment{}, fmt.Errorf("segments.update: %w", err)
	}
	return out, nil
}

// DeleteSegment deletes a segment of a website, and with it the shared links made for it;
// ErrNotFound when the website has no such segment.
func (r *Repository) DeleteSegment(ctx context.Context, websiteID, id int64) error {
	return deleteRow(ctx, r.db, "segments.delete", `DELETE FROM segments WHERE website_id = $1 AND id = $2`, websiteID, id)
}

// withinLimit runs insert in a transaction that holds a lock of the website's row and has
// counted fewer than limit rows of the table for it, so parallel requests cannot pass the
// limit between them; ErrNotFound when there is no such website.
func (r *Repository) withinLimit(ctx context.Context, op, table string, websiteID int64, limit int, insert func(*sqlx.Tx) error) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", op, err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := getWebsite(ctx, tx, op, websiteID, "FOR NO KEY UPDATE"); err != nil {
		return err
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM `+table+` WHERE website_id = $1`, websiteID); err != nil {
		return fmt.Errorf("%s: count: %w", op, err)
	}
	if n >= limit {
		return fmt.Errorf("%s: %w", op, ErrPinnedLimit)
	}
	if err := insert(tx); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", op, err)
	}
	return nil
}

// deleteRow runs a DELETE of one row; ErrNotFound when it deleted none.
func deleteRow(ctx context.Context, db sqlx.ExecerContext, op, query string, args ...any) error {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}
