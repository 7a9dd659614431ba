// Package funnel walks the visits of a funnel (docs/funnels.md): each visit's hits in order
// (hit_order: pages and events interleaved), the furthest step it reached, taking each step at
// the first hit that matches it after the step before, and the furthest of each visitor of a
// day. The repository selects the rows (repository/funnels_read.go); pageview goals' patterns
// are matched here, in Go, once a distinct page: a user's pattern never reaches PostgreSQL.
package funnel

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"

	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/stats"
)

// Queryer runs a query: a transaction or a connection pool.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Walk finds how far each visit went and keeps, for each visitor of a day, the furthest step
// of their visits (0: none, but seen).
type Walk struct {
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

// NewWalk is the walk of a funnel whose steps are the goals, in order.
func NewWalk(goals []stats.Goal) *Walk {
	w := &Walk{steps: len(goals), events: map[string]uint8{}, pages: map[string]uint8{}, reached: map[int64]int{}}
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
func (w *Walk) pageSteps(page []byte) uint8 {
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

// ReadRows walks the rows query selects, each of (day, day number, hit_order, pages,
// event_names).
func (w *Walk) ReadRows(ctx context.Context, db Queryer, query string, args []any) error {
	rows, err := db.QueryContext(ctx, query, args...)
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
func (w *Walk) walk(order []byte, pages, names [][]byte) int {
	if len(order) != len(pages)+len(names) {
		order = append(bytes.Repeat([]byte{counters.HitPage}, len(pages)), bytes.Repeat([]byte{counters.HitEvent}, len(names))...)
	}
	next, p, e := 0, 0, 0
	for i := 0; i < len(order) && next < w.steps; i++ {
		var bits uint8
		switch {
		case order[i] == counters.HitPage && p < len(pages):
			bits = w.pageSteps(pages[p])
			p++
		case order[i] == counters.HitEvent && e < len(names):
			bits = w.events[string(names[e])]
			e++
		}
		next = advance(next, bits)
	}
	return next
}

// advance is the rule of a walk: a hit whose goals are bits moves a visit that has reached
// next steps on by one when it matches the next step's goal, and only then.
func advance(next int, bits uint8) int {
	if bits&(1<<next) != 0 {
		next++
	}
	return next
}

// Furthest is how many of steps a visit reached whose hits, in order, match the steps of
// bits (one a hit, step i bit i; hits that match none may be left out): the walk of its hits.
func Furthest(bits []uint8, steps int) int {
	next := 0
	for _, b := range bits {
		if next == steps {
			break
		}
		next = advance(next, b)
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

// Count adds the visitors walked to n, each to the steps they reached, and forgets them.
func (w *Walk) Count(n *stats.FunnelNumbers) {
	n.Visitors += int64(len(w.reached))
	for _, k := range w.reached {
		for i := range k {
			n.Steps[i]++
		}
	}
	clear(w.reached)
}
