// Package store is the storage of the service's own records: accounts, users and their keys,
// sessions and links, websites and their settings, goals, funnels and the e-mail reports'
// queue (hand-written SQL over sqlx and lib/pq, one file per resource). The numbers are not
// here: the analytics engine (package repository) reads them, and the collector's writer
// writes them.
package store

import (
	"errors"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

var (
	// ErrNotFound: no such row, or not the caller's (the two are not told apart on purpose).
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique constraint refused the write (PostgreSQL 23505).
	ErrConflict = errors.New("conflict")
	// ErrPasswordRequired: privacy 2 asked for a website that has no password.
	ErrPasswordRequired = errors.New("password required")
)

// Repository runs the storage's queries.
type Repository struct {
	db  *sqlx.DB
	now func() time.Time
}

// New wraps an open database; now is the clock for created_at/updated_at.
func New(db *sqlx.DB, now func() time.Time) *Repository {
	return &Repository{db: db, now: now}
}

const dateLayout = "2006-01-02"

func isUniqueViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505"
}

// isForeignKeyViolation tells whether err is a row naming another that is not there.
func isForeignKeyViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23503"
}

// LikePattern turns a user's search text into an ILIKE pattern that matches it as a literal
// substring: % and _ are not wildcards here.
func LikePattern(search string) string {
	escaped := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(search)
	return "%" + escaped + "%"
}

func likePattern(search string) string { return LikePattern(search) }
