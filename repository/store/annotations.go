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

// Annotation is a note pinned to a day of a website's graph (docs/segments.md): personal
// (UserID set) or the website's (UserID nil), as segments.
type Annotation struct {
	ID        int64     `db:"id"`
	WebsiteID int64     `db:"website_id"`
	UserID    *int64    `db:"user_id"`
	Day       time.Time `db:"day"`
	Note      string    `db:"note"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// Site tells whether the annotation is the website's rather than one user's.
func (a Annotation) Site() bool { return a.UserID == nil }

const annotationColumns = `id, website_id, user_id, day, note, created_at, updated_at`

// Annotations lists the annotations of a website that a user sees on the days from..to
// (inclusive), by day (ties by id). A zero from or to leaves that end open.
func (r *Repository) Annotations(ctx context.Context, websiteID, userID int64, from, to time.Time) ([]Annotation, error) {
	var out []Annotation
	err := r.db.SelectContext(ctx, &out, `SELECT `+annotationColumns+` FROM annotations
		WHERE website_id = $1 AND `+visibleTo+`
		AND ($3::date IS NULL OR day >= $3) AND ($4::date IS NULL OR day <= $4)
		ORDER BY day, id`, websiteID, userID, dayOrNil(from), dayOrNil(to))
	if err != nil {
		return nil, fmt.Errorf("annotations.list: %w", err)
	}
	return out, nil
}

func dayOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(dateLayout)
}

// Annotation is one annotation of a website that a user sees; ErrNotFound otherwise.
func (r *Repository) Annotation(ctx context.Context, websiteID, userID, id int64) (Annotation, error) {
	var a Annotation
	err := r.db.GetContext(ctx, &a, `SELECT `+annotationColumns+` FROM annotations
		WHERE website_id = $1 AND `+visibleTo+` AND id = $3`, websiteID, userID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Annotation{}, fmt.Errorf("annotations.get: %w", ErrNotFound)
	}
	if err != nil {
		return Annotation{}, fmt.Errorf("annotations.get: %w", err)
	}
	return a, nil
}

// CreateAnnotation stores an annotation (note checked by the caller) of a website, personal
// to owner or the website's (owner nil); ErrPinnedLimit when the website has MaxAnnotations.
func (r *Repository) CreateAnnotation(ctx context.Context, websiteID int64, owner *int64, day time.Time, note string) (Annotation, error) {
	var a Annotation
	err := r.withinLimit(ctx, "annotations.create", "annotations", websiteID, MaxAnnotations, func(tx *sqlx.Tx) error {
		now := r.now().UTC()
		return tx.GetContext(ctx, &a, `INSERT INTO annotations (website_id, user_id, day, note, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5) RETURNING `+annotationColumns, websiteID, owner, day.Format(dateLayout), strings.TrimSpace(note), now)
	})
	return a, err
}

// UpdateAnnotation replaces an annotation's owner, day and note; ErrNotFound when the website
// has no such annotation.
func (r *Repository) UpdateAnnotation(ctx context.Context, a Annotation) (Annotation, error) {
	var out Annotation
	err := r.db.GetContext(ctx, &out, `UPDATE annotations SET user_id = $3, day = $4, note = $5, updated_at = $6
		WHERE website_id = $1 AND id = $2 RETURNING `+annotationColumns,
		a.WebsiteID, a.ID, a.UserID, a.Day.Format(dateLayout), strings.TrimSpace(a.Note), r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return Annotation{}, fmt.Errorf("annotations.update: %w", ErrNotFound)
	}
	if err != nil {
		return Annotation{}, fmt.Errorf("annotations.update: %w", err)
	}
	return out, nil
}

// DeleteAnnotation deletes an annotation of a website; ErrNotFound when it has none such.
func (r *Repository) DeleteAnnotation(ctx context.Context, websiteID, id int64) error {
	return deleteRow(ctx, r.db, "annotations.delete", `DELETE FROM annotations WHERE website_id = $1 AND id = $2`, websiteID, id)
}
