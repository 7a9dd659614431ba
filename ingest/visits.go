package ingest

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Visits are the open visits of this node (docs/visits.md), in memory only, by visitor
// key. What a visit contributes to the counters is emitted as deltas when the flusher asks
// (Collect): what changed since the last time (its landing and exit page, whether it bounces,
// its duration), so a visit of many hits costs a few counter keys a flush, not a few a hit.
// The hit path adds only what a hit itself counts (pageview, page, event) and, on a visit's
// first hit, its visit-level values.
//
// Memory is bounded: at most MaxOpen visits (past it the visit whose last hit is oldest ends
// early) and at most MaxPerAddress of one client address (past it a new visit of that address
// is counted as a visit of one hit and not kept), so that a flood of new user agents from one
// address cannot grow it. Both are counted in the metrics.
type Visits struct {
	timeout       int64 // nanoseconds
	perShard      int
	maxPerAddress uint32
	counters      *Counters
	metrics       *Metrics
	shards        [visitShards]visitShard
	// perAddress counts the open visits of client addresses by a hash of the address: a fixed
	// table (addresses sharing a slot share its bound), so that it takes no memory per address.
	perAddress []atomic.Uint32
	addrSeed   maphash.Seed
	// rowSeed makes the ids of the visits' rows: random to anyone without it, and it never
	// leaves the process.
	rowSeed maphash.Seed
}

// perAddressSlots is the size of Visits.perAddress: 4 MiB, about one slot per visit at the
// default MAX_OPEN_VISITS.
const perAddressSlots = 1 << 20

// visitShards split the visits so that hits of different visitors rarely wait for each other.
const visitShards = 32

type visitShard struct {
	mu sync.Mutex
	// open holds the visits by the first 8 bytes of their key: two keys of one node sharing
	// them (about 1 in 30 million at a million open visits) share a visit.
	open  map[uint64]*visit
	first *visit // the least recent last hit: next to expire or to be ended early
	last  *visit
	dirty []*visit // changed since the last Collect
	// ended holds, by id, the website and last hit of visits that ended (timed out, ended
	// early or replaced) while their last hit may still be within the realtime window: a
	// visitor seen 2 minutes ago is a current visitor even when VISIT_TIMEOUT is shorter
	// than the window. Pruned by Current, at most endedLimit entries (about 40 bytes each).
	ended map[uint64]endedVisit
	// engaged holds, by visit id, the pages an open visit sent engagement for (engagement.go);
	// made at the first.
	engaged map[uint64][]pageEngagement
	// days counts the open visits by their day (few: today, yesterday), for OldestDay.
	days []dayCount
	_    [32]byte // two cache lines of its own
}

// endedVisit is what the realtime view needs of a visit that ended.
type endedVisit struct {
	websiteID int64
	last      int64 // Unix nanoseconds
}

// visit is one open visit; flushedExit, flushedSeconds and the flushed flags are what the
// counters already hold of it. Small on purpose (144 bytes): a node holds up to MAX_OPEN_VISITS.
type visit struct {
	id             uint64 // the first 8 bytes of its visitor key: its entry in visitShard.open
	websiteID      int64
	start, last    int64 // Unix nanoseconds
	prev, next     *visit
	landing, exit  string
	flushedExit    string
	addrSlot       uint32 // its client address's slot in Visits.perAddress
	flushedSeconds int32
	emittedAt      int32  // seconds from start when its exit page and duration were last sent
	hoursSent      uint32 // hour bits of the visit's day already sent as day membership
	minuteSent     uint32 // the last minute (Unix minutes) it was counted a visitor of
	day            int32  // Key.Day of its first hit: the day it counts on
	pageviews      uint16 // saturates: only "one" matters
	startHour      uint8
	flags          visitFlags
	pairs          *visitPairs // the property pairs it kept; nil until a hit carries one
	// What its row was given so far, against the row's bounds (keepRow): its pages and events,
	// their bytes, its property pairs and theirs.
	rowHits, rowProps         uint16
	rowHitBytes, rowPropBytes uint32
}

type visitFlags uint8

const (
	hadEvent      visitFlags = 1 << iota
	flushedBounce            // the counters hold its +1 bounce
	landingSent              // the counters hold its landing page
	isDirty                  // in its shard's dirty list
	hasEnded
	rowDirty   // had a hit since its row's end was last set
	rowHeld    // its row has a part the counters hold back until it is due (resendEvery)
	rowEngaged // its engagement changed since its row last got it (engagedRow)
)

// hitKind says what a hit is to its visit.
type hitKind uint8

const (
	hitPageview   hitKind = iota
	hitEvent              // counts event, ends a bounce
	hitEngagement         // extends the duration only; ignored with no open visit
	hitQuietEvent         // counts event, keeps a bounce (a non-interactive event)
)

// visitHit is what the visits need of a hit.
type visitHit struct {
	websiteID int64
	key       VisitorKey
	prevKey   VisitorKey // the key under yesterday's salt, in the first VISIT_TIMEOUT after midnight
	hasPrev   bool
	addr      netip.Addr
	at        int64 // Unix nanoseconds
	day       int32
	hour      uint8
	kind      hitKind
	page      string // the page of a pageview or of an event's page
	// An engagement hit's engaged milliseconds and scroll depth, -1 for none.
	engagedMillis int32
	scrollDepth   int8
	// props: the hit's property pairs; Visits keep those the visit may (keepPairs) and its row
	// has room for (keepRow).
	props []string
	// rowBytes: the bytes the hit adds to its visit's row besides its properties (its page,
	// or its event, event name and revenue, as stored).
	rowBytes int
}

// visitOutcome is what the collector counts for a hit besides its own keys.
type visitOutcome struct {
	started bool  // a new visit: count its visit-level values on day
	ignored bool  // an engagement with no open visit
	day     int32 // the day of the hit's visit
	// member: the day membership to send (visited when started; an hour bit of day when the
	// visit's key sends its first hit of that hour).
	visited  bool
	hourBits uint32
	// minuteVisitor: the hit is its visit's first of its minute, which counts the visit a
	// visitor of that minute (Today's graph by the minute).
	minuteVisitor bool
	key           VisitorKey // the key the visit is held under
	// row is the visit's row as the hit leaves it: what its row's part gets when it has no
	// end yet (Counters.rowHit), so that a part whose visit ended meanwhile can be written.
	row rowEnd
	// pairsDropped: the hit's property pairs past its visit's stats.MaxPairsPerVisit.
	pairsDropped int
	// rowCut: the hit's page or event is not added to its visit's row, which is full
	// (keepRow); propsCut: its property pairs that are not, for the same reason.
	rowCut   bool
	propsCut int
}

// Defaults and bounds of VISIT_TIMEOUT and MAX_OPEN_VISITS (README).
const (
	DefaultVisitTimeout  = 30 * time.Minute
	MaxVisitTimeout      = 4 * time.Hour
	DefaultMaxOpenVisits = 1_000_000
	// DefaultMaxVisitsPerAddress bounds the open visits of one client address: far more
	// distinct browsers than one household or office address sends (one browser and version
	// is one key, however many people use it).
	DefaultMaxVisitsPerAddress = 1000
)

// NewVisits holds at most maxOpen visits ending after timeout without a hit; their deltas go
// to counters.
func NewVisits(timeout time.Duration, maxOpen, maxPerAddress int, counters *Counters, metrics *Metrics) *Visits {
	v := &Visits{timeout: int64(timeout), perShard: max(1, maxOpen/visitShards), maxPerAddress: uint32(maxPerAddress),
		counters: counters, metrics: metrics, addrSeed: maphash.MakeSeed(), rowSeed: maphash.MakeSeed(), perAddress: make([]atomic.Uint32, perAddressSlots)}
	for i := range v.shards {
		v.shards[i].open = make(map[uint64]*visit)
		v.shards[i].ended = make(map[uint64]endedVisit)
	}
	return v
}

// endedLimit bounds the ended visits a shard remembers for the realtime view: as many as it
// holds open, at least 1,024 (a small MAX_OPEN_VISITS ends many visits early, and those too
// are current visitors). Past it, a visitor whose visit ended is no longer counted as current.
func (vs *Visits) endedLimit() int { return max(vs.perShard, 1024) }

func (vs *Visits) shard(id uint64) *visitShard { return &vs.shards[id%visitShards] }

// visitID is the part of a key the visits are held by.
func visitID(key VisitorKey) uint64 { return binary.LittleEndian.Uint64(key[:8]) }

// hit records a hit in its visit, starting one when none is open (or the open one has timed
// out), and says what the collector must count for it.
func (vs *Visits) hit(h *visitHit) visitOutcome {
	if h.hasPrev {
		if out, ok := vs.continueVisit(h, h.prevKey); ok {
			return out
		}
	}
	if out, ok := vs.continueVisit(h, h.key); ok {
		return out
	}
	if h.kind == hitEngagement {
		return visitOutcome{ignored: true}
	}
	return vs.start(h)
}

// continueVisit adds the hit to the visit open under key, if there is one that has not timed
// out.
func (vs *Visits) continueVisit(h *visitHit, key VisitorKey) (visitOutcome, bool) {
	id := visitID(key)
	s := vs.shard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.open[id]
	if !ok {
		return visitOutcome{}, false
	}
	if h.at-v.last >= vs.timeout {
		vs.end(s, v)
		return visitOutcome{}, false
	}
	switch h.kind {
	case hitPageview:
		if v.pageviews < math.MaxUint16 {
			v.pageviews++
		}
		if v.pageviews == 1 { // started by an event: the landing page is the first pageview's
			vs.moveLanding(v, h.page)
		}
		v.exit = h.page
	case hitEvent:
		v.flags |= hadEvent
	case hitEngagement:
		vs.engage(s, v, h)
	}
	if h.at > v.last {
		v.last = h.at
	}
	s.touch(v)
	out := visitOutcome{day: v.day, key: key, row: vs.rowEnd(v, false), pairsDropped: vs.keepPairs(v, h)}
	out.rowCut, out.propsCut = v.keepRow(h)
	if h.day == v.day {
		if bit := uint32(1) << h.hour; v.hoursSent&bit == 0 {
			v.hoursSent |= bit
			out.hourBits = bit
		}
	}
	// Later minutes only: a hit that arrives after a later one of its visit may have had its
	// minute counted already.
	if m := unixMinute(h.at); m > v.minuteSent {
		v.minuteSent, out.minuteVisitor = m, true
	}
	return out, true
}

// moveLanding makes page the landing page of a visit an event started; the event's page, if
// the counters hold it already, is taken back at once (rare: no need to remember it).
func (vs *Visits) moveLanding(v *visit, page string) {
	if v.flags&landingSent != 0 && v.landing != page {
		vs.counters.addDeltas([]delta{
			{Key{WebsiteID: v.websiteID, Name: stats.LandingPage, Day: v.day, Value: v.landing}, -1},
			{Key{WebsiteID: v.websiteID, Name: stats.LandingPage, Day: v.day, Value: page}, 1},
		})
	}
	v.landing = page
}

// start opens a visit for the hit.
func (vs *Visits) start(h *visitHit) visitOutcome {
	v := &visit{id: visitID(h.key), websiteID: h.websiteID, start: h.at, last: h.at, day: h.day, startHour: h.hour,
		landing: h.page, exit: h.page, hoursSent: 1 << h.hour, minuteSent: unixMinute(h.at)}
	switch h.kind {
	case hitPageview:
		v.pageviews = 1
	case hitEvent:
		v.flags |= hadEvent
	}
	out := visitOutcome{started: true, day: h.day, visited: true, hourBits: v.hoursSent, minuteVisitor: true, key: h.key, row: vs.rowEnd(v, false),
		pairsDropped: vs.keepPairs(v, h)}
	out.rowCut, out.propsCut = v.keepRow(h)
	v.addrSlot = vs.addrSlot(h.addr)
	if !vs.addAddress(v.addrSlot) {
		// One address past its bound: counted as a visit of this one hit, not kept.
		vs.metrics.endEarly(reasonAddressBound)
		vs.counters.openRow(out.row.ref, v.startHour)
		vs.counters.addVisitEnd(v.emit(nil, true), vs.rowEnd(v, true))
		return out
	}
	s := vs.shard(v.id)
	s.mu.Lock()
	defer s.mu.Unlock()
	// Under the shard's lock: Collect must not set the end of a row the counters do not know.
	vs.counters.openRow(out.row.ref, v.startHour)
	if old, ok := s.open[v.id]; ok { // another hit of the key opened one meanwhile
		vs.end(s, old)
	}
	for len(s.open) >= vs.perShard && s.first != nil {
		vs.metrics.endEarly(reasonMaxOpen)
		vs.end(s, s.first)
	}
	s.open[v.id] = v
	s.countDay(v.day, 1)
	s.append(v)
	s.touch(v)
	return out
}

// unixMinute is the minute of an instant in Unix nanoseconds.
func unixMinute(at int64) uint32 { return uint32(at / int64(time.Minute)) }

func (vs *Visits) addrSlot(ip netip.Addr) uint32 {
	b := ip.Unmap().As16()
	return uint32(maphash.Bytes(vs.addrSeed, b[:]) % perAddressSlots)
}

// addAddress counts one more open visit in an address's slot; false when it has its bound.
func (vs *Visits) addAddress(slot uint32) bool {
	c := &vs.perAddress[slot]
	for {
		n := c.Load()
		if n >= vs.maxPerAddress {
			return false
		}
		if c.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// end closes a visit: its last deltas and its row's end go to the counters; s.mu is held.
func (vs *Visits) end(s *visitShard, v *visit) {
	if v.flags&(rowDirty|rowHeld|rowEngaged) == 0 {
		// Its row was given everything and nothing of it is held back: another write would
		// repeat it (most visits are one hit: that was a second write of each row).
		vs.counters.addDeltas(v.emit(nil, true))
	} else {
		end := vs.rowEnd(v, true)
		end.engaged = vs.engagedRow(s, v)
		vs.counters.addVisitEnd(v.emit(nil, true), end)
	}
	v.flags |= hasEnded
	delete(s.open, v.id)
	s.countDay(v.day, -1)
	delete(s.engaged, v.id)
	s.unlink(v)
	vs.perAddress[v.addrSlot].Add(^uint32(0))
	if _, ok := s.ended[v.id]; ok || len(s.ended) < vs.endedLimit() {
		s.ended[v.id] = endedVisit{websiteID: v.websiteID, last: v.last}
	}
}

// Collect ends the visits whose last hit is older than the timeout at now and emits what the
// others did since the last Collect into the counters: the flusher calls it before it takes
// a batch.
func (vs *Visits) Collect(now time.Time) {
	at := now.UnixNano()
	var deltas []delta
	var ends []rowEnd
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for s.first != nil && at-s.first.last >= vs.timeout {
			vs.end(s, s.first)
		}
		kept := s.dirty[:0]
		for _, v := range s.dirty {
			if v.flags&hasEnded != 0 {
				v.flags &^= isDirty
				continue
			}
			full := (at-v.start)/int64(time.Second)-int64(v.emittedAt) >= int64(resendEvery/time.Second)
			ends = vs.collectRow(s, ends, v, full)
			deltas = v.emit(deltas, full)
			if full {
				v.emittedAt = int32((at - v.start) / int64(time.Second))
			}
			if v.pending() || v.flags&rowHeld != 0 {
				kept = append(kept, v) // its exit page or duration goes later
			} else {
				v.flags &^= isDirty
			}
		}
		clear(s.dirty[len(kept):])
		s.dirty = kept
		s.mu.Unlock()
		if len(deltas)+len(ends) > 4096 {
			vs.counters.collect(deltas, ends)
			deltas, ends = deltas[:0], ends[:0]
		}
	}
	vs.counters.collect(deltas, ends)
}

// EndAll ends every open visit (a node that stops: a restart ends the visits in progress).
func (vs *Visits) EndAll() {
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for s.first != nil {
			vs.end(s, s.first)
		}
		s.dirty = s.dirty[:0]
		s.mu.Unlock()
	}
}

// Current counts, per website, the visitors with a hit in the last `within` at now: this
// node's distinct visitor keys of the realtime view, whether their visit is still open or
// ended meanwhile (a VISIT_TIMEOUT shorter than `within`, MAX_OPEN_VISITS). It reads only the
// open visits that recent, from the most recent back, and forgets the ended ones older than
// that. A hit of an address past its bound of open visits is not kept, and not counted here.
func (vs *Visits) Current(now time.Time, within time.Duration) map[int64]int {
	since := now.Add(-within).UnixNano()
	out := map[int64]int{}
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for v := s.last; v != nil && v.last >= since; v = v.prev {
			out[v.websiteID]++
		}
		for id, e := range s.ended {
			switch {
			case e.last < since:
				delete(s.ended, id)
			case s.open[id] == nil: // an open visit of the key started later: counted above
				out[e.websiteID]++
			}
		}
		s.mu.Unlock()
	}
	return out
}

// Open is the number of open visits.
func (vs *Visits) Open() int {
	n := 0
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		n += len(s.open)
		s.mu.Unlock()
	}
	return n
}

// touch moves v to the end of the order by last hit and marks it changed.
func (s *visitShard) touch(v *visit) {
	if s.last != v {
		s.unlink(v)
		s.append(v)
	}
	v.flags |= rowDirty
	if v.flags&isDirty == 0 {
		v.flags |= isDirty
		s.dirty = append(s.dirty, v)
	}
}

func (s *visitShard) append(v *visit) {
	v.prev, v.next = s.last, nil
	if s.last != nil {
		s.last.next = v
	} else {
		s.first = v
	}
	s.last = v
}

func (s *visitShard) unlink(v *visit) {
	if v.prev != nil {
		v.prev.next = v.next
	} else if s.first == v {
		s.first = v.next
	}
	if v.next != nil {
		v.next.prev = v.prev
	} else if s.last == v {
		s.last = v.prev
	}
	v.prev, v.next = nil, nil
}

// rowRef names v's row: its website and day, the day number (visitorDayNumber) and an id that
// is random to anyone but this process, from the visit's id and start under rowSeed, so that
// it links no two visits.
func (vs *Visits) rowRef(v *visit) rowRef {
	id := maphash.Comparable(vs.rowSeed, [2]int64{int64(v.id), v.start})
	return rowRef{websiteID: v.websiteID, day: v.day, visitor: visitorDayNumber(v.id, v.day), id: int64(id & math.MaxInt64)}
}

// visitorDayNumber is the day number of a visit's row: 32 bits mixed from its visitor key
// (the first 8 bytes, which id holds) and the website's day. A website's day need not be the
// salt's (TZ's), so one key can see two website days: mixing the day in keeps the numbers of
// one key on two days apart, so no stored number links two website-days. The mix is the same
// on every node (SplitMix64's finaliser), and without the salt the key cannot be made again.
func visitorDayNumber(id uint64, day int32) int32 {
	x := id ^ uint64(uint32(day))*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return int32(uint32(x >> 32))
}

// rowEnd is what v's row holds of the visit as it is now; due: what the counters hold of its
// row goes with the next flush.
func (vs *Visits) rowEnd(v *visit, due bool) rowEnd {
	return rowEnd{ref: vs.rowRef(v), hour: v.startHour, landing: stats.Storable(v.landing), exit: stats.Storable(v.exit),
		seconds: secondsOf(v.start, v.last), bounce: v.pageviews == 1 && v.flags&hadEvent == 0, due: due}
}

// collectRow sets the end of v's row when it had a hit since the last time, or when it is
// due (full) with a part held back; s.mu is held. The end carries the visit's engagement
// when it changed. A row's first write goes at once; what a visit adds later
// goes with its full emissions (every resendEvery, and when it ends), as its exit page and
// duration do: a visitor who sends a hit every second would otherwise rewrite the row every
// flush (in `make bench-ingest`, 20,000 visitors doing so cut the accepted hits by a quarter).
func (vs *Visits) collectRow(s *visitShard, ends []rowEnd, v *visit, full bool) []rowEnd {
	if v.flags&rowDirty == 0 && !(full && v.flags&rowHeld != 0) {
		return ends
	}
	v.flags &^= rowDirty
	end := vs.rowEnd(v, full)
	end.engaged = vs.engagedRow(s, v)
	// An end that joins the row's first write, still to go, is written with it: nothing is
	// held back then, and the visit's end need not write the row again (end).
	if full || vs.counters.firstWriteWaits(end.ref) {
		v.flags &^= rowHeld
	} else {
		v.flags |= rowHeld
	}
	return append(ends, end)
}

// pending tells whether the counters still miss a change of v's exit page or duration.
func (v *visit) pending() bool {
	return v.exit != v.flushedExit || int32((v.last-v.start)/int64(time.Second)) != v.flushedSeconds
}

// resendEvery is how often at most a visit's moving exit page and growing duration are sent
// to the counters, and the part its row gathered written, while it goes on: a visit of a hit
// every second would otherwise cost two exit-page keys, two duration keys and a row write
// every flush. Every number must count a hit within 5 s of its 202 at FLUSH_INTERVAL 1 s: a
// hit just after a full emission waits at most resendEvery (seconds are whole, so a little
// less), then up to a flush interval for the flush that sees it due, then that flush's write.
// 3 s leaves about a second for the write; docs/filters.md ("Collection") has what it costs.
const resendEvery = 3 * time.Second

// hourValues are stats.HourValue of each hour, made once.
var hourValues = func() (out [25]string) {
	for h := range out {
		out[h] = stats.HourValue(h)
	}
	return out
}()

// delta is an amount to add to one counter; it may be negative (an exit page that moved, a
// bounce that ended).
type delta struct {
	key Key
	n   int64
}

// emit appends what changed in v since its last emission: its landing page once, its exit
// page (-1 on the old value, +1 on the new), bounce (+1 while it has one pageview and no event, -1 after) and
// duration, daily and by the hour it started.
//
// Unless full, only the landing page and the bounce go (both change at most twice a visit);
// the exit page and the duration of a visit that sends many hits go at most every
// resendEvery and when it ends: what changed meanwhile is merged into one -1/+1 and one sum.
func (v *visit) emit(out []delta, full bool) []delta {
	add := func(name stats.Name, value string, n int64) {
		out = append(out, delta{Key{WebsiteID: v.websiteID, Name: name, Day: v.day, Value: value}, n})
	}
	if v.flags&landingSent == 0 {
		add(stats.LandingPage, v.landing, 1)
		v.flags |= landingSent
	}
	if v.exit != v.flushedExit && (full || v.flushedExit == "") {
		if v.flushedExit != "" {
			add(stats.ExitPage, v.flushedExit, -1)
		}
		add(stats.ExitPage, v.exit, 1)
		v.flushedExit = v.exit
	}
	hour := hourValues[v.startHour]
	if bounce := v.pageviews == 1 && v.flags&hadEvent == 0; bounce != (v.flags&flushedBounce != 0) {
		n := int64(1)
		if !bounce {
			n = -1
		}
		add(stats.Bounce, dayString(v.day), n)
		add(stats.BounceHour, hour, n)
		v.flags ^= flushedBounce
	}
	if seconds := int32((v.last - v.start) / int64(time.Second)); seconds != v.flushedSeconds && full {
		add(stats.VisitSeconds, dayString(v.day), int64(seconds-v.flushedSeconds))
		add(stats.VisitSecondsHour, hour, int64(seconds-v.flushedSeconds))
		v.flushedSeconds = seconds
	}
	return out
}

// dayCount is how many open visits of a shard count on a day.
type dayCount struct{ day, n int32 }

// countDay adds d (1: a visit opened, -1: one ended) to the shard's visits of day; s.mu is held.
func (s *visitShard) countDay(day, d int32) {
	for i := range s.days {
		if s.days[i].day == day {
			if s.days[i].n += d; s.days[i].n == 0 {
				s.days = slices.Delete(s.days, i, i+1)
			}
			return
		}
	}
	s.days = append(s.days, dayCount{day: day, n: d})
}

// OldestDay is the earliest day (a Key.Day) of the open visits; ok is false when none is
// open. Whatever this node writes later counts on it or later, or on a day that starts
// after now: what a day's rows can still receive (the flusher reports it, docs/big-sites.md).
func (vs *Visits) OldestDay() (day int32, ok bool) {
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for _, c := range s.days {
			if !ok || c.day < day {
				day, ok = c.day, true
			}
		}
		s.mu.Unlock()
	}
	return day, ok
}
