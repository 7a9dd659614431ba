package importer

import (
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// QuoteLength is how many characters of a value an import's messages quote: enough to
// recognise it, never a whole cell of an export (which may be 64 KiB).
const QuoteLength = 80

// Cut is s cut to at most n characters, as valid UTF-8, with "…" when something was cut. It
// reads no further into s than it keeps.
func Cut(s string, n int) string {
	count := 0
	for i := 0; i < len(s); {
		if count == n {
			return strings.ToValidUTF8(s[:i], "\uFFFD") + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Quote is s cut to QuoteLength characters and quoted, for a message.
func Quote(s string) string { return strconv.Quote(Cut(s, QuoteLength)) }

// TopValues is how many values of each reason a tally shows.
const TopValues = 20

// The bounds of a tally's memory: the values counted exactly per reason (past them the
// counts become estimates), and the reasons (past them, further reasons are counted together).
const (
	tallyValues  = 1000
	tallyReasons = 100
	otherReasons = "other reasons"
)

// Tally counts what an import leaves out or keeps as it is, by reason (a fixed text of the
// importer's), and the most frequent values of each reason, in bounded memory whatever the
// export holds: a file of 3,000,000 distinct values must not make a map of them, nor a page
// listing them. Values are cut to QuoteLength characters before they are counted.
type Tally struct {
	reasons map[string]*reasonTally
}

// NewTally is an empty tally.
func NewTally() *Tally { return &Tally{reasons: map[string]*reasonTally{}} }

// Add counts n (rows, visits: the reason's text says which) of value under reason; value ""
// for a reason without values.
func (t *Tally) Add(reason, value string, n int64) {
	r, ok := t.reasons[reason]
	if !ok {
		if len(t.reasons) >= tallyReasons {
			reason, value = otherReasons, reason
		}
		if r, ok = t.reasons[reason]; !ok {
			r = &reasonTally{index: map[string]*tallyEntry{}}
			t.reasons[reason] = r
		}
	}
	r.total += n
	if value != "" || len(r.index) > 0 {
		r.add(Cut(value, QuoteLength), n)
	}
}

// Empty tells whether nothing was counted.
func (t *Tally) Empty() bool { return t == nil || len(t.reasons) == 0 }

// Reasons are the reasons counted, the largest total first, each with its most frequent values.
func (t *Tally) Reasons() []Reason {
	if t == nil {
		return nil
	}
	out := make([]Reason, 0, len(t.reasons))
	for name, r := range t.reasons {
		out = append(out, r.reason(name))
	}
	slices.SortFunc(out, func(a, b Reason) int {
		if a.Total != b.Total {
			if a.Total > b.Total {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}

// Reason is one reason of a tally: its total, and its values, the most frequent first.
type Reason struct {
	Reason string
	Total  int64
	Values []ValueCount // at most TopValues; none for a reason without values
	// Distinct is how many distinct values there were: exact unless Estimated, when it is
	// only the number kept (there were more).
	Distinct int
	// Estimated: the reason had more distinct values than a tally keeps, so Values are the
	// most frequent by the Space-Saving estimate and each Count is a lower bound.
	Estimated bool
}

// ValueCount is a value and its count.
type ValueCount struct {
	Value string
	Count int64
}

// More is how many distinct values Values does not show (a lower bound when Estimated).
func (r Reason) More() int { return r.Distinct - len(r.Values) }

// String is the reason on one line: "reason: total" and its values with their counts.
func (r Reason) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d", r.Reason, r.Total)
	if len(r.Values) == 0 {
		return b.String()
	}
	b.WriteString(" (")
	if r.Estimated {
		b.WriteString("most frequent, counts at least: ")
	}
	for i, v := range r.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", strconv.Quote(v.Value), v.Count)
	}
	switch {
	case r.Estimated:
		fmt.Fprintf(&b, "; more than %d other values", r.More())
	case r.More() > 0:
		fmt.Fprintf(&b, "; %d other values", r.More())
	}
	b.WriteString(")")
	return b.String()
}

// reasonTally counts the values of one reason: exactly while they are at most tallyValues,
// then by the Space-Saving algorithm (Metwally et al.), which keeps the tallyValues largest
// estimates in a min-heap; an entry replacing the smallest inherits its count as error, so
// count - err is a lower bound and every value more frequent than total/tallyValues is kept.
type reasonTally struct {
	total     int64
	index     map[string]*tallyEntry
	heap      tallyHeap
	estimated bool
}

type tallyEntry struct {
	value      string
	count, err int64
	at         int // its place in the heap
}

func (r *reasonTally) add(value string, n int64) {
	if e, ok := r.index[value]; ok {
		e.count += n
		heap.Fix(&r.heap, e.at)
		return
	}
	if len(r.heap) < tallyValues {
		e := &tallyEntry{value: value, count: n}
		r.index[value] = e
		heap.Push(&r.heap, e)
		return
	}
	r.estimated = true
	e := r.heap[0]
	delete(r.index, e.value)
	e.value, e.err, e.count = value, e.count, e.count+n
	r.index[value] = e
	heap.Fix(&r.heap, 0)
}

func (r *reasonTally) reason(name string) Reason {
	out := Reason{Reason: name, Total: r.total, Distinct: len(r.heap), Estimated: r.estimated}
	entries := slices.Clone(r.heap)
	slices.SortFunc(entries, func(a, b *tallyEntry) int {
		if la, lb := a.count-a.err, b.count-b.err; la != lb {
			if la > lb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.value, b.value)
	})
	for _, e := range entries[:min(len(entries), TopValues)] {
		out.Values = append(out.Values, ValueCount{Value: e.value, Count: e.count - e.err})
	}
	return out
}

// tallyHeap is a min-heap of entries by count.
type tallyHeap []*tallyEntry

func (h tallyHeap) Len() int           { return len(h) }
func (h tallyHeap) Less(i, j int) bool { return h[i].count < h[j].count }
func (h tallyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}
func (h *tallyHeap) Push(x any) {
	e := x.(*tallyEntry)
	e.at = len(*h)
	*h = append(*h, e)
}
func (h *tallyHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
