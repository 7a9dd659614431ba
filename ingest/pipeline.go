package ingest

import (
	"context"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
)

// Config is the collection pipeline's configuration.
type Config struct {
	Location       *time.Location // calendar days of the counters; nil means UTC
	TrustedProxies []netip.Prefix
	Geo            *GeoDB // nil: geo values are ""
	FlushInterval  time.Duration
	SettingsTTL    time.Duration
	BufferMaxKeys  int
	// EventRateLimit is the hits a second one client address may send (bursts of twice as
	// many); 0 turns the limit off.
	EventRateLimit float64
	Now            func() time.Time // nil means time.Now
}

// Defaults of a zero Config; cmd/analytics documents the same ones for its environment.
const (
	DefaultFlushInterval = time.Second
	DefaultSettingsTTL   = 10 * time.Second
	DefaultBufferMaxKeys = 200_000
	// DefaultEventRateLimit is generous: an office of hundreds of people browsing behind one
	// address sends tens of hits a second; a script sends thousands.
	DefaultEventRateLimit = 200
)

// Pipeline is the whole collection side of one node: the settings cache, the counters, the
// flusher and the HTTP collector, wired together.
type Pipeline struct {
	Sites     *Sites
	Counters  *Counters
	Flusher   *Flusher
	Collector *Collector
	Metrics   *Metrics

	repo        *repository.Repository
	log         *slog.Logger
	ttl         time.Duration
	today       func() time.Time
	stop        context.CancelFunc
	flusherDone chan struct{}
	jobs        sync.WaitGroup
}

// Job is a periodic background task of a node: the pipeline's own (settings reload, flush-id
// cleanup) and those handed to Start, such as the e-mail reports.
type Job struct {
	Name   string
	Period time.Duration
	Run    func(context.Context) error
}

// batchIDRetention is how long flush ids are kept: no retry of a flush comes later than this.
const batchIDRetention = 7 * 24 * time.Hour

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
	if cfg.SettingsTTL <= 0 {
		cfg.SettingsTTL = DefaultSettingsTTL
	}
	if cfg.BufferMaxKeys <= 0 {
		cfg.BufferMaxKeys = DefaultBufferMaxKeys
	}
	counters := NewCounters(cfg.BufferMaxKeys)
	metrics := NewMetrics(reg, counters)
	sites := NewSites(repo)
	var limiter *ratelimit.Limiter
	if cfg.EventRateLimit > 0 {
		limiter = ratelimit.New(cfg.EventRateLimit, int(2*cfg.EventRateLimit), cfg.Now)
		limiter.Register(reg, "events")
	}
	collector := &Collector{
		Sites: sites, Counters: counters, Geo: cfg.Geo, TrustedProxies: cfg.TrustedProxies,
		Location: cfg.Location, Now: cfg.Now, Metrics: metrics, Limiter: limiter, Log: log,
	}
	return &Pipeline{
		repo:      repo,
		log:       log,
		ttl:       cfg.SettingsTTL,
		today:     collector.today,
		Sites:     sites,
		Counters:  counters,
		Flusher:   NewFlusher(counters, repo, cfg.FlushInterval, metrics, log),
		Collector: collector,
		Metrics:   metrics,
	}
}

// Start loads the website settings, then keeps them fresh, flushes and runs the other jobs in
// the background until Stop. It fails when the settings cannot be loaded: a node must not
// answer 404 for every site.
func (p *Pipeline) Start(ctx context.Context, more ...Job) error {
	if err := p.Sites.Load(ctx); err != nil {
		return err
	}
	background, stop := context.WithCancel(context.WithoutCancel(ctx))
	p.stop = stop
	p.flusherDone = make(chan struct{})
	jobs := append([]Job{
		{Name: "reload website settings", Period: p.ttl, Run: p.Sites.Load},
		{Name: "forget old flush ids", Period: time.Hour, Run: func(ctx context.Context) error {
			return p.repo.ForgetBatches(ctx, time.Now().Add(-batchIDRetention))
		}},
		// Flushes write the weekly and monthly rollups of ended periods only; this writes them
		// when a period ends (a query only then, or after a restart).
		{Name: "roll up ended weeks and months", Period: time.Minute, Run: func(ctx context.Context) error {
			return p.repo.RollUp(ctx, p.today())
		}},
	}, more...)
	for _, job := range jobs {
		p.jobs.Add(1)
		go func() { defer p.jobs.Done(); every(background, job, p.log) }()
	}
	go func() { p.Flusher.Run(background); close(p.flusherDone) }()
	return nil
}

// every runs a background job each period until ctx ends. A failure is logged and the job
// runs again next period (a failed settings reload keeps the previous settings).
func every(ctx context.Context, job Job, log *slog.Logger) {
	period, name := job.Period, job.Name
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if err := job.Run(ctx); err != nil && ctx.Err() == nil {
				log.Warn(name+" failed; will retry", "error", err)
			}
		}
	}
}

// Ready tells whether this node can take hits (GET /readyz/collect): it can while its counter
// buffer has room for one more visit, with or without the database, which it only needs to
// write them later.
func (p *Pipeline) Ready(context.Context) error {
	if p.Counters.Full() {
		return ErrFull
	}
	return nil
}

// Stop ends the background work (a job that is running is told to stop and waited for, until
// ctx ends) and writes every counter still in memory, retrying a failing database until ctx
// ends. Call it after the HTTP server has stopped accepting hits.
func (p *Pipeline) Stop(ctx context.Context) error {
	if p.stop != nil {
		p.stop()
		<-p.flusherDone
		jobsDone := make(chan struct{})
		go func() { p.jobs.Wait(); close(jobsDone) }()
		select {
		case <-jobsDone:
		case <-ctx.Done():
		}
	}
	return p.Flusher.Drain(ctx)
}
