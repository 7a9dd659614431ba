package importer

import (
	"context"
	"fmt"
	"maps"
	"slices"
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

// Commit writes what is held and commits the import's transaction.
func (p *Pending) Commit() error {
	if err := p.Flush(); err != nil {
		return err
	}
	if err := p.im.Commit(); err != nil {
		return fmt.Errorf("import.commit: %w", err)
	}
	return nil
}

// DaysWritten is the part of a file import's summary that says which days it wrote.
type DaysWritten struct {
	// Days are the days imported; First and Last their range (zero when none).
	Days        int
	First, Last time.Time
	Refused     []repository.HeldDay // days that already held data: left out
}

// BeginDays begins the second pass of a file import of one website's days (GoatCounter's
// CSV, Plausible's zip), in one transaction: the days that already hold data of the website
// (collected, or imported before) are refused and left out whole, so the same export imported
// twice adds nothing; the others are the summary's range. With no day left to write the
// transaction is rolled back and the Pending is nil; otherwise the caller rolls it back on
// any error (Rollback after Commit does nothing).
func BeginDays(ctx context.Context, repo *repository.Repository, websiteID int64, source string, days map[time.Time]bool) (*Pending, map[time.Time]bool, DaysWritten, error) {
	all := slices.SortedFunc(maps.Keys(days), time.Time.Compare)
	im, held, err := repo.BeginImport(ctx, websiteID, source, all)
	if err != nil {
		return nil, nil, DaysWritten{}, err
	}
	out := DaysWritten{Refused: held}
	refused := make(map[time.Time]bool, len(held))
	for _, h := range held {
		refused[h.Day] = true
	}
	for _, d := range all {
		if refused[d] {
			continue
		}
		if out.Days == 0 {
			out.First = d
		}
		out.Last, out.Days = d, out.Days+1
	}
	if out.Days == 0 {
		_ = im.Rollback()
		return nil, refused, out, nil
	}
	return NewPending(ctx, im), refused, out, nil
}

// Rollback ends the import's transaction without writing, after an error.
func (p *Pending) Rollback() { _ = p.im.Rollback() }
