package repository

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// A funnel's numbers (docs/funnels.md) are read from visit_rows when asked. SQL selects the
// rows of the range that match the filters; Go walks each one's hits in order (hit_order:
// pages and events interleaved) and finds the furthest step reached, taking each step at the
// first hit that matches it after the step before (the earliest match never reaches fewer
// steps than another). Pageview goals' patterns are matched in Go, once a distinct page: a
// user's pattern never reaches PostgreSQL.

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
// exact (never sampled); from is the first day counted when it is after the range's first
// (FunnelsFrom), else the zero time. The range is read funnelChunkDays at a time: visitors are
// distinct per day only, so the chunks add up exactly, and the per-visitor state held stays
// that of a month whatever the range.
func (r *Repository) FunnelNumbers(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, f stats.Funnel) (n stats.FunnelNumbers, from time.Time, err error) {
	n.Steps = make([]int64, len(f.Steps))
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
	w := newFunnelWalk(goals)
	// The last 24 hours (Hours, over two days) are one chunk.
	for chunk := (stats.Range{From: counted.From, Hours: counted.Hours}); !chunk.From.After(counted.To); chunk.From = chunk.To.AddDate(0, 0, 1) {
		chunk.To = chunk.From.AddDate(0, 0, funnelChunkDays-1)
		if chunk.To.After(counted.To) {
			chunk.To = counted.To
		}
		if err := r.walkFunnelRows(ctx, websiteID, chunk, filters, w); err != nil {
			return n, from, fmt.Errorf("funnels.numbers: %w", err)
		}
		w.count(&n)
	}
	return n, from, nil
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
func (r *Repository) walkFunnelRows(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, w *funnelWalk) error {
	v := r.rows(websiteID, days, filters)
	v.exact = true
	s, err := v.source(ctx)
	if err != nil {
		return err
	}
	query := `SELECT day - DATE '2000-01-01' AS day, visitor, hit_order, pages, event_names
		FROM visit_rows WHERE ` + s.where
	return r.readRows(ctx, func(tx *sqlx.Tx) error { return w.readRows(ctx, tx, query, s.args) })
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

// funnelWalk finds how far each visit went and keeps, for each visitor of a day, the furthest
// step of their visits (0: none, but seen).
type funnelWalk struct {
	steps    int
	patterns []stepPattern
	events   map[string]uint8 // an event name's steps, one bit each
	pages    map[string]uint8 // a page's steps, as matched so far
	reached  map[int64]int    // by day and day number
}

// stepPattern is a pageview goal's pattern and its step's bit.
type stepPattern struct {
	re  *stats.Pattern
	bit uint8
}

func newFunnelWalk(goals []stats.Goal) *funnelWalk {
	w := &funnelWalk{steps: len(goals), events: map[string]uint8{}, pages: map[string]uint8{}, reached: map[int64]int{}}
	for i, g := range goals {
		bit := uint8(1) << i
		if g.Kind == stats.GoalPageview {
			w.patterns = append(w.patterns, stepPattern{re: stats.GoalPattern(g.Page), bit: bit})
			continue
		}
		w.events[g.Event] |= bit
	}
	return w
}

// pageSteps are the steps whose goals a page matches, matched once a distinct page.
func (w *funnelWalk) pageSteps(page []byte) uint8 {
	bits, ok := w.pages[string(page)]
	if !ok {
		path := stats.GoalPath(string(page))
		for _, p := range w.patterns {
			if p.re.MatchString(path) {
				bits |= p.bit
			}
		}
		w.pages[string(page)] = bits
	}
	return bits
}

func (w *funnelWalk) readRows(ctx context.Context, tx *sqlx.Tx, query string, args []any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The arrays are read as the driver's bytes and split here, without a string a page: a
	// month is 775,000 pages, and pq.StringArray's copies were a good part of a funnel's time.
	var day, visitor int32
	var order, pagesText, namesText sql.RawBytes
	var pages, names textArray
	for rows.Next() {
		if err := rows.Scan(&day, &visitor, &order, &pagesText, &namesText); err != nil {
			return err
		}
		if err := pages.parse(pagesText); err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		if err := names.parse(namesText); err != nil {
			return fmt.Errorf("event_names: %w", err)
		}
		key := int64(day)<<32 | int64(uint32(visitor))
		k := w.walk(order, pages.elems, names.elems)
		if old, ok := w.reached[key]; !ok || k > old {
			w.reached[key] = k
		}
	}
	return rows.Err()
}

// walk is how many steps a visit reached, walking its hits in order: a hit reaches the next
// step when it matches that step's goal. A row whose order does not add up to its pages and
// events (none is known to) is walked pages first.
func (w *funnelWalk) walk(order []byte, pages, names [][]byte) int {
	if len(order) != len(pages)+len(names) {
		order = append(bytes.Repeat([]byte{HitPage}, len(pages)), bytes.Repeat([]byte{HitEvent}, len(names))...)
	}
	next, p, e := 0, 0, 0
	for i := 0; i < len(order) && next < w.steps; i++ {
		var bits uint8
		switch {
		case order[i] == HitPage && p < len(pages):
			bits = w.pageSteps(pages[p])
			p++
		case order[i] == HitEvent && e < len(names):
			bits = w.events[string(names[e])]
			e++
		}
		if bits&(1<<next) != 0 {
			next++
		}
	}
	return next
}

// textArray is a text[] as PostgreSQL writes it ({a,"b c","d\"e"}), split into its elements:
// views of the text, or of scratch for an element with escapes. Both are reused row after row.
type textArray struct {
	elems   [][]byte
	scratch []byte
}

// parse splits lit. The rows' arrays hold no NULL (an element "NULL" is written quoted).
func (a *textArray) parse(lit []byte) error {
	a.elems = a.elems[:0]
	if cap(a.scratch) < len(lit) {
		a.scratch = make([]byte, 0, len(lit)) // never grown while parsing: elems point into it
	}
	a.scratch = a.scratch[:0]
	if len(lit) < 2 || lit[0] != '{' || lit[len(lit)-1] != '}' {
		return fmt.Errorf("not an array: %.40q", lit)
	}
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		var elem []byte
		if body[i] == '"' {
			start := len(a.scratch)
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				a.scratch = append(a.scratch, body[i])
			}
			if i >= len(body) {
				return fmt.Errorf("unterminated element: %.40q", lit)
			}
			elem = a.scratch[start:len(a.scratch):len(a.scratch)]
			i++ // the closing quote
		} else {
			end := bytes.IndexByte(body[i:], ',')
			if end < 0 {
				end = len(body) - i
			}
			elem = body[i : i+end]
			i += end
		}
		a.elems = append(a.elems, elem)
		if i < len(body) {
			if body[i] != ',' {
				return fmt.Errorf("malformed array: %.40q", lit)
			}
			i++
		}
	}
	return nil
}

// count adds the visitors walked to n, each to the steps they reached, and forgets them.
func (w *funnelWalk) count(n *stats.FunnelNumbers) {
	n.Visitors += int64(len(w.reached))
	for _, k := range w.reached {
		for i := range k {
			n.Steps[i]++
		}
	}
	clear(w.reached)
}
