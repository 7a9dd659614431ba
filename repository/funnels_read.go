package repository

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/funnel"
	"github.com/analytics-service/analytics/stats"
)

// A funnel's numbers (docs/funnels.md) are read when asked: the days the column store answers
// by its one statement (column.StartFunnel), the others from visit_rows, whose rows of the
// range that match the filters SQL selects, and package funnel walks each one's hits in order
// to find the furthest step reached (the earliest match never reaches fewer steps than
// another). Both take each step at the first hit that matches it after the step before.

// FunnelsFrom is the first day that funnels count for a website: the latest of the first day
// whose rows keep the order of hits (funnels_from), the first with rows at all (filters_from)
// and the oldest partition kept.
func (r *Repository) FunnelsFrom(ctx context.Context, websiteID int64) (time.Time, error) {
	const query = `
		SELECT greatest(w.funnels_from, w.filters_from, (SELECT min(day) FROM visit_row_partitions))
		FROM websites w WHERE w.id = $1`
	var from time.Time
	if err := r.reads.GetContext(ctx, &from, query, websiteID); err != nil {
		return time.Time{}, fmt.Errorf("funnels.from: %w", err)
	}
	return stats.Day(from), nil
}

// FunnelNumbers are a funnel's numbers over a range, of the visits that match the filters,
// sampled past stats.MaxExactPageviews as every read of the view is (the same visitors, the
// counts scaled; n.Fraction); from is the first day counted when it is after the range's first
// (FunnelsFrom), else the zero time. The range is read funnelChunkDays at a time: visitors are
// distinct per day only, so the chunks add up exactly, and the per-visitor state held stays
// that of a month whatever the range.
func (r *Repository) FunnelNumbers(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, f stats.Funnel) (n stats.FunnelNumbers, from time.Time, err error) {
	n.Steps = make([]int64, len(f.Steps))
	if n.Fraction, err = r.sampleFraction(ctx, websiteID, days); err != nil {
		return n, time.Time{}, fmt.Errorf("funnels.numbers: %w", err)
	}
	first, err := r.FunnelsFrom(ctx, websiteID)
	if err != nil {
		return n, time.Time{}, err
	}
	counted := days
	if first.After(days.From) {
		from, counted.From = first, first
		counted.Hours.From = 0 // the whole first day counted
	}
	if counted.From.After(counted.To) || len(f.Steps) == 0 {
		return n, from, nil
	}
	goals, err := r.funnelGoals(ctx, websiteID, f)
	if err != nil {
		return n, from, err
	}
	// The column store's days (listColumnDays) are counted there, beside the rows' of the
	// others: visitors are distinct per day only, so the two add up exactly.
	through, waitColumn, err := r.startColumnFunnel(ctx, websiteID, counted, filters, n.Fraction, goals)
	if err != nil {
		return n, from, fmt.Errorf("funnels.numbers: %w", err)
	}
	if !through.IsZero() {
		counted.From = through.AddDate(0, 0, 1)
	}
	w := funnel.NewWalk(goals)
	// The last 24 hours (Hours, over two days) are one chunk.
	for chunk := (stats.Range{From: counted.From, Hours: counted.Hours}); !chunk.From.After(counted.To); chunk.From = chunk.To.AddDate(0, 0, 1) {
		chunk.To = chunk.From.AddDate(0, 0, funnelChunkDays-1)
		if chunk.To.After(counted.To) {
			chunk.To = counted.To
		}
		if err := r.walkFunnelRows(ctx, websiteID, chunk, filters, n.Fraction, w); err != nil {
			waitColumn() // never left running
			return n, from, fmt.Errorf("funnels.numbers: %w", err)
		}
		w.Count(&n)
	}
	c, err := waitColumn()
	if err != nil {
		return n, from, fmt.Errorf("funnels.numbers: %w", err)
	}
	n.Visitors += c.Visitors
	for i, k := range c.Steps {
		n.Steps[i] += k
	}
	n.Visitors = scale(n.Visitors, n.Fraction)
	for i := range n.Steps {
		n.Steps[i] = scale(n.Steps[i], n.Fraction)
	}
	return n, from, nil
}

// startColumnFunnel starts the column store's part of a funnel's numbers over the days of the
// range it answers (through the last, zero for none): each step's bit on the pages that match
// its pageview goal there, and on its event's name.
func (r *Repository) startColumnFunnel(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, fraction float64, goals []stats.Goal) (through time.Time, wait func() (column.FunnelCounts, error), err error) {
	none := func() (column.FunnelCounts, error) { return column.FunnelCounts{}, nil }
	v := r.rows(websiteID, days, filters)
	v.fixed = fraction
	through, p, err := v.columnPart(ctx)
	if err != nil || through.IsZero() {
		return time.Time{}, none, err
	}
	matches, err := r.matchGoals(ctx, websiteID, stats.Range{From: days.From, To: through}, goals)
	if err != nil {
		return time.Time{}, none, err
	}
	pages, names := map[string]int64{}, map[string]int64{}
	for i, m := range matches {
		if m.goal.Kind != stats.GoalPageview {
			names[m.goal.Event] |= 1 << i
			continue
		}
		for _, page := range m.pages {
			pages[page] |= 1 << i
		}
	}
	fp := column.FunnelPart{Part: p, Steps: len(goals), Pages: oneWord(pages), Names: oneWord(names), Goals: goalsKey(goals)}
	return through, r.column.StartFunnel(ctx, fp), nil
}

// funnelDaysCounted is how many days through the last closed CountColumnFunnels counts: the
// dashboard's last 30 days, this month and the last. A longer range counts its other days
// at its first view. A year of every funnel would not fit the counts kept
// (column.funnelDaysKept) past a few hundred websites, whose counts would then be emptied
// and made again at each copy.
const funnelDaysCounted = 62

// CountColumnFunnels counts every website's funnels by day over the closed days (through
// closed) that the column store holds, unfiltered, so that the first view of a dashboard
// reads their sums (column/funnel_days.go); the service calls it after each copy of the
// closed days, and the days counted before are not read again. days is how many funnel
// days it read.
func (r *Repository) CountColumnFunnels(ctx context.Context, closed time.Time) (days int, err error) {
	if r.column == nil {
		return 0, nil
	}
	var sites []int64
	if err := r.reads.SelectContext(ctx, &sites, `SELECT DISTINCT website_id FROM funnels ORDER BY 1`); err != nil {
		return 0, fmt.Errorf("funnels.count: websites: %w", err)
	}
	for _, site := range sites {
		first, err := r.FunnelsFrom(ctx, site)
		if err != nil {
			return days, err
		}
		rng := stats.Range{From: first, To: closed}
		if oldest := closed.AddDate(0, 0, 1-funnelDaysCounted); oldest.After(first) {
			rng.From = oldest
		}
		if rng.From.After(rng.To) {
			continue
		}
		funnels, err := r.Funnels(ctx, site)
		if err != nil {
			return days, err
		}
		for _, f := range funnels {
			read, err := r.countColumnFunnel(ctx, site, rng, f)
			if err != nil {
				return days, fmt.Errorf("funnels.count: website %d, funnel %d: %w", site, f.ID, err)
			}
			days += read
		}
	}
	return days, nil
}

// countColumnFunnel counts a funnel's days over the range in the column store, unfiltered and
// exact, as a view of it does (the counts kept there are what it is for); read is how many
// days it read.
func (r *Repository) countColumnFunnel(ctx context.Context, site int64, days stats.Range, f stats.Funnel) (read int, err error) {
	goals, err := r.funnelGoals(ctx, site, f)
	if err != nil || len(goals) == 0 {
		return 0, err
	}
	_, wait, err := r.startColumnFunnel(ctx, site, days, nil, 1, goals)
	if err != nil {
		return 0, err
	}
	c, err := wait()
	return c.DaysRead, err
}

// oneWord is the mask table of texts with their bits, in the texts' order: the same funnel
// is the same statement, whose counts the column store keeps (column.Store.StartFunnel).
func oneWord(bits map[string]int64) column.MaskTable {
	t := column.MaskTable{Words: [][]int64{nil}}
	for _, text := range slices.Sorted(maps.Keys(bits)) {
		t.Texts, t.Words[0] = append(t.Texts, text), append(t.Words[0], bits[text])
	}
	return t
}

// funnelChunkDays is how many days one statement of a funnel's reads.
const funnelChunkDays = 31

// walkFunnelRows walks the hits of every row of the days that matches the filters. Every row
// is read, not only those with a hit of step 1: their visitors are the funnel's
// never-entering ones, and a pageview goal's pattern is matched here, in Go, against each
// distinct page as it comes (stats.GoalPattern), never in SQL. Matching the range's pages
// first and selecting the rows with one of them in SQL (as goals do) cost more than reading
// them all: the distinct pages and the test of each row's pages each take a pass over every
// page of the range.
func (r *Repository) walkFunnelRows(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, fraction float64, w *funnel.Walk) error {
	v := r.rows(websiteID, days, filters)
	v.fixed = fraction
	s, err := v.source(ctx)
	if err != nil {
		return err
	}
	query := `SELECT day - DATE '2000-01-01' AS day, visitor, hit_order, pages, event_names
		FROM visit_rows WHERE ` + s.where
	return r.readRows(ctx, func(tx *sqlx.Tx) error { return w.ReadRows(ctx, tx, query, s.args) })
}

// funnelGoals are the goals of a funnel's steps, in its order.
func (r *Repository) funnelGoals(ctx context.Context, websiteID int64, f stats.Funnel) ([]stats.Goal, error) {
	ids := make([]int64, len(f.Steps))
	for i, s := range f.Steps {
		ids[i] = s.GoalID
	}
	byID, err := r.GoalsByID(ctx, websiteID, ids)
	if err != nil {
		return nil, fmt.Errorf("funnels.goals: %w", err)
	}
	goals := make([]stats.Goal, len(ids))
	for i, id := range ids {
		g, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("funnels.goals: goal %d: %w", id, ErrNotFound)
		}
		goals[i] = g
	}
	return goals, nil
}
