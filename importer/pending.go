package importer

import (
	"context"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Pending sums the counters an import of an existing website's history makes and writes them
// through the import's transaction (repository.Import) each time it holds DefaultBatch keys
// and once at the end: memory is bounded by the batch, not by the export.
type Pending struct {
	ctx      context.Context
	im       *repository.Import
	pending  map[pendingKey]int64
	counters int64
	totals   map[stats.Name]int64
	err      error
}

type pendingKey struct {
	name  stats.Name
	day   time.Time
	value string
}

// NewPending writes through im.
func NewPending(ctx context.Context, im *repository.Import) *Pending {
	return &Pending{ctx: ctx, im: im, pending: map[pendingKey]int64{}, totals: map[stats.Name]int64{}}
}

// Add adds n (positive) to a counter of a day. A failed write is kept for Err and Flush.
func (p *Pending) Add(name stats.Name, day time.Time, value string, n int64) {
	if n <= 0 {
		return
	}
	p.totals[name] += n
	p.pending[pendingKey{name, day, value}] += n
	if len(p.pending) >= DefaultBatch && p.err == nil {
		p.err = p.Flush()
	}
}

// Err is the error of a write so far, nil when all went well.
func (p *Pending) Err() error { return p.err }

// Flush writes what is held.
func (p *Pending) Flush() error {
	if p.err != nil || len(p.pending) == 0 {
		return p.err
	}
	counts := make([]repository.StatCount, 0, len(p.pending))
	for k, n := range p.pending {
		counts = append(counts, repository.StatCount{Name: string(k.name), Date: k.day, Value: k.value, Count: n})
	}
	if err := p.im.Add(p.ctx, counts); err != nil {
		return err
	}
	p.counters += int64(len(counts))
	clear(p.pending)
	return nil
}

// Counters is how many counters (a name, day and value each, per batch) were written.
func (p *Pending) Counters() int64 { return p.counters }

// Total is the sum of what was added to a statistic.
func (p *Pending) Total(name stats.Name) int64 { return p.totals[name] }
