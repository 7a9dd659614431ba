// Package repository is the service's only access to PostgreSQL (hand-written SQL over sqlx
// and lib/pq), and in it the analytics engine: every number the API, the pages, the reports
// and the query API answer is read here, planned (plan.go), compiled and run (docs/engine.md).
// The storage of accounts, websites, goals and funnels is its package store, the counters'
// writer its package counters; Repository embeds both, so that callers have one handle.
package repository

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/repository/store"
)

var (
	// ErrNotFound: no such row, or not the caller's (the two are not told apart on purpose).
	ErrNotFound = store.ErrNotFound
	// ErrConflict: a unique constraint refused the write (PostgreSQL 23505).
	ErrConflict = store.ErrConflict
	// ErrPasswordRequired: privacy 2 asked for a website that has no password.
	ErrPasswordRequired = store.ErrPasswordRequired
)

// Repository runs every query of the service.
type Repository struct {
	*store.Repository // the storage of accounts, websites, goals, funnels (package store)
	*counters.Writer  // the counters' writer and its jobs (package counters)
	db                *sqlx.DB
	now               func() time.Time
	pages             *ttlCache[websiteDay, map[string]int64] // the pages of closed days, for goals (goal_pages.go)
	// the goals' numbers of closed days (goals_closed.go)
	conversions *ttlCache[string, *goalCounts]
	// maxRepeats is how many visitor-days of several visits the query engine passes to a
	// statement as a list (defaultMaxRepeats; the tests change it to try both ways).
	maxRepeats int
	// goalsUnion: the event:goal dimension is always answered by the union of one part a
	// goal, never by the goals list's statements (planQuery): for the tests that compare both.
	goalsUnion bool
}

// New wraps an open database. now is the clock for created_at/updated_at; nil means time.Now.
func New(db *sqlx.DB, now func() time.Time) *Repository {
	if now == nil {
		now = time.Now
	}
	return &Repository{Repository: store.New(db, now), Writer: counters.New(db, now), db: db, now: now, pages: newClosedPages(), conversions: newClosedConversions(),
		maxRepeats: defaultMaxRepeats}
}

// Open connects to PostgreSQL and checks the connection. Every connection gets
// sessionSettings, unless the connection string sets them itself.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	db, err := sqlx.Open("postgres", withSessionSettings(url))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db, nil
}

// Ping tells whether the database answers; /readyz uses it.
func (r *Repository) Ping(ctx context.Context) error {
	return r.db.PingContext(ctx)
}

func isUniqueViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505"
}

// likePattern is store.LikePattern: a user's search text as a literal ILIKE pattern.
func likePattern(search string) string { return store.LikePattern(search) }
