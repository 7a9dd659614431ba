package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/pages"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// Job is one piece of a node's background work.
type Job struct {
	Name   string
	Period time.Duration
	// Run is called once each Period. A failure is logged and the job runs again next period.
	Run func(context.Context) error
	// Loop, when set instead of Run, keeps its own schedule until ctx ends (the flusher's:
	// every Period, sooner when the buffer fills, later while the database fails).
	Loop func(context.Context)
}

// How often the periodic jobs run. Flush ids are kept a week: no retry of a flush comes later.
const (
	forgetBatchesEvery = time.Hour
	batchIDRetention   = 7 * 24 * time.Hour
	rollUpEvery        = time.Minute
	// reportsEvery: each look for reports that just became due, and for failed ones whose next
	// attempt has come, is two small queries.
	reportsEvery = time.Minute
	alertsEvery  = time.Minute
	// Counts of password attempts per account and website: a few rows, each gone within hours
	// of its last attempt.
	forgetAttemptsEvery = time.Hour
	// The API keys' "last used" is shown to the minute: written in one statement every 10 s.
	recordKeyUsesEvery = 10 * time.Second
	// Used and expired links of accounts are kept a day (the reset limit counts the last hour).
	forgetLinksEvery = time.Hour
	linkRetention    = 24 * time.Hour
	// The salts of today and tomorrow are made sure of every minute, so that a node that
	// started without the database gets today's soon after it answers, and every node has
	// tomorrow's long before midnight.
	saltsEvery = time.Minute
	// Realtime rows are read for the last 30 minutes only; deleting older ones each minute
	// keeps the tables to about that.
	forgetRealtimeEvery = time.Minute
	forgetMinutesEvery  = time.Hour
	// The visits' rows have a partition a day, made a week ahead: a run an hour leaves days
	// to notice a failing one; a closed day is rewritten in key order, one a run.
	visitRowPartitionsEvery = time.Hour
)

// FACTS_RETENTION: the days the visits' rows are kept (docs/filters.md). At least a
// month, so that the exact (unsampled) filtered ranges of up to 31 days have their rows; at
// most ten years.
const (
	DefaultFactsRetention = 400
	MinFactsRetention     = website.MinRetentionDays
	MaxFactsRetention     = website.MaxRetentionDays
)

// CheckFactsRetention refuses a FACTS_RETENTION out of its bounds.
func CheckFactsRetention(days int) error {
	if days < MinFactsRetention || days > MaxFactsRetention {
		return fmt.Errorf("FACTS_RETENTION: %d days is out of bounds: it must be %d to %d days", days, MinFactsRetention, MaxFactsRetention)
	}
	return nil
}

// ensureVisitRowPartitions makes the partitions of the days from two days before today (TZ)
// to a week after it: a website's own zone may be up to 26 hours behind TZ, and its rows
// carry its days.
func ensureVisitRowPartitions(ctx context.Context, repo *repository.Repository, today time.Time) error {
	return repo.EnsureVisitRowPartitions(ctx, today.AddDate(0, 0, -2), today.AddDate(0, 0, 7))
}

// keepVisitRowPartitions is the job "keep visit row partitions": the partitions made ahead,
// the days past FACTS_RETENTION (today included) dropped, the rows of websites that keep
// fewer days deleted past their own retention, and the oldest closed day not yet
// rewritten in key order rewritten (no flush writes a day once the day after it is over in
// every website's zone: a visit goes on past midnight for VISIT_TIMEOUT, at most 4 hours, and
// a website's zone may be up to 26 hours behind TZ).
func (a *App) keepVisitRowPartitions(ctx context.Context) error {
	today := a.Pipeline.Collector.Today()
	if err := ensureVisitRowPartitions(ctx, a.repo, today); err != nil {
		return err
	}
	// Dropped before a rewrite, which would be wasted on a day about to go.
	if _, err := a.repo.DropVisitRowPartitions(ctx, today.AddDate(0, 0, 1-a.cfg.FactsRetention)); err != nil {
		return err
	}
	if err := a.forgetPastRetention(ctx, today); err != nil {
		return err
	}
	_, err := a.repo.ClusterVisitRowPartition(ctx, today.AddDate(0, 0, -3))
	return err
}

// retentionDaysPerRun bounds the days of one website's visit rows a run of the partitions'
// job deletes (a day of a large website is some 100,000 rows): a website that shortens its
// retention from 400 days to 32 has them gone within a day of hourly runs.
const retentionDaysPerRun = 31

// forgetPastRetention deletes the visit rows of each website that keeps them fewer days than
// FACTS_RETENTION (retention_days, today of TZ included) past its own retention; its counters
// stay (docs/retention.md).
func (a *App) forgetPastRetention(ctx context.Context, today time.Time) error {
	sites, err := a.repo.ShortRetentions(ctx, a.cfg.FactsRetention)
	if err != nil {
		return err
	}
	for _, s := range sites {
		if _, err := a.repo.ForgetVisitRows(ctx, s.ID, today.AddDate(0, 0, 1-s.Days), retentionDaysPerRun); err != nil {
			return err
		}
	}
	return nil
}

// jobList is every background job of a node, in one place.
func (a *App) jobList() []Job {
	p, repo := a.Pipeline, a.repo
	return []Job{
		{Name: "flush counters", Period: a.cfg.FlushInterval, Loop: p.Flusher.Run},
		{Name: "reload website settings", Period: a.cfg.SettingsTTL, Run: p.Websites.Load},
		{Name: "forget old flush ids", Period: forgetBatchesEvery, Run: func(ctx context.Context) error {
			return repo.ForgetBatches(ctx, a.cfg.Now().Add(-batchIDRetention))
		}},
		// Flushes write the weekly and monthly rollups of ended periods only; this writes them
		// when a period ends (a query only then, or after a restart).
		{Name: "roll up ended weeks and months", Period: rollUpEvery, Run: func(ctx context.Context) error {
			return repo.RollUp(ctx, p.Collector.Today())
		}},
		{Name: "send e-mail reports", Period: reportsEvery, Run: a.Reporter.Tick},
		// A spike is worth knowing within a minute; each look is a query per alert that may be
		// due (most are not: their window holds).
		{Name: "send traffic alerts", Period: alertsEvery, Run: a.Alerter.Tick},
		{Name: "forget forgiven password attempts", Period: forgetAttemptsEvery, Run: func(ctx context.Context) error {
			return repo.ForgetAttempts(ctx, pages.ForgiveEvery)
		}},
		{Name: "record API key use", Period: recordKeyUsesEvery, Run: a.KeyUses.Flush},
		{Name: "send account mail", Period: time.Second, Loop: a.outbox.Run},
		{Name: "forget expired account links", Period: forgetLinksEvery, Run: func(ctx context.Context) error {
			before := a.cfg.Now().Add(-linkRetention)
			return errors.Join(repo.ForgetLinks(ctx, before), repo.ForgetEmailChanges(ctx, before))
		}},
		// Creates the salts of today and tomorrow, deletes those (and the day membership kept
		// under them) whose next day has ended.
		{Name: "rotate visitor salts", Period: saltsEvery, Run: p.RefreshSalts},
		{Name: "forget old realtime data", Period: forgetRealtimeEvery, Run: func(ctx context.Context) error {
			return repo.ForgetRealtime(ctx, a.cfg.Now())
		}},
		{Name: "forget old minutes", Period: forgetMinutesEvery, Run: func(ctx context.Context) error {
			return repo.ForgetMinutes(ctx, a.cfg.Now())
		}},
		{Name: "keep visit row partitions", Period: visitRowPartitionsEvery, Run: a.keepVisitRowPartitions},
	}
}

// Jobs lists the node's background jobs, for the log and the tests.
func (a *App) Jobs() []Job { return a.jobs.jobs }

// runner starts and stops a list of jobs, and exports when each last succeeded and how long
// its last run took.
type runner struct {
	jobs        []Job
	log         *slog.Logger
	lastSuccess *prometheus.GaugeVec
	duration    *prometheus.GaugeVec
	failures    *prometheus.CounterVec
	cancel      context.CancelFunc
	loops       sync.WaitGroup // jobs with a Loop
	periodic    sync.WaitGroup // jobs with a Run
}

func newRunner(jobs []Job, reg prometheus.Registerer, log *slog.Logger) *runner {
	r := &runner{
		jobs: jobs,
		log:  log,
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "analytics_job_last_success_timestamp_seconds",
			Help: "When each periodic background job last finished without error (Unix time).",
		}, []string{"job"}),
		duration: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "analytics_job_last_duration_seconds",
			Help: "How long each periodic background job's last run took.",
		}, []string{"job"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "analytics_job_failures_total",
			Help: "Runs of each periodic background job that failed (each runs again next period).",
		}, []string{"job"}),
	}
	reg.MustRegister(r.lastSuccess, r.duration, r.failures)
	return r
}

// start runs every job in its own goroutine until stop; the jobs outlive ctx's cancellation,
// as the service's shutdown stops them only after the HTTP server has stopped.
func (r *runner) start(ctx context.Context) {
	background, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	for _, job := range r.jobs {
		if job.Loop != nil {
			r.loops.Add(1)
			go func() { defer r.loops.Done(); job.Loop(background) }()
			continue
		}
		r.periodic.Add(1)
		go func() { defer r.periodic.Done(); r.every(background, job) }()
	}
}

// every runs job each period until ctx ends.
func (r *runner) every(ctx context.Context, job Job) {
	ticker := time.NewTicker(job.Period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.runOnce(ctx, job)
		}
	}
}

func (r *runner) runOnce(ctx context.Context, job Job) {
	start := time.Now()
	err := job.Run(ctx)
	r.duration.WithLabelValues(job.Name).Set(time.Since(start).Seconds())
	switch {
	case err == nil:
		r.lastSuccess.WithLabelValues(job.Name).SetToCurrentTime()
	case ctx.Err() == nil: // a job cut short by the shutdown has not failed
		r.failures.WithLabelValues(job.Name).Inc()
		r.log.Warn(job.Name+" failed; will retry", "job", job.Name, "error", err)
	}
}

// stop tells every job to end and waits for them: for a loop until it returns (the flusher's
// last write must be over before the counters are drained), for the others until ctx ends.
func (r *runner) stop(ctx context.Context) {
	if r.cancel == nil {
		return // never started
	}
	r.cancel()
	r.loops.Wait()
	done := make(chan struct{})
	go func() { r.periodic.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
