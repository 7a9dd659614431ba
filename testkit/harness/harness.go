// Package harness is the one test environment of the service as it ships: a test's own
// database (cloned from the migrated template), a frozen clock, the service built by app.New,
// users with API keys, websites, an HTTP call whose answer is checked against openapi.yaml,
// and the service's metrics as /metrics serves them. Every package's tests build on it;
// what is particular to a package (an SMTP server, a browser) stays a thin layer in that
// package's harness_test.go.
//
// It lives apart from package testkit because it imports app, which imports every production
// package: the in-package tests of those packages use testkit's clock without a cycle.
// Production code never imports either.
package harness

import (
	"cmp"
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// Today is where a test's clock stands unless the test sets another (At).
var Today = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// Env is one test's service on its own database.
type Env struct {
	T     testing.TB
	DB    *sqlx.DB
	DBURL string
	Repo  *repository.Repository
	// Pools are the service's connections (Repo's): closing them is the database going away
	// for this node.
	Pools  *repository.Pools
	Clock  *testkit.Clock
	App    *app.App
	Config app.Config // as the service was built from, its clock included
	Logs   *testkit.SyncBuffer
	// Server serves App over real HTTP when the env was started (Started); nil otherwise.
	Server *httptest.Server

	recording *recording
}

// Option changes how New builds the env.
type Option func(*setup)

type setup struct {
	at      time.Time
	config  app.Config
	started bool
	running bool
}

// At starts the clock at t instead of Today.
func At(t time.Time) Option { return func(s *setup) { s.at = t } }

// Running makes the env's clock move with real time from where it starts
// (testkit.NewRunningClock), for a Started env whose test waits on the flusher's real interval.
func Running() Option { return func(s *setup) { s.running = true } }

// Config is the service's configuration. Its Now, when nil, is the env's clock.
func Config(cfg app.Config) Option { return func(s *setup) { s.config = cfg } }

// Configure changes the service's configuration (after Config).
func Configure(change func(*app.Config)) Option { return func(s *setup) { change(&s.config) } }

// Started runs the service as cmd does: its background jobs running and a real HTTP server
// (Env.Server) whose every answer is checked against openapi.yaml when the test ends, both
// stopped then. Without it nothing runs in the background: the test flushes, and runs jobs,
// at moments it chooses.
func Started() Option { return func(s *setup) { s.started = true } }

// New builds the env. The service's website settings are loaded, as Start loads them.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	s := setup{at: Today}
	for _, opt := range opts {
		opt(&s)
	}
	db, dbURL := repotest.New(t)
	clock := testkit.NewClock(s.at)
	if s.running {
		clock = testkit.NewRunningClock(s.at)
	}
	if s.config.Now == nil {
		s.config.Now = clock.Now
	}
	e := &Env{T: t, DB: db, DBURL: dbURL, Clock: clock, Config: s.config, Logs: &testkit.SyncBuffer{}}
	e.Repo, e.Pools = e.openRepo()
	e.build(s.started)
	return e
}

// openRepo is the service's repository on pools of its own, as cmd opens them: the reads
// under the configured query timeout, the flush and /readyz apart. They close when the test
// ends, before its database is dropped.
func (e *Env) openRepo() (*repository.Repository, *repository.Pools) {
	e.T.Helper()
	pools, err := repository.OpenPools(context.Background(), e.DBURL, cmp.Or(e.Config.QueryTimeout, handlers.DefaultQueryTimeout))
	if err != nil {
		e.T.Fatalf("open the service's pools: %v", err)
	}
	e.T.Cleanup(func() { pools.Close() })
	return repository.NewOnPools(pools, e.Clock.Now), pools
}

// Node is another node of the same service: its own app.New (and metrics) on the same
// database and clock, as behind a load balancer; its configuration is the env's, changed by
// change (a node's own name, say).
func (e *Env) Node(change ...func(*app.Config)) *Env {
	e.T.Helper()
	n := *e
	n.Config.Registry = nil
	for _, c := range change {
		c(&n.Config)
	}
	n.Repo, n.Pools = n.openRepo()
	n.build(e.Server != nil)
	return &n
}

// In is the env reporting to t (a subtest's), so that a failure stops the right test.
func (e *Env) In(t testing.TB) *Env {
	c := *e
	c.T = t
	return &c
}

func (e *Env) build(started bool) {
	e.T.Helper()
	ctx := context.Background()
	service, err := app.New(ctx, e.Repo, e.Config, slog.New(slog.NewJSONHandler(e.Logs, nil)))
	if err != nil {
		e.T.Fatalf("build the service: %v", err)
	}
	e.App = service
	if !started {
		if err := service.Pipeline.Websites.Load(ctx); err != nil {
			e.T.Fatalf("load website settings: %v", err)
		}
		return
	}
	if err := service.Start(ctx); err != nil {
		e.T.Fatalf("start the service: %v", err)
	}
	e.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := service.Stop(ctx); err != nil {
			e.T.Errorf("stop the service: %v", err)
		}
	})
	e.serve()
}
