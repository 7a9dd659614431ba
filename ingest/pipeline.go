package ingest

import (
	"context"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Config is the collection pipeline's configuration.
type Config struct {
	Location       *time.Location // calendar days of the counters; nil means UTC
	TrustedProxies []netip.Prefix
	Geo            *GeoDB // nil: geo values are ""
	FlushInterval  time.Duration
	BufferMaxKeys  int
	// EventRateLimit is the hits a second one client address may send (bursts of twice as
	// many); 0 turns the limit off.
	EventRateLimit float64
	// MaxValuesPerDay is how many distinct values a website's statistic keeps a day; later new
	// values are counted under stats.Other. 0 means DefaultMaxValuesPerDay.
	MaxValuesPerDay int
	// VisitRowBytesPerDay is what a website's visit rows may take a day; 0 means
	// repository.DefaultRowBytesPerDay.
	VisitRowBytesPerDay int64
	// VisitTimeout ends a visit after that long without a hit (0: DefaultVisitTimeout);
	// MaxOpenVisits bounds the visits held in memory (0: DefaultMaxOpenVisits) and
	// MaxVisitsPerAddress those of one client address (0: DefaultMaxVisitsPerAddress).
	VisitTimeout        time.Duration
	MaxOpenVisits       int
	MaxVisitsPerAddress int
	// Node names this node in the realtime view's visitor counts ("" : host name and pid).
	Node string
	Now  func() time.Time // nil means time.Now
}

// Defaults of a zero Config (and of the settings reload, run by package app); README documents
// the same ones for the environment.
const (
	DefaultFlushInterval = time.Second
	DefaultSettingsTTL   = 10 * time.Second
	DefaultBufferMaxKeys = 200_000
	// DefaultEventRateLimit is generous: an office of hundreds of people browsing behind one
	// address sends tens of hits a second; a script sends thousands.
	DefaultEventRateLimit = 200
	// DefaultMaxValuesPerDay is far above the pages a large website sees in a day, and keeps a
	// client that sends a new path on every hit from adding rows for ever.
	DefaultMaxValuesPerDay = repository.DefaultMaxValuesPerDay
)

// Pipeline is the whole collection side of one node: the settings cache, the counters, the
// flusher and the HTTP collector, wired together. Its background work (the flusher's loop,
// reloading the settings) is run by the service's job list (package app).
type Pipeline struct {
	Websites  *Websites
	Counters  *Counters
	Flusher   *Flusher
	Collector *Collector
	Metrics   *Metrics
	Salts     *Salts
	Visits    *Visits
	location  *time.Location
	now       func() time.Time
}

// NewPipeline wires a pipeline on the repository; metrics go to reg.
func NewPipeline(repo *repository.Repository, cfg Config, reg prometheus.Registerer, log *slog.Logger) *Pipeline {
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.BufferMaxKeys <= 0 {
		cfg.BufferMaxKeys = DefaultBufferMaxKeys
	}
	if cfg.MaxValuesPerDay <= 0 {
		cfg.MaxValuesPerDay = DefaultMaxValuesPerDay
	}
	if cfg.VisitTimeout <= 0 {
		cfg.VisitTimeout = DefaultVisitTimeout
	}
	if cfg.MaxOpenVisits <= 0 {
		cfg.MaxOpenVisits = DefaultMaxOpenVisits
	}
	if cfg.MaxVisitsPerAddress <= 0 {
		cfg.MaxVisitsPerAddress = DefaultMaxVisitsPerAddress
	}
	if cfg.Node == "" {
		cfg.Node = nodeName()
	}
	counters := NewCounters(cfg.BufferMaxKeys)
	metrics := NewMetrics(reg, counters)
	visits := NewVisits(cfg.VisitTimeout, cfg.MaxOpenVisits, cfg.MaxVisitsPerAddress, counters, metrics)
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "analytics_open_visits", Help: "Visits open in this node's memory (at most MAX_OPEN_VISITS)."},
		func() float64 { return float64(visits.Open()) }))
	salts := NewSalts(repo)
	sites := NewWebsites(repo)
	var limiter *ratelimit.Limiter
	if cfg.EventRateLimit > 0 {
		limiter = ratelimit.New(cfg.EventRateLimit, int(2*cfg.EventRateLimit), cfg.Now)
		limiter.Register(reg, "events")
	}
	collector := &Collector{
		Websites: sites, Counters: counters, Geo: cfg.Geo, TrustedProxies: cfg.TrustedProxies,
		Location: cfg.Location, Now: cfg.Now, Metrics: metrics, Limiter: limiter, Log: log,
		Salts: salts, Visits: visits, VisitTimeout: cfg.VisitTimeout,
	}
	flusher := NewFlusher(counters, repo, cfg.FlushInterval, cfg.MaxValuesPerDay, metrics, log)
	flusher.Visits, flusher.Node, flusher.Now = visits, cfg.Node, cfg.Now
	flusher.RowBytesPerDay = cfg.VisitRowBytesPerDay
	flusher.Resolve = func(ip netip.Addr, userAgent string) (string, string, string) {
		client := ParseUserAgent(userAgent)
		return cfg.Geo.Lookup(ip).Country, client.Browser, client.Device
	}
	return &Pipeline{
		Websites:  sites,
		Counters:  counters,
		Flusher:   flusher,
		Collector: collector,
		Metrics:   metrics,
		Salts:     salts,
		Visits:    visits,
		location:  cfg.Location,
		now:       cfg.Now,
	}
}

// nodeName names this node in realtime_visitors: its host name and process id, or random
// when the host name is unknown.
func nodeName() string {
	if host, err := os.Hostname(); err == nil && host != "" {
		return host + ":" + strconv.Itoa(os.Getpid())
	}
	return uuid.NewString()
}

// RefreshSalts makes sure the salts of today and tomorrow exist and this node has them, and
// deletes the ones whose next day has ended (the salt job of app/jobs.go, and App.Start).
func (p *Pipeline) RefreshSalts(ctx context.Context) error {
	return p.Salts.Refresh(ctx, stats.Day(p.now().In(p.location)))
}

// Ready tells whether this node can take hits (GET /readyz/collect): it can while its counter
// buffer has room for one more visit, with or without the database, which it only needs to
// write them later.
func (p *Pipeline) Ready(context.Context) error {
	if p.Counters.Full() {
		return ErrFull
	}
	if !p.Salts.Has(p.now().In(p.location)) {
		return ErrNoSalt
	}
	return nil
}
