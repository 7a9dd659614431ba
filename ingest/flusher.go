package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
)

// BatchWriter writes one flush (counters, day membership, visit rows, realtime rows), at most once per
// batch id, keeping at most maxValues distinct values a website's statistic and day
// (repository.AddVisitBatch).
type BatchWriter interface {
	AddVisitBatch(ctx context.Context, b repository.VisitBatch, maxValues int) (repository.Added, error)
}

// realtimeVisitorsWithin is how recent a visitor's last hit is for the realtime view.
const realtimeVisitorsWithin = 5 * time.Minute

// Flusher drains the counters into the database every interval (or sooner when they grow past
// half their bound). A failed write keeps its batch, with the same id, and is retried with
// backoff; meanwhile new hits keep aggregating in the live map, so at most one batch of unknown
// fate exists at a time and nothing is counted twice or dropped.
type Flusher struct {
	counters  *Counters
	writer    BatchWriter
	interval  time.Duration
	maxWait   time.Duration
	maxValues int // distinct values a website's statistic keeps a day; past them, stats.Other
	metrics   *Metrics
	log       *slog.Logger
	// Visits, when set, emit their deltas into the counters before each batch is taken, and
	// give the node's current visitors; Node names this node in realtime_visitors. Now is
	// the clock of both (nil: time.Now).
	Visits *Visits
	Node   string
	Now    func() time.Time
	// Resolve turns the address and user agent of a realtime pageview into its country,
	// browser and device (nil: all "").
	Resolve func(ip netip.Addr, userAgent string) (country, browser, device string)

	// mu makes Flush safe to call while Run runs (tests, Drain); it guards the fields below.
	mu      sync.Mutex
	pending *repository.VisitBatch
	// pendingHeld is how many keys the pending batch holds against the counters' bound: all
	// it took, zero sums dropped since included.
	pendingHeld int
	failures    int
	// hadVisitors: the last batch wrote current visitors, so the next one must write them
	// even when there are none left (to clear them).
	hadVisitors bool
}

// NewFlusher wires a flusher that keeps at most maxValues distinct values a website's statistic
// and day (MAX_VALUES_PER_DAY); metrics may be nil.
func NewFlusher(counters *Counters, writer BatchWriter, interval time.Duration, maxValues int, metrics *Metrics, log *slog.Logger) *Flusher {
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

// Flush writes the pending batch, or takes a new one from the live counters (after the visits
// emitted their deltas into them) and writes it.
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		now := f.now()
		if f.Visits != nil {
			f.Visits.Collect(now)
		}
		t := f.counters.take()
		held := t.size()
		b := toBatch(t, f.Resolve)
		if f.Visits != nil && f.Node != "" {
			b.Node, b.At = f.Node, now
			for site, n := range f.Visits.Current(now, realtimeVisitorsWithin) {
				b.Visitors = append(b.Visitors, repository.NodeVisitors{WebsiteID: site, Visitors: n})
			}
		}
		if len(b.Counts) == 0 && len(b.Members) == 0 && b.RowCount() == 0 && len(b.Visitors) == 0 && !f.hadVisitors {
			f.counters.release(held) // keys whose deltas all cancelled out
			return nil
		}
		f.hadVisitors = len(b.Visitors) > 0
		f.pending, f.pendingHeld = b, held
	}
	rows := len(f.pending.Counts) + len(f.pending.Members) + f.pending.RowCount()
	start := time.Now()
	added, err := f.writer.AddVisitBatch(ctx, *f.pending, f.maxValues)
	f.metrics.observeFlush(len(f.pending.Counts), time.Since(start), added.Overflow, err)
	f.metrics.dropRows(added.RowsDropped)
	f.metrics.cutRow(rowPartWrite, added.RowWritesCut)
	f.metrics.propsOverLimit(added.PropsOverCap)
	if err != nil {
		f.failures++
		return fmt.Errorf("flush %d counters: %w", rows, err)
	}
	f.failures = 0
	f.counters.release(f.pendingHeld)
	f.pending, f.pendingHeld = nil, 0
	return nil
}

func (f *Flusher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// Drain flushes until nothing is left in memory or ctx ends (shutdown: the HTTP server has
// stopped, so no more hits arrive). It retries a failing database until then.
func (f *Flusher) Drain(ctx context.Context) error {
	if f.Visits != nil {
		// A restart ends the visits in progress: what they did goes to the counters.
		f.Visits.EndAll()
	}
	// Nothing more will come for the rows that wait for their visit's values or end.
	f.counters.releaseWaiting()
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

// toBatch turns what was taken into a batch. Keys whose deltas cancelled out are dropped (the
// tables keep count > 0). It does not sort the counters: the stats writer (AddVisitBatch) writes
// rows in key order itself (ORDER BY in its INSERTs), which is what keeps concurrent writers
// from deadlocking, and sorting 20,000 keys here cost about 15 ms of a core every second, a
// stall that showed in the tail latency of /api/event.
func toBatch(t taken, resolve func(netip.Addr, string) (string, string, string)) *repository.VisitBatch {
	b := &repository.VisitBatch{ID: uuid.NewString(), Counts: make([]repository.StatCount, 0, len(t.counts)), Rows: t.rows}
	for k, n := range t.counts {
		if n == 0 {
			continue
		}
		b.Counts = append(b.Counts, repository.StatCount{WebsiteID: k.WebsiteID, Name: string(k.Name), Date: dayDate(k.Day), Value: k.Value, Count: n})
	}
	for k, bits := range t.members {
		b.Members = append(b.Members, repository.Member{WebsiteID: k.websiteID, Day: dayDate(k.day), Key: k.key, Visited: bits.visited, Hours: bits.hours})
	}
	for k, n := range t.minutes {
		b.Minutes = append(b.Minutes, repository.RealtimeMinute{WebsiteID: k.websiteID, Minute: time.Unix(k.minute*60, 0).UTC(), Pageviews: n})
	}
	for site, r := range t.recent {
		first := max(0, r.n-recentMax)
		for i := first; i < r.n; i++ {
			v := r.views[i%recentMax]
			p := repository.RecentPageview{WebsiteID: site, At: time.Unix(0, v.at).UTC(), Page: v.page, Referrer: v.referrer}
			if resolve != nil {
				p.Country, p.Browser, p.Device = resolve(v.ip, v.userAgent)
			}
			b.Recent = append(b.Recent, p)
		}
	}
	return b
}
