package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
)

// StatsWriter writes one batch of counts, at most once per batch id, keeping at most maxValues
// distinct values a website's statistic and day (repository.AddStatsCapped).
type StatsWriter interface {
	AddStatsCapped(ctx context.Context, batchID string, counts []repository.StatCount, maxValues int) (repository.Added, error)
}

// batch is counts taken from the live map, with the id that makes their write idempotent.
type batch struct {
	id     string
	counts []repository.StatCount
}

// Flusher drains the counters into the database every interval (or sooner when they grow past
// half their bound). A failed write keeps its batch, with the same id, and is retried with
// backoff; meanwhile new hits keep aggregating in the live map, so at most one batch of unknown
// fate exists at a time and nothing is counted twice or dropped.
type Flusher struct {
	counters  *Counters
	writer    StatsWriter
	interval  time.Duration
	maxWait   time.Duration
	maxValues int // distinct values a website's statistic keeps a day; past them, stats.Other
	metrics   *Metrics
	log       *slog.Logger

	// mu makes Flush safe to call while Run runs (tests, Drain); it guards the two fields below.
	mu       sync.Mutex
	pending  *batch
	failures int
}

// NewFlusher wires a flusher that keeps at most maxValues distinct values a website's statistic
// and day (MAX_VALUES_PER_DAY); metrics may be nil.
func NewFlusher(counters *Counters, writer StatsWriter, interval time.Duration, maxValues int, metrics *Metrics, log *slog.Logger) *Flusher {
	// Retries back off to at most a few seconds: a database that is back must be used soon,
	// since a full buffer answers 503 until the failing batch is written.
	return &Flusher{counters: counters, writer: writer, interval: interval, maxWait: max(interval, 5*time.Second),
		maxValues: maxValues, metrics: metrics, log: log}
}

// Run flushes until ctx ends. It does not flush at the end: call Drain after the HTTP server
// has stopped accepting events.
func (f *Flusher) Run(ctx context.Context) {
	timer := time.NewTimer(f.interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-f.counters.soon:
			if f.failing() {
				continue // a failing database: wait for the backoff, not for the next hit
			}
		}
		err := f.Flush(ctx)
		wait := f.interval
		if err != nil {
			wait = f.backoff()
			if ctx.Err() == nil {
				f.log.Warn("stats flush failed; will retry the same batch", "error", err, "retry_in", wait.String())
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// backoff doubles the wait after each consecutive failure, up to maxWait.
func (f *Flusher) backoff() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	wait := f.interval
	for i := 0; i < f.failures && wait < f.maxWait; i++ {
		wait *= 2
	}
	return min(wait, f.maxWait)
}

func (f *Flusher) failing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending != nil
}

// Flush writes the pending batch, or takes a new one from the live counters and writes it.
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		f.pending = toBatch(f.counters.take())
		if len(f.pending.counts) == 0 {
			f.pending = nil
			f.counters.release(0)
			return nil
		}
	}
	start := time.Now()
	added, err := f.writer.AddStatsCapped(ctx, f.pending.id, f.pending.counts, f.maxValues)
	f.metrics.observeFlush(len(f.pending.counts), time.Since(start), added.Overflow, err)
	if err != nil {
		f.failures++
		return fmt.Errorf("flush %d counters: %w", len(f.pending.counts), err)
	}
	f.failures = 0
	f.counters.release(len(f.pending.counts))
	f.pending = nil
	return nil
}

// Drain flushes until nothing is left in memory or ctx ends (shutdown: the HTTP server has
// stopped, so no more hits arrive). It retries a failing database until then.
func (f *Flusher) Drain(ctx context.Context) error {
	for {
		if !f.failing() && f.counters.Size() == 0 {
			return nil
		}
		err := f.Flush(ctx)
		if err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("drain: %d counters not written: %w", f.counters.Size(), err)
		case <-time.After(f.backoff()):
		}
	}
}

// toBatch turns the taken counters into a batch. It does not sort them: AddStats writes rows in
// key order itself (ORDER BY in its INSERTs), which is what keeps concurrent writers from
// deadlocking, and sorting 20,000 keys here cost about 15 ms of a core every second, a stall
// that showed in the tail latency of /api/event.
func toBatch(counts map[Key]int64) *batch {
	out := make([]repository.StatCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, repository.StatCount{WebsiteID: k.WebsiteID, Name: string(k.Name), Date: dayDate(k.Day), Value: k.Value, Count: n})
	}
	return &batch{id: uuid.NewString(), counts: out}
}
