// Package app is the composition root: New builds every part of the service once (the API, the
// HTML pages, collection, e-mail reports), mounts them on one handler and owns the one list of
// background jobs. cmd/analytics, the end-to-end tests and the benchmarks all run the product
// through New, so a test runs the service as it ships.
package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/handlers"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/pages"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// Config is everything the service is built from. cmd/analytics fills it from the environment
// (README lists the variables and their defaults); a zero field means the part's own default,
// and a zero limit is no limit.
type Config struct {
	// Location is the time zone whose calendar days the stats count (TZ); nil means UTC.
	Location *time.Location
	// PublicURL is the service's address as people and e-mail readers reach it (PUBLIC_URL),
	// path prefix included and no trailing slash; every link the service writes is under it.
	// nil means unknown: see web.Links, and no e-mail report is sent.
	PublicURL *url.URL
	// AllowedHosts are the hosts whose address the pages may write absolute links to when
	// PublicURL is nil (ALLOWED_HOSTS); other requests get paths.
	AllowedHosts []string
	// TrustedProxies are the peers whose X-Forwarded-For names the client address
	// (TRUSTED_PROXIES), for collection and for every per-client limit, and whose
	// X-Forwarded-Proto and X-Forwarded-Host name the address links are built from.
	TrustedProxies []netip.Prefix

	// APIRateLimit is the sustained API requests a second per key (bursts of twice as many).
	APIRateLimit float64
	// AuthFailLimit is the sustained failed API authentications a second per client address
	// (bursts of ten times as many).
	AuthFailLimit float64
	// EventRateLimit is the hits a second one client address may send (bursts of twice).
	EventRateLimit float64

	Geo           *ingest.GeoDB // nil: continent, country and city are ""
	FlushInterval time.Duration // how often counters are written; 0: ingest.DefaultFlushInterval
	SettingsTTL   time.Duration // how often website settings are reloaded; 0: ingest.DefaultSettingsTTL
	BufferMaxKeys int           // counters held before /api/event answers 503; 0: ingest.DefaultBufferMaxKeys
	// MaxValuesPerDay is how many distinct values a website's statistic keeps a day
	// (MAX_VALUES_PER_DAY); later new values are counted under "(other)". 0 means
	// ingest.DefaultMaxValuesPerDay: there is always a limit.
	MaxValuesPerDay int
	// VisitRowBytesPerDay is what a website's visit rows may take a day
	// (VISIT_ROW_BYTES_PER_DAY); 0 means repository.DefaultRowBytesPerDay.
	VisitRowBytesPerDay int64
	// VisitTimeout ends a visit after that long without a hit (VISIT_TIMEOUT); 0 means
	// ingest.DefaultVisitTimeout. MaxOpenVisits bounds the visits a node holds in memory
	// (MAX_OPEN_VISITS); 0 means ingest.DefaultMaxOpenVisits.
	VisitTimeout  time.Duration
	MaxOpenVisits int
	// MaxVisitsPerAddress bounds the open visits of one client address; 0 means
	// ingest.DefaultMaxVisitsPerAddress.
	MaxVisitsPerAddress int
	// Node names this node in the realtime view's visitor counts; "" means its host name and
	// process id.
	Node string
	// FactsRetention is how many days (today included) the visits' rows for filters are kept
	// (FACTS_RETENTION), MinFactsRetention..MaxFactsRetention; 0 means
	// DefaultFactsRetention. The daily counters are kept for ever.
	FactsRetention int

	// QueryTimeout bounds the API's stats requests (QUERY_TIMEOUT; the statements of the
	// repository's pool of reads are bounded by repository.OpenPools); 0 means
	// handlers.DefaultQueryTimeout. MaxQueriesPerKey and MaxQueriesPerWebsite bound the API's
	// stats requests in flight of one key and of one website (MAX_QUERIES_PER_KEY,
	// MAX_QUERIES_PER_WEBSITE); 0 means the defaults.
	QueryTimeout                           time.Duration
	MaxQueriesPerKey, MaxQueriesPerWebsite int

	// Mailer sends the e-mail reports (SMTP_URL); nil sends none.
	Mailer *reports.Mailer
	// ReportPeriod is reports.Month (the default) or reports.Week.
	ReportPeriod string

	// Now is the clock of every part; nil means time.Now.
	Now func() time.Time
	// PasswordHasher hashes website passwords; nil means argon2id with production parameters.
	PasswordHasher func(password string) (string, error)
	// FailureDelay is the least time a wrong password or sign-in takes to answer on the pages;
	// 0 means pages.DefaultFailureDelay.
	FailureDelay time.Duration
	// MetricsAllow are the client addresses that may read /metrics (METRICS_ALLOW); nil means
	// DefaultMetricsAllow.
	MetricsAllow []netip.Prefix
	// Registry collects the metrics served at /metrics; nil means a new one.
	Registry *prometheus.Registry
	// OIDC is single sign-on; off without an issuer.
	OIDC sso.Config
}

// App is one node of the service: its handler and its background jobs.
type App struct {
	// Handler serves every path of the service.
	Handler  http.Handler
	Pipeline *ingest.Pipeline
	Reporter *reports.Reporter
	Alerter  *reports.Alerter
	Registry *prometheus.Registry
	// KeyUses holds the API keys' uses noted on this node until the job writes them.
	KeyUses *handlers.KeyUses

	repo   *repository.Repository
	cfg    Config
	jobs   *runner
	outbox *account.Outbox
}

// New builds the service on repo. It reads the pages' signing keys and the salts of the days
// (creating them when missing), so the database must answer. Nothing runs in the background until Start.
func New(ctx context.Context, repo *repository.Repository, cfg Config, log *slog.Logger) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = ingest.DefaultFlushInterval
	}
	if cfg.SettingsTTL <= 0 {
		cfg.SettingsTTL = ingest.DefaultSettingsTTL
	}
	if cfg.MetricsAllow == nil {
		cfg.MetricsAllow = DefaultMetricsAllow
	}
	if cfg.FactsRetention == 0 {
		cfg.FactsRetention = DefaultFactsRetention
	}
	if err := CheckFactsRetention(cfg.FactsRetention); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
		cfg.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	reg := cfg.Registry

	// The collector writes through a pool of its own (when the repository has one), so that
	// hits are written while the reads are slow.
	pipeline := ingest.NewPipeline(repo.Collection(), ingest.Config{
		Location: cfg.Location, TrustedProxies: cfg.TrustedProxies, Geo: cfg.Geo,
		FlushInterval: cfg.FlushInterval, BufferMaxKeys: cfg.BufferMaxKeys,
		EventRateLimit: cfg.EventRateLimit, MaxValuesPerDay: cfg.MaxValuesPerDay, VisitRowBytesPerDay: cfg.VisitRowBytesPerDay, Now: cfg.Now,
		VisitTimeout: cfg.VisitTimeout, MaxOpenVisits: cfg.MaxOpenVisits, MaxVisitsPerAddress: cfg.MaxVisitsPerAddress, Node: cfg.Node,
	}, reg, log)
	// The salts of the days, before the first hit: without today's, collection answers 503.
	if err := pipeline.RefreshSalts(ctx); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	// The partitions of the visits' rows, from yesterday (a visit that crossed midnight) to
	// a week ahead: a row whose day has none is not written.
	if err := ensureVisitRowPartitions(ctx, repo, pipeline.Collector.Today()); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	// The website rules, once for every way of changing a website: each change refreshes this
	// node's settings cache at once, so its collector knows a new website before the next reload.
	websites := website.NewService(repo, cfg.PasswordHasher, pipeline.Websites.Refresh, log, cfg.Location, cfg.FactsRetention)

	// Where every link the service writes begins: one rule for the API, the pages and the
	// unsubscribe page.
	links := web.Links{Public: cfg.PublicURL, AllowedHosts: cfg.AllowedHosts, TrustedProxies: cfg.TrustedProxies}

	keyUses := handlers.NewKeyUses(repo, cfg.Now)
	api, err := handlers.New(handlers.Options{
		Repo: repo, Websites: websites, Logger: log, Registry: reg, Now: cfg.Now, Location: cfg.Location,
		RateLimit: cfg.APIRateLimit, AuthFailLimit: cfg.AuthFailLimit,
		TrustedProxies: cfg.TrustedProxies, Links: links, KeyUses: keyUses,
		QueryTimeout: cfg.QueryTimeout, MaxQueriesPerKey: cfg.MaxQueriesPerKey, MaxQueriesPerWebsite: cfg.MaxQueriesPerWebsite,
	})
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	// Invitation and reset mail, like reports, needs both the mail server and the address
	// its links point to.
	var accountMailer *reports.Mailer
	if cfg.PublicURL != nil {
		accountMailer = cfg.Mailer
	}
	outbox := account.NewOutbox(accountMailer, log)
	html, err := pages.New(ctx, pages.Options{
		Repo: repo, Websites: websites, Logger: log, Location: cfg.Location, Now: cfg.Now,
		Links: links, TrustedProxies: cfg.TrustedProxies, Registry: reg,
		FailureDelay: cfg.FailureDelay, Outbox: outbox, SSO: sso.New(cfg.OIDC),
		QueryTimeout: cmp.Or(cfg.QueryTimeout, handlers.DefaultQueryTimeout),
	})
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	reporter := reports.New(reports.Config{
		Repo: repo, Location: cfg.Location, Links: reports.Links{Base: cfg.PublicURL}, Mailer: cfg.Mailer,
		Kind: cfg.ReportPeriod, Now: cfg.Now, Log: log,
	}, reg)
	unsubscribe := &reports.Unsubscribe{Repo: repo, Websites: websites, Links: links, Log: log}
	// Traffic alerts go out as the reports do: the same mail server, links and claims.
	alerter := reports.NewAlerter(reports.Config{
		Repo: repo, Location: cfg.Location, Links: reports.Links{Base: cfg.PublicURL}, Mailer: cfg.Mailer, Now: cfg.Now, Log: log,
	}, reg)
	alertLinks := &reports.AlertLinks{Repo: repo, Links: links, Now: cfg.Now, Log: log}

	a := &App{Pipeline: pipeline, Reporter: reporter, Alerter: alerter, Registry: reg, repo: repo, cfg: cfg,
		KeyUses: keyUses, outbox: outbox}
	a.Handler = mount(routes{
		api: api, pages: html, unsubscribe: unsubscribe, alertLinks: alertLinks, collector: pipeline.Collector,
		ready: repo.Ping, collectReady: pipeline.Ready, registry: reg,
		metricsAllow: cfg.MetricsAllow, trustedProxies: cfg.TrustedProxies, links: links,
	})
	a.jobs = newRunner(a.jobList(), reg, log)
	return a, nil
}

// Start loads the website settings, then runs every background job until Stop. It fails when
// the settings cannot be loaded: a node must not treat every website as unknown.
func (a *App) Start(ctx context.Context) error {
	if err := a.Pipeline.Websites.Load(ctx); err != nil {
		return err
	}
	a.jobs.start(ctx)
	return nil
}

// Stop ends the background jobs (a running one is told to stop and waited for, until ctx
// ends) and writes every counter still in memory, retrying a failing database until ctx ends.
// Call it after the HTTP server has stopped accepting requests.
func (a *App) Stop(ctx context.Context) error {
	a.jobs.stop(ctx)
	return a.Pipeline.Flusher.Drain(ctx)
}
