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

	"github.com/analytics-service/analytics/repository/closed"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/repository/daypages"
	"github.com/analytics-service/analytics/repository/pgsettings"
	"github.com/analytics-service/analytics/repository/store"
	"github.com/analytics-service/analytics/repository/ttlcache"
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
	*store.Repository          // the storage of accounts, websites, goals, funnels (package store)
	*counters.Writer           // the counters' writer and its jobs (package counters)
	db                *sqlx.DB // everything the pools below do not take
	// reads takes the stats reads of the API, the pages and the reports (counters, visit
	// rows), under a statement timeout; health takes Ping alone. Both are db when the
	// repository is on one pool (New).
	reads, health *sqlx.DB
	// collection is the collector's repository: the flush on a pool of its own (Collection);
	// nil: this one.
	collection *Repository
	now        func() time.Time
	dayPages   *daypages.Reader // the days' pages, for goals and funnels (goal_pages.go)
	// the goals' numbers of closed days (goals_closed.go)
	conversions *ttlcache.Cache[string, *goalCounts]
	// maxRepeats is how many visitor-days of several visits the query engine passes to a
	// statement as a list (defaultMaxRepeats; the tests change it to try both ways).
	maxRepeats int
	column     *column.Store // the closed days' column store (UseColumnStore), nil: none
	closing    *closed.Days  // which days are closed (package closed)
}

// New wraps an open database, every statement on its one pool (commands, tests). now is the
// clock for created_at/updated_at; nil means time.Now.
func New(db *sqlx.DB, now func() time.Time) *Repository {
	if now == nil {
		now = time.Now
	}
	r := &Repository{Repository: store.New(db, now), Writer: counters.New(db, now), db: db, reads: db, health: db, now: now,
		conversions: newClosedConversions(), maxRepeats: defaultMaxRepeats, closing: closed.New(db, now)}
	r.dayPages = daypages.New(db.DB, r.readRows, now) // r.readRows: the reads' pool, once Pools sets it
	return r
}

// Pools are the service's connections to its database, apart by what must never wait for
// what: the stats reads (a costly query of one tenant holds a connection of Reads, never one
// that signing in, a website's settings or a flush needs), the collector's flush (hits keep
// being written while reads are slow) and /readyz (a node busy with queries is not reported
// down). Main takes everything else: accounts, keys, websites, goals, background jobs.
type Pools struct {
	Main, Reads, Flush, Health *sqlx.DB
}

// Pool sizes: Reads is the largest, as the API's and the pages' reads run many at once (a
// dashboard reads its panels in parallel); a flush is one transaction at a time.
const (
	mainConns   = 10
	readsConns  = 20
	flushConns  = 4
	healthConns = 1
)

// OpenPools connects the service's pools to url and checks the connection. Every statement of
// Reads is stopped after readTimeout (PostgreSQL's statement_timeout; 0 means none), unless
// the connection string sets statement_timeout itself. Each pool's connections name it in
// pg_stat_activity (application_name analytics-main, -reads, -flush, -health), unless the
// connection string names them.
func OpenPools(ctx context.Context, url string, readTimeout time.Duration) (*Pools, error) {
	p := &Pools{}
	for _, pool := range []struct {
		db    **sqlx.DB
		name  string
		conns int
	}{{&p.Main, "main", mainConns}, {&p.Reads, "reads", readsConns}, {&p.Flush, "flush", flushConns}, {&p.Health, "health", healthConns}} {
		settings := [][2]string{{"application_name", "analytics-" + pool.name}}
		if pool.db == &p.Reads && readTimeout > 0 {
			settings = append(settings, [2]string{"statement_timeout", fmt.Sprint(readTimeout.Milliseconds())})
		}
		db, err := open(ctx, pgsettings.With(url, settings), pool.conns)
		if err != nil {
			p.Close()
			return nil, err
		}
		*pool.db = db
	}
	return p, nil
}

// Close closes every pool.
func (p *Pools) Close() error {
	var errs []error
	for _, db := range []*sqlx.DB{p.Main, p.Reads, p.Flush, p.Health} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// NewOnPools is the service's repository on its pools (Pools): the stats reads on Reads,
// Ping on Health, and Collection's on Flush.
func NewOnPools(p *Pools, now func() time.Time) *Repository {
	r := New(p.Main, now)
	r.reads, r.health = p.Reads, p.Health
	r.closing = closed.New(p.Reads, r.now)
	r.Writer.UseReads(p.Reads)
	r.collection = New(p.Flush, now)
	r.collection.health = p.Health
	return r
}

// Collection is the repository the collector writes through: the same database, on the
// flush's own pool when the repository has one (NewOnPools).
func (r *Repository) Collection() *Repository {
	if r.collection == nil {
		return r
	}
	return r.collection
}

// TimedOut tells whether err is a read stopped for taking too long, or because its request
// ended: PostgreSQL's statement_timeout, or a cancelled context (lib/pq then cancels the
// statement in the database), as opposed to a failure.
func TimedOut(err error) bool {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return pqErr.Code == "57014" // query_canceled: statement_timeout, or a cancel request
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// Open connects to PostgreSQL with one pool of 20 connections (the commands' and the tests')
// and checks the connection. Every connection gets pgsettings.Session, unless the connection
// string sets them itself.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	return open(ctx, url, 20)
}

func open(ctx context.Context, url string, conns int) (*sqlx.DB, error) {
	db, err := sqlx.Open("postgres", pgsettings.WithSession(url))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db, nil
}

// Ping tells whether the database answers; /readyz uses it, on a connection of its own.
func (r *Repository) Ping(ctx context.Context) error {
	return r.health.PingContext(ctx)
}

// likePattern is store.LikePattern: a user's search text as a literal ILIKE pattern.
func likePattern(search string) string { return store.LikePattern(search) }
