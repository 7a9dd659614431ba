package ingest

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Visits are the open visits of this node (CONTRACT.md section 8), in memory only, by visitor
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
	maxPerAddress int
	counters      *Counters
	metrics       *Metrics
	shards        [visitShards]visitShard
	addrs         [visitShards]addrShard
	addrSeed      maphash.Seed
}

// visitShards split the visits so that hits of different visitors rarely wait for each other.
const visitShards = 32

type visitShard struct {
	mu    sync.Mutex
	open  map[VisitorKey]*visit
	first *visit // the least recent last hit: next to expire or to be ended early
	last  *visit
	dirty []*visit // changed since the last Collect
	_     [40]byte // a cache line of its own
}

type addrShard struct {
	mu    sync.Mutex
	count map[uint64]int32
	_     [48]byte
}

// visit is one open visit; the flushed* fields are what the counters already hold of it.
type visit struct {
	key            VisitorKey
	websiteID      int64
	start, last    int64 // Unix nanoseconds
	addr           uint64
	prev, next     *visit
	landing, exit  string
	flushedLanding string
	flushedExit    string
	flushedSeconds int64
	pageviews      uint32
	hoursSent      uint32 // hour bits of the visit's day already sent as day membership
	day            int32  // Key.Day of its first hit: the day it counts on
	startHour      uint8
	events         bool
	flushedBounce  bool
	dirty          bool
	ended          bool
}

// hitKind says what a hit is to its visit.
type hitKind uint8

const (
	hitPageview   hitKind = iota
	hitEvent              // counts event, ends a bounce
	hitEngagement         // extends the duration only; ignored with no open visit
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
	key      VisitorKey // the key the visit is held under
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
	v := &Visits{timeout: int64(timeout), perShard: max(1, maxOpen/visitShards), maxPerAddress: maxPerAddress,
		counters: counters, metrics: metrics, addrSeed: maphash.MakeSeed()}
	if maxOpen < visitShards {
		v.perShard = 1
	}
	for i := range v.shards {
		v.shards[i].open = make(map[VisitorKey]*visit)
		v.addrs[i].count = make(map[uint64]int32)
	}
	return v
}

func (vs *Visits) shard(key VisitorKey) *visitShard { return &vs.shards[key[0]%visitShards] }

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
	s := vs.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.open[key]
	if !ok {
		return visitOutcome{}, false
	}
	if h.at-v.last >= vs.timeout {
		vs.end(s, v)
		return visitOutcome{}, false
	}
	switch h.kind {
	case hitPageview:
		v.pageviews++
		if v.pageviews == 1 { // started by an event: the landing page is the first pageview's
			v.landing = h.page
		}
		v.exit = h.page
	case hitEvent:
		v.events = true
	}
	if h.at > v.last {
		v.last = h.at
	}
	s.touch(v)
	out := visitOutcome{day: v.day, key: key}
	if h.day == v.day {
		if bit := uint32(1) << h.hour; v.hoursSent&bit == 0 {
			v.hoursSent |= bit
			out.hourBits = bit
		}
	}
	return out, true
}

// start opens a visit for the hit.
func (vs *Visits) start(h *visitHit) visitOutcome {
	v := &visit{key: h.key, websiteID: h.websiteID, start: h.at, last: h.at, day: h.day, startHour: h.hour,
		landing: h.page, exit: h.page, hoursSent: 1 << h.hour}
	switch h.kind {
	case hitPageview:
		v.pageviews = 1
	case hitEvent:
		v.events = true
	}
	out := visitOutcome{started: true, day: h.day, visited: true, hourBits: v.hoursSent, key: h.key}
	v.addr = vs.addrHash(h.addr)
	if !vs.addAddress(v.addr) {
		// One address past its bound: counted as a visit of this one hit, not kept.
		vs.metrics.endEarly(reasonAddressBound)
		vs.counters.addDeltas(v.emit(nil))
		return out
	}
	s := vs.shard(h.key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.open[h.key]; ok { // another hit of the key opened one meanwhile
		vs.end(s, old)
	}
	for len(s.open) >= vs.perShard && s.first != nil {
		vs.metrics.endEarly(reasonMaxOpen)
		vs.end(s, s.first)
	}
	s.open[h.key] = v
	s.append(v)
	s.touch(v)
	return out
}

func (vs *Visits) addrHash(ip netip.Addr) uint64 {
	b := ip.Unmap().As16()
	return maphash.Bytes(vs.addrSeed, b[:])
}

// addAddress counts one more open visit of the address; false when it has its bound.
func (vs *Visits) addAddress(addr uint64) bool {
	a := &vs.addrs[addr%visitShards]
	a.mu.Lock()
	defer a.mu.Unlock()
	if int(a.count[addr]) >= vs.maxPerAddress {
		return false
	}
	a.count[addr]++
	return true
}

func (vs *Visits) dropAddress(addr uint64) {
	a := &vs.addrs[addr%visitShards]
	a.mu.Lock()
	if a.count[addr] <= 1 {
		delete(a.count, addr)
	} else {
		a.count[addr]--
	}
	a.mu.Unlock()
}

// end closes a visit: its last deltas go to the counters; s.mu is held.
func (vs *Visits) end(s *visitShard, v *visit) {
	vs.counters.addDeltas(v.emit(nil))
	v.ended = true
	delete(s.open, v.key)
	s.unlink(v)
	vs.dropAddress(v.addr)
}

// Collect ends the visits whose last hit is older than the timeout at now and emits what the
// others did since the last Collect into the counters: the flusher calls it before it takes
// a batch.
func (vs *Visits) Collect(now time.Time) {
	at := now.UnixNano()
	var deltas []delta
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for s.first != nil && at-s.first.last >= vs.timeout {
			vs.end(s, s.first)
		}
		for _, v := range s.dirty {
			v.dirty = false
			if !v.ended {
				deltas = v.emit(deltas)
			}
		}
		clear(s.dirty)
		s.dirty = s.dirty[:0]
		s.mu.Unlock()
		if len(deltas) > 4096 {
			vs.counters.addDeltas(deltas)
			deltas = deltas[:0]
		}
	}
	vs.counters.addDeltas(deltas)
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

// Current counts, per website, the visits with a hit in the last `within` at now: this node's
// distinct visitor keys of the realtime view. It reads only the visits that recent, from the
// most recent back.
func (vs *Visits) Current(now time.Time, within time.Duration) map[int64]int {
	since := now.Add(-within).UnixNano()
	out := map[int64]int{}
	for i := range vs.shards {
		s := &vs.shards[i]
		s.mu.Lock()
		for v := s.last; v != nil && v.last >= since; v = v.prev {
			out[v.websiteID]++
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
	if !v.dirty {
		v.dirty = true
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

// emit appends what changed in v since its last emission: landing and exit pages (-1 on the
// old value, +1 on the new), bounce (+1 while it has one pageview and no event, -1 after) and
// duration, daily and by the hour it started.
func (v *visit) emit(out []delta) []delta {
	add := func(name stats.Name, value string, n int64) {
		out = append(out, delta{Key{WebsiteID: v.websiteID, Name: name, Day: v.day, Value: value}, n})
	}
	move := func(name stats.Name, from *string, to string) {
		if *from == to {
			return
		}
		if *from != "" {
			add(name, *from, -1)
		}
		add(name, to, 1)
		*from = to
	}
	move(stats.LandingPage, &v.flushedLanding, v.landing)
	move(stats.ExitPage, &v.flushedExit, v.exit)
	hour := hourValues[v.startHour]
	if bounce := v.pageviews == 1 && !v.events; bounce != v.flushedBounce {
		n := int64(1)
		if !bounce {
			n = -1
		}
		add(stats.Bounce, dayString(v.day), n)
		add(stats.BounceHour, hour, n)
		v.flushedBounce = bounce
	}
	if seconds := (v.last - v.start) / int64(time.Second); seconds != v.flushedSeconds {
		add(stats.VisitSeconds, dayString(v.day), seconds-v.flushedSeconds)
		add(stats.VisitSecondsHour, hour, seconds-v.flushedSeconds)
		v.flushedSeconds = seconds
	}
	return out
}
