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
//
// A write that PostgreSQL refuses for what it carries (repository.RefusedContent: a value it
// cannot store, a size past its limits) would fail the same way for ever, and every later hit
// of every website with it: such a batch is split in two halves, each written on its own
// under a new id (the refused write was rolled back whole), and so on down to the one item
// that is refused, which is dropped and counted (analytics_flush_items_dropped_total). A
// batch of n items with one such item costs about 2 log2(n) more writes.
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
	// RowBytesPerDay is what a website's visit rows may take a day (VISIT_ROW_BYTES_PER_DAY;
	// 0: repository.DefaultRowBytesPerDay).
	RowBytesPerDay int64
	// Resolve turns the address and user agent of a realtime pageview into its country,
	// browser and device (nil: all "").
	Resolve func(ip netip.Addr, userAgent string) (country, browser, device string)

	// mu makes Flush safe to call while Run runs (tests, Drain); it guards the fields below.
	mu sync.Mutex
	// pending is what is left to write of the batch taken last, the next first: that batch,
	// or the parts it was split into (refused). Each part keeps its id until it is written.
	pending []*repository.VisitBatch
	// pendingHeld is how many keys the pending batch holds against the counters' bound: all
	// it took, zero sums dropped since included.
	pendingHeld int
	failures    int
	// hadVisitors: the last batch wrote current visitors, so the next one must write them
	// even when there are none left (to clear them).
	hadVisitors bool
	// reported is what the node last wrote of what it may still write (node_open_days).
	reported *repository.NodeOpen
}

// reportEvery is how often a node with nothing to write still reports what it may write:
// readers take a day for closed only once every node's report is past it.
const reportEvery = time.Minute

// openReport is what this node may still write, as of now: the oldest day of its open visits
// (after Collect), or none. The visits that open later count on now's day or later.
func (f *Flusher) openReport(now time.Time) *repository.NodeOpen {
	o := &repository.NodeOpen{Node: f.Node, At: now}
	if day, ok := f.Visits.OldestDay(); ok {
		o.Oldest = dayDate(day)
	}
	return o
}

// reportDue tells whether a flush with nothing else to write must still write o: it says
// something new, or the last report is reportEvery old.
func (f *Flusher) reportDue(o *repository.NodeOpen) bool {
	if o == nil {
		return false
	}
	last := f.reported
	return last == nil || !last.Oldest.Equal(o.Oldest) || o.At.Sub(last.At) >= reportEvery
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
	return len(f.pending) > 0
}

// Flush writes the pending batch, or takes a new one from the live counters (after the visits
// emitted their deltas into them) and writes it.
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		now := f.now()
		var open *repository.NodeOpen
		if f.Visits != nil {
			f.Visits.Collect(now)
			if f.Node != "" {
				// Before the take: what the counters get after it is of a visit open now (one
				// that ends meanwhile, early or replaced, sends its last deltas to them) or of one
				// that opens later.
				open = f.openReport(now)
			}
		}
		t := f.counters.take()
		held := t.size()
		b := toBatch(t, f.Resolve)
		b.RowBytesPerDay = f.RowBytesPerDay
		if f.Visits != nil && f.Node != "" {
			b.Node, b.At = f.Node, now
			for site, n := range f.Visits.Current(now, realtimeVisitorsWithin) {
				b.Visitors = append(b.Visitors, repository.NodeVisitors{WebsiteID: site, Visitors: n})
			}
			b.Open = open
		}
		if len(b.Counts) == 0 && len(b.Members) == 0 && b.RowCount() == 0 && len(b.Visitors) == 0 && !f.hadVisitors && !f.reportDue(b.Open) {
			f.counters.release(held) // keys whose deltas all cancelled out
			return nil
		}
		f.hadVisitors = len(b.Visitors) > 0
		f.pending, f.pendingHeld = []*repository.VisitBatch{b}, held
	}
	for len(f.pending) > 0 {
		b := f.pending[0]
		start := time.Now()
		added, err := f.writer.AddVisitBatch(ctx, *b, f.maxValues)
		f.metrics.observeFlush(len(b.Counts), time.Since(start), added.Overflow, err)
		f.metrics.dropRows(added.RowsDropped)
		f.metrics.rowsPastTheirDay(added.RowsOverDay)
		f.metrics.cutRow(rowPartWrite, added.RowWritesCut)
		f.metrics.propsOverLimit(added.PropsOverCap)
		switch {
		case err == nil:
			if b.Open != nil {
				f.reported = b.Open
			}
			f.pending = f.pending[1:]
		case repository.RefusedContent(err):
			f.pending = append(f.refused(b, err), f.pending[1:]...)
		default:
			f.failures++
			return fmt.Errorf("flush %d counters: %w", batchItems(b), err)
		}
	}
	f.failures = 0
	f.counters.release(f.pendingHeld)
	f.pending, f.pendingHeld = nil, 0
	return nil
}

// refused is what replaces a part that PostgreSQL refused for its content: its two halves, or
// nothing when it is one item, which is dropped and counted.
func (f *Flusher) refused(b *repository.VisitBatch, err error) []*repository.VisitBatch {
	if batchItems(b) > 1 {
		first, second := splitBatch(b)
		return []*repository.VisitBatch{first, second}
	}
	kind := batchItemKind(b)
	f.metrics.dropBatchItem(kind)
	// The error's text may quote the value: a stranger's, not for the log.
	f.log.Warn("stats flush: PostgreSQL refused an item of the batch for its content; it is dropped and the rest written",
		"kind", kind, "sqlstate", repository.ErrorCode(err))
	return nil
}

// The kinds of a batch's items (analytics_flush_items_dropped_total), in the order
// batchItems and splitBatch take them.
var batchItemKinds = []string{"counter", "member", "minute", "recent", "visit_row"}

// itemCounts are how many items of each kind b holds, in batchItemKinds' order. Its current
// visitors are not items: they go with the first part (splitBatch).
func itemCounts(b *repository.VisitBatch) [5]int {
	return [5]int{len(b.Counts), len(b.Members), len(b.Minutes), len(b.Recent), b.RowCount()}
}

func batchItems(b *repository.VisitBatch) int {
	n := 0
	for _, k := range itemCounts(b) {
		n += k
	}
	return n
}

// batchItemKind is the kind of a batch's one item ("" for none).
func batchItemKind(b *repository.VisitBatch) string {
	for i, k := range itemCounts(b) {
		if k > 0 {
			return batchItemKinds[i]
		}
	}
	return ""
}

// splitBatch cuts a batch of two items or more in two halves by number of items, each under a
// new id; the first carries the node's current visitors.
func splitBatch(b *repository.VisitBatch) (first, second *repository.VisitBatch) {
	left := batchItems(b) / 2
	cut := func(n int) int {
		k := min(n, left)
		left -= k
		return k
	}
	first = &repository.VisitBatch{ID: uuid.NewString(), Node: b.Node, Visitors: b.Visitors, At: b.At, RowBytesPerDay: b.RowBytesPerDay}
	// What the node may still write holds once every part is written: it goes last.
	second = &repository.VisitBatch{ID: uuid.NewString(), RowBytesPerDay: b.RowBytesPerDay, Open: b.Open}
	k := cut(len(b.Counts))
	first.Counts, second.Counts = b.Counts[:k], b.Counts[k:]
	k = cut(len(b.Members))
	first.Members, second.Members = b.Members[:k], b.Members[k:]
	k = cut(len(b.Minutes))
	first.Minutes, second.Minutes = b.Minutes[:k], b.Minutes[k:]
	k = cut(len(b.Recent))
	first.Recent, second.Recent = b.Recent[:k], b.Recent[k:]
	n := b.RowCount()
	k = cut(n)
	first.Rows, second.Rows = rowRange(b.Rows, 0, k), rowRange(b.Rows, k, n)
	return first, second
}

// rowRange is rows from..to-1 of rows; nil when none.
func rowRange(rows repository.VisitRows, from, to int) repository.VisitRows {
	if from == to {
		return nil
	}
	return visitRowRange{rows: rows, from: from, n: to - from}
}

type visitRowRange struct {
	rows    repository.VisitRows
	from, n int
}

func (r visitRowRange) Len() int                            { return r.n }
func (r visitRowRange) Row(i int, row *repository.VisitRow) { r.rows.Row(r.from+i, row) }

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
			return f.leave(ctx)
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

// leave deletes this node's report of what it may still write (node_open_days): it has
// written everything, and a stopped node must not hold the days back.
func (f *Flusher) leave(ctx context.Context) error {
	if f.Visits == nil || f.Node == "" {
		return nil
	}
	b := repository.VisitBatch{ID: uuid.NewString(), Open: &repository.NodeOpen{Node: f.Node, At: f.now(), Leaving: true}}
	if _, err := f.writer.AddVisitBatch(ctx, b, f.maxValues); err != nil {
		return fmt.Errorf("drain: leave: %w", err)
	}
	return nil
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
		b.Minutes = append(b.Minutes, repository.RealtimeMinute{WebsiteID: k.websiteID, Minute: time.Unix(k.minute*60, 0).UTC(),
			Pageviews: n.pageviews, Visitors: n.visitors, Visits: n.visits})
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
