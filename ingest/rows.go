package ingest

import (
	"slices"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A visit's row for filters (visit_rows, docs/filters.md) is built in memory between flushes,
// next to the counters and bounded with them: the first hit of a visit gives it its values,
// each pageview and event appends to it, and Visits (Collect, end) sets what changes as the
// visit goes on (landing and exit page, bounce, seconds). A flush writes what a row gathered
// since the last one; the repository appends it to what is written.
//
// The rows held are kept where the garbage collector has nothing to follow, in as few bytes
// as plainly can be (rowStore), and a batch's rows are made one at a time as they are written
// (takenRows.Row): with up to a few hundred thousand held at once, pointer-rich rows (a
// struct, a map entry, a slice and strings each) were most of the collector's added work, and
// under the service's heap limit every live byte makes it collect more often.

// rowRef names a visit's row: its key in visit_rows.
type rowRef struct {
	websiteID int64
	day       int32
	visitor   int32 // the day number
	id        int64
}

// rowEnd is what Visits set on a row: as the visit is now.
type rowEnd struct {
	ref           rowRef
	hour          uint8 // the hour the visit started
	landing, exit string
	seconds       int32
	bounce        bool
	due           bool // what the row gathered goes with the next flush (else only a first write does)
	// engaged is the visit's engagement on every page, when it changed (Visits.engagedRow):
	// it replaces what the row's part held of it; nil leaves that.
	engaged []repository.EngagedPage
}

// pendingRow is a row's part not yet written, without pointers: its texts are numbers of
// rowStore.texts, its pages, events and values are entries of rowStore.parts.
type pendingRow struct {
	ref           rowRef
	landing, exit uint32 // texts
	seconds       int32
	pageviews     int32 // its pages in parts
	events        int32 // its events in parts
	parts         int32 // its entries in parts: pages, events and values
	taken         int32 // during rowStore.take: 1 + its index in the batch
	hour          uint8
	bounce        bool
	needValues    bool  // its visit's first hit has not given its values yet
	hasEnd        bool  // Visits set its landing, exit, bounce and seconds
	first         bool  // the row's first write, which goes at once
	due           bool  // a later write, held back until Visits say it is due
	isReady       bool  // in rowStore.ready
	engaged       uint8 // its engagement's entries in rowStore.engaged, from engagedAt; 0: none
	engagedAt     int32
}

// ready tells whether a row may be written: a write without its values would lose them (the
// later writes only append), and one without its end would blank its exit page; a later
// write waits until it is due (Visits.collectRow).
func (r *pendingRow) ready() bool { return r.hasEnd && !r.needValues && (r.first || r.due) }

// partKind says what an entry of rowStore.parts is: a page, an event or one of the visit's
// values (partValue + its dimension's index in stats.Dimensions).
type partKind uint8

const (
	partPage partKind = iota
	partEvent
	partEventName // the name of the event before it, as sent
	partProp      // a custom property a hit carried, stats.PropPair
	partRevenue   // an event's revenue, revenuePart
	partValue
)

// rowPart is a page, an event or a value of a held row, in the order they came.
type rowPart struct {
	slot int32  // the row's in rowStore.rows
	text uint32 // texts
	kind partKind
}

// rowStore holds the parts of rows not yet written (c.mu is held for all of it). The counters
// find them by id alone (a map of int64 costs far less a hit than one of rowRef): ids are 63
// random bits, so two visits of one node share one (and then one row) about once in 10^9
// flushes of 200,000 rows. Nothing here holds a pointer but texts, which holds each distinct
// text once.
type rowStore struct {
	slots map[int64]int32 // by rowRef.id: the part's slot in rows
	rows  []pendingRow
	free  []int32 // slots of rows to reuse
	ready []int32 // slots of the rows the next take writes
	parts []rowPart
	// engaged holds the held rows' engagement (repository.EngagedPage), each row's pages in
	// one run: a row's run is rewritten in place by its visit's next engagement, moved to the
	// end when it has more pages (the old run is left until the next take drops it).
	engaged []engagedEntry
	texts   texts
}

// engagedEntry is a page of a held row's engagement, without pointers.
type engagedEntry struct {
	page   uint32 // texts
	millis int32  // -1: none
	depth  int8   // -1: none
}

func newRowStore() rowStore {
	return rowStore{slots: make(map[int64]int32), texts: newTexts()}
}

// part is the slot of the part of ref's row not yet written, made when there is none (the row
// was written before: the part carries what follows).
func (s *rowStore) part(ref rowRef, hour uint8) (int32, *pendingRow) {
	slot, ok := s.slots[ref.id]
	if !ok {
		if n := len(s.free); n > 0 {
			slot, s.free = s.free[n-1], s.free[:n-1]
		} else {
			slot = int32(len(s.rows))
			s.rows = append(s.rows, pendingRow{})
		}
		s.rows[slot] = pendingRow{ref: ref, hour: hour}
		s.slots[ref.id] = slot
	}
	return slot, &s.rows[slot]
}

// add appends an entry to the part in slot.
func (s *rowStore) add(slot int32, r *pendingRow, kind partKind, text string) {
	s.parts = append(s.parts, rowPart{slot: slot, text: s.texts.id(text), kind: kind})
	r.parts++
}

// setEnd gives a part its visit's end, and its engagement when the end carries it.
func (s *rowStore) setEnd(r *pendingRow, e *rowEnd) {
	r.hasEnd, r.landing, r.exit, r.seconds, r.bounce = true, s.texts.id(e.landing), s.texts.id(e.exit), e.seconds, e.bounce
	if len(e.engaged) > 0 {
		s.setEngaged(r, e.engaged)
	}
}

// setEngaged replaces a part's engagement with pages (at most stats.MaxRowEngagedPages).
func (s *rowStore) setEngaged(r *pendingRow, pages []repository.EngagedPage) {
	if int(r.engaged) != len(pages) {
		r.engagedAt, r.engaged = int32(len(s.engaged)), uint8(len(pages))
		s.engaged = append(s.engaged, make([]engagedEntry, len(pages))...)
	}
	run := s.engaged[r.engagedAt : r.engagedAt+int32(r.engaged)]
	for i, p := range pages {
		run[i] = engagedEntry{page: s.texts.id(p.Page), millis: p.Millis, depth: p.Depth}
	}
}

// check notes a part that became ready.
func (s *rowStore) check(slot int32, r *pendingRow) {
	if r.ready() {
		s.markReady(slot, r)
	}
}

// markReady puts the part in slot in ready, once.
func (s *rowStore) markReady(slot int32, r *pendingRow) {
	if !r.isReady {
		r.isReady = true
		s.ready = append(s.ready, slot)
	}
}

// waiting is how many parts wait (not ready).
func (s *rowStore) waiting() int { return len(s.slots) - len(s.ready) }

// openRow notes a visit that just started: its row waits for the values of its first hit
// (rowHit) and for its end (setEnd). The visit's shard lock is held, so that Collect cannot
// set the end of a row this does not know yet. Not refused at the bound: the hit that follows
// is.
func (c *Counters) openRow(ref rowRef, hour uint8) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, r := c.rowStore.part(ref, hour); !r.isReady {
		r.needValues, r.first = true, true
	}
}

// rowHit adds a hit to its row (c.mu is held): the visit's values on its first hit, the page
// of a pageview, the event of an event; of a hit its full row cut (hitExtras.rowCut), only
// the pageview to the row's count. A part with no end yet takes the hit's: a hit that
// raced its visit's end (the visit ended between the hit and this) must still be writable,
// and nothing else would give it one.
func (c *Counters) rowHit(x *hitExtras) {
	s := &c.rowStore
	slot, r := s.part(x.row.ref, x.row.hour)
	if x.hasValues {
		for i := range stats.Dimensions {
			if v := x.values[i]; v != "" { // "" is what a row's values are unless given
				s.add(slot, r, partValue+partKind(i), v)
			}
		}
		r.needValues = false
	}
	if x.hasPageview {
		if !x.rowCut {
			s.add(slot, r, partPage, x.rowPage)
		}
		r.pageviews++
	}
	if x.event != "" && !x.rowCut {
		s.add(slot, r, partEvent, x.event)
		s.add(slot, r, partEventName, x.eventName)
		r.events++
	}
	for _, pair := range x.props {
		s.add(slot, r, partProp, pair)
	}
	if x.revenue != "" && !x.rowCut {
		s.add(slot, r, partRevenue, x.revenue)
	}
	if !r.hasEnd {
		s.setEnd(r, &x.row)
	}
	if r.pageviews+r.events >= maxHeldHits {
		r.due = true
	}
	s.check(slot, r)
}

// maxHeldHits is the most pageviews and events a row's held part gathers before it is due: a
// visitor who sends hits as fast as a script can must not grow it for resendEvery (in
// BenchmarkCollector, 20,000 visitors at 9 hits a second each held 86 MB).
const maxHeldHits = 16

// abandonRow gives up the values of a visit whose first hit was refused (a full buffer): its
// row is written with empty values, as its counters miss them too.
func (c *Counters) abandonRow(ref rowRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.rowStore
	if slot, ok := s.slots[ref.id]; ok {
		r := &s.rows[slot]
		r.needValues = false
		s.check(slot, r)
	}
}

// setEnd sets a row's landing and exit page, bounce and seconds as its visit is now
// (absolute: the last set wins); c.mu is held. Not refused at the bound, like addDeltas: what
// visits owe. A row unknown here was written before: its new part carries what follows.
func (c *Counters) setEnd(e *rowEnd) {
	s := &c.rowStore
	slot, r := s.part(e.ref, e.hour)
	s.setEnd(r, e)
	r.due = r.due || e.due
	s.check(slot, r)
}

// firstWriteWaits tells whether ref's row has its first write still to go (not yet taken):
// an end set now goes with it. The visit's shard lock may be held (the order is shard, then
// counters).
func (c *Counters) firstWriteWaits(ref rowRef) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	slot, ok := c.rowStore.slots[ref.id]
	return ok && c.rowStore.rows[slot].first
}

// releaseWaiting makes every waiting row ready as it is (a node that stops: its visits have
// ended, and nothing will come for them).
func (c *Counters) releaseWaiting() {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.rowStore
	for _, slot := range s.slots {
		s.markReady(slot, &s.rows[slot])
	}
}

// takenRows are the ready rows a take took, as the batch's repository.VisitRows: their parts,
// the entries of each in turn, and the texts as they were (numbers taken stay valid: texts
// only appends, or starts anew).
type takenRows struct {
	rows    []pendingRow
	parts   []rowPart // rows[0]'s first, then rows[1]'s...
	start   []int32   // where each row's entries start in parts
	engaged []engagedEntry
	texts   []string
}

// take takes the ready rows and frees their slots; the entries of the others stay, in order.
// The texts are compacted when they grew enough, or hold more than compactPast bytes.
func (s *rowStore) take(compactPast int) takenRows {
	t := takenRows{rows: make([]pendingRow, len(s.ready)), start: make([]int32, len(s.ready)), texts: s.texts.list}
	n := int32(0)
	for i, slot := range s.ready {
		r := &s.rows[slot]
		r.taken = int32(i + 1)
		t.rows[i] = *r
		t.start[i] = n
		n += r.parts
		delete(s.slots, r.ref.id)
	}
	t.parts = make([]rowPart, n)
	next := slices.Clone(t.start) // where each row's next entry goes
	kept := s.parts[:0]           // in place: an entry is kept at or before where it was read
	for _, p := range s.parts {
		if i := s.rows[p.slot].taken - 1; i >= 0 {
			t.parts[next[i]] = p
			next[i]++
		} else {
			kept = append(kept, p)
		}
	}
	for _, slot := range s.ready {
		s.rows[slot] = pendingRow{}
		s.free = append(s.free, slot)
	}
	s.parts = kept
	s.ready = s.ready[:0]
	t.engaged = s.keepEngaged()
	s.compactTexts(compactPast)
	return t
}

// keepEngaged moves the engagement of the rows still held to a list of their own, and gives
// the one it replaces (which the taken rows read) back; a take's freed slots hold none.
func (s *rowStore) keepEngaged() []engagedEntry {
	taken := s.engaged
	if len(taken) == 0 {
		return taken
	}
	var kept []engagedEntry
	for i := range s.rows {
		if r := &s.rows[i]; r.engaged > 0 {
			at := len(kept)
			kept = append(kept, taken[r.engagedAt:r.engagedAt+int32(r.engaged)]...)
			r.engagedAt = int32(at)
		}
	}
	s.engaged = kept
	return taken
}

// texts number the distinct texts of the rows held (pages, events, values, landing and exit
// pages), so that rows hold numbers; 0 is "". They only grow until compactTexts starts them
// anew.
type texts struct {
	ids  map[string]uint32
	list []string // by number
	kept int      // how many the last compaction kept
	// bytes is the length of the texts of list, kept that of those the last compaction kept:
	// what the counters' bound of bytes counts (Counters.maxBytes).
	bytes, keptBytes int
}

func newTexts() texts { return texts{ids: map[string]uint32{"": 0}, list: []string{""}} }

// id is the number of s, given it when s is new.
func (t *texts) id(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := uint32(len(t.list))
	t.list = append(t.list, s)
	t.ids[s] = id
	t.bytes += len(s)
	return id
}

// minTexts and minTextBytes are how many texts, and how many bytes of them, are never worth a
// compaction.
const (
	minTexts     = 4096
	minTextBytes = 1 << 20
)

// compactTexts numbers anew the texts of the parts held once the texts have grown to twice
// what the last compaction kept (and minTexts more), in number or in bytes, or hold more than
// past bytes: the pages and values of rows written long ago must not stay in memory, nor
// count against the bound of the bytes held. Its cost is that of the rows held, at most once
// per as many new texts (or, near the bound, once a take).
func (s *rowStore) compactTexts(past int) {
	old := s.texts
	if len(old.list) < 2*old.kept+minTexts && old.bytes < 2*old.keptBytes+minTextBytes && old.bytes <= past {
		return
	}
	s.texts = newTexts()
	for _, slot := range s.slots {
		r := &s.rows[slot]
		r.landing, r.exit = s.texts.id(old.list[r.landing]), s.texts.id(old.list[r.exit])
	}
	for i := range s.parts {
		p := &s.parts[i]
		p.text = s.texts.id(old.list[p.text])
	}
	for i := range s.engaged {
		e := &s.engaged[i]
		e.page = s.texts.id(old.list[e.page])
	}
	s.texts.kept, s.texts.keptBytes = len(s.texts.list), s.texts.bytes
}

func (t takenRows) Len() int { return len(t.rows) }

// Row makes row i as the batch writes it. A later part has no first-hit values: "" each,
// which the upsert ignores.
func (t takenRows) Row(i int, row *repository.VisitRow) {
	r := &t.rows[i]
	ref := r.ref
	*row = repository.VisitRow{WebsiteID: ref.websiteID, Day: dayDate(ref.day), Visitor: ref.visitor, ID: ref.id,
		Hour: int(r.hour), Pageviews: int(r.pageviews), Seconds: int(r.seconds), Bounce: r.bounce,
		Pages: row.Pages[:0], Events: row.Events[:0], EventNames: row.EventNames[:0], Order: row.Order[:0], Engaged: row.Engaged[:0],
		Props: row.Props[:0], RevenueNames: row.RevenueNames[:0], RevenueCurrencies: row.RevenueCurrencies[:0], RevenueAmounts: row.RevenueAmounts[:0]}
	for _, p := range t.parts[t.start[i] : t.start[i]+r.parts] {
		switch text := t.texts[p.text]; p.kind {
		case partPage:
			row.Pages = append(row.Pages, text)
			row.Order = append(row.Order, repository.HitPage)
		case partEvent:
			row.Events = append(row.Events, text)
			row.Order = append(row.Order, repository.HitEvent)
		case partEventName:
			row.EventNames = append(row.EventNames, text)
		case partProp:
			row.Props = append(row.Props, text)
		case partRevenue:
			name, currency, amount := splitRevenuePart(text)
			row.RevenueNames = append(row.RevenueNames, name)
			row.RevenueCurrencies = append(row.RevenueCurrencies, currency)
			row.RevenueAmounts = append(row.RevenueAmounts, amount)
		default:
			row.Values[p.kind-partValue] = text
		}
	}
	row.Values[landingIndex], row.Values[exitIndex] = t.texts[r.landing], t.texts[r.exit]
	for _, e := range t.engaged[r.engagedAt : r.engagedAt+int32(r.engaged)] {
		row.Engaged = append(row.Engaged, repository.EngagedPage{Page: t.texts[e.page], Millis: e.millis, Depth: e.depth})
	}
}

// landingIndex and exitIndex are where a row's landing and exit page go among its values.
var (
	_, landingIndex, _ = stats.DimensionOf(stats.LandingPage)
	_, exitIndex, _    = stats.DimensionOf(stats.ExitPage)
)

// secondsOf is a visit's duration as the visit_seconds counter counts it.
func secondsOf(start, last int64) int32 { return int32((last - start) / int64(time.Second)) }
