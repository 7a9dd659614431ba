package ingest

import (
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// ErrFull: the counters hold as many distinct keys as they may; the endpoint answers 503 rather
// than accept an event it could not keep.
var ErrFull = errors.New("ingest: counter buffer is full")

// Key is one daily counter. The day is a number (days since 1970-01-01) rather than a
// time.Time: the key is hashed on every hit, and a small integer hashes faster.
type Key struct {
	WebsiteID int64
	Name      stats.Name
	Day       int32
	Value     string
}

// dayNumber turns midnight UTC of a calendar day into its Key.Day.
func dayNumber(t time.Time) int32 { return int32(t.Unix() / 86400) }

// dayString is a Key.Day as the value of the pageview and visitor statistics (stats.DayValue).
// The last one made is kept: all hits of a day share it instead of formatting their own.
func dayString(day int32) string {
	if last := lastDay.Load(); last != nil && last.day == day {
		return last.text
	}
	d := &formattedDay{day: day, text: stats.DayValue(dayDate(day))}
	lastDay.Store(d)
	return d.text
}

type formattedDay struct {
	day  int32
	text string
}

var lastDay atomic.Pointer[formattedDay]

// dayDate turns a Key.Day back into midnight UTC of its calendar day.
func dayDate(day int32) time.Time { return time.Unix(int64(day)*86400, 0).UTC() }

// Counters aggregate hits in memory between flushes. The hit path only takes a short lock and
// increments map entries; the flusher swaps the whole maps out.
type Counters struct {
	mu      sync.Mutex
	counts  map[Key]int64
	members map[memberKey]memberBits
	minutes map[minuteKey]minuteCounts
	recent  map[int64]*recentViews
	// rowStore holds the visits' rows not yet written (rows.go): those ready to be written,
	// and those that still miss their visit's values or end, kept from one batch to the next
	// until they have them.
	rowStore rowStore
	held     int // distinct keys and rows taken by the flusher and not yet written
	maxKeys  int
	// maxBytes bounds the bytes of the held rows' texts (their pages, events, values and
	// properties; rowStore.texts), which the bound of keys does not: a row's part may hold
	// kilobytes of properties.
	maxBytes int
	// soon is signalled when the map passes half its bound, so the flusher writes early.
	soon chan struct{}
}

// memberKey is a visitor key's day membership on a website (repository.Member).
type memberKey struct {
	websiteID int64
	day       int32
	key       VisitorKey
}

type memberBits struct {
	visited bool
	hours   uint32
}

// minuteKey is a website's minute (Unix minutes), for the realtime view and Today's graph by
// the minute.
type minuteKey struct {
	websiteID int64
	minute    int64
}

// minuteCounts are what a minute counts (repository.RealtimeMinute).
type minuteCounts struct{ pageviews, visitors, visits int64 }

func (m minuteCounts) add(o minuteCounts) minuteCounts {
	return minuteCounts{m.pageviews + o.pageviews, m.visitors + o.visitors, m.visits + o.visits}
}

func (m minuteCounts) empty() bool { return m == minuteCounts{} }

// recentView is a pageview of the realtime list (repository.RecentPageview).
// Its address and user agent are kept until the flush takes it, which resolves them to country,
// browser and device for the few views it keeps, and then drops them.
type recentView struct {
	at             int64 // Unix nanoseconds
	page, referrer string
	ip             netip.Addr
	userAgent      string
}

// recentViews are a website's hits of a batch as the realtime view, its minutes and the hourly
// pageviews need them: its last repository.RealtimeRecentMax pageviews, its counts of the last
// two minutes and its pageviews of the last two hours seen (a batch of a second rarely spans
// more), counted here rather than as counter keys: one lookup by website a hit instead of two
// map operations on string keys. Older minutes and hours move to the maps when a newer one needs the slot.
type recentViews struct {
	views   [recentMax]recentView
	n       int // views written in all; the last recentMax are kept
	minutes [2]minuteSlot
	hours   [2]hourSlot
}

type minuteSlot struct {
	minute int64 // Unix minutes; 0: empty
	n      minuteCounts
}

type hourSlot struct {
	day  int32
	hour uint8
	n    int64 // 0: empty
}

// addMinute adds a hit's counts to its minute; c.mu is held.
func (c *Counters) addMinute(site int64, r *recentViews, minute int64, n minuteCounts) {
	switch {
	case r.minutes[0].minute == minute:
		r.minutes[0].n = r.minutes[0].n.add(n)
	case r.minutes[1].minute == minute:
		r.minutes[1].n = r.minutes[1].n.add(n)
	default:
		old := &r.minutes[0]
		if r.minutes[1].minute < old.minute {
			old = &r.minutes[1]
		}
		if !old.n.empty() {
			c.minutes[minuteKey{site, old.minute}] = c.minutes[minuteKey{site, old.minute}].add(old.n)
		}
		*old = minuteSlot{minute: minute, n: n}
	}
}

// addPageviewHour counts a pageview in its hour; c.mu is held.
func (c *Counters) addPageviewHour(site int64, r *recentViews, day int32, hour uint8) {
	switch {
	case r.hours[0].n > 0 && r.hours[0].day == day && r.hours[0].hour == hour:
		r.hours[0].n++
	case r.hours[1].n > 0 && r.hours[1].day == day && r.hours[1].hour == hour:
		r.hours[1].n++
	default:
		old := &r.hours[0]
		if r.hours[1].n == 0 || (old.n > 0 && (r.hours[1].day < old.day || r.hours[1].day == old.day && r.hours[1].hour < old.hour)) {
			old = &r.hours[1]
		}
		c.moveHour(site, old)
		*old = hourSlot{day: day, hour: hour, n: 1}
	}
}

// moveHour adds an hour slot's pageviews to the counters and empties it; c.mu is held.
func (c *Counters) moveHour(site int64, h *hourSlot) {
	if h.n > 0 {
		c.counts[Key{WebsiteID: site, Name: stats.PageviewHour, Day: h.day, Value: hourValues[h.hour]}] += h.n
	}
	*h = hourSlot{}
}

// settle moves every website's minute and hour slots to the maps (before a take); c.mu is held.
func (c *Counters) settle() {
	for site, r := range c.recent {
		for i := range r.minutes {
			if m := &r.minutes[i]; !m.n.empty() {
				c.minutes[minuteKey{site, m.minute}] = c.minutes[minuteKey{site, m.minute}].add(m.n)
				*m = minuteSlot{}
			}
		}
		for i := range r.hours {
			c.moveHour(site, &r.hours[i])
		}
	}
}

const recentMax = 25

// NewCounters bounds the distinct keys held in memory, live and awaiting a write together, and
// the bytes of the rows' texts held (bytesPerKey a key, at least minBufferBytes).
func NewCounters(maxKeys int) *Counters {
	c := &Counters{maxKeys: maxKeys, maxBytes: max(maxKeys*bytesPerKey, minBufferBytes), soon: make(chan struct{}, 1), rowStore: newRowStore()}
	c.reset(1024)
	return c
}

// bytesPerKey and minBufferBytes make the bound of the bytes of the rows' texts held: 51 MB
// at the default BUFFER_MAX_KEYS, where ordinary visits hold a few hundred bytes of texts a row
// and share most of them (a text is held once however many rows hold it).
const (
	bytesPerKey    = 256
	minBufferBytes = 1 << 20
)

func (c *Counters) reset(size int) {
	c.counts = make(map[Key]int64, size)
	c.members = make(map[memberKey]memberBits)
	c.minutes = make(map[minuteKey]minuteCounts)
	c.recent = make(map[int64]*recentViews)
}

// hitExtras are what a hit adds besides its counters: its key's day membership and, for a
// pageview, the realtime view.
type hitExtras struct {
	// member and pageview are held here, not pointed to: AddHit keeps what they hold, so a
	// pointer made each an allocation a hit. hasMember, hasPageview: the hit has one.
	hasMember   bool
	member      memberKey
	bits        memberBits
	hasPageview bool
	pageview    recentView
	// minute: what the hit adds to its minute (at, Unix nanoseconds): its pageview, and its
	// visit as a visitor and a visit of that minute.
	minute minuteCounts
	at     int64
	site   int64
	day    int32 // the pageview's day and hour (TZ), for pageview_hour
	hour   uint8
	// The hit's part of its visit's row: the visit's values on its first hit, the page of a
	// pageview (with hasPageview), the event of an event. hasRow false: no row (an
	// engagement).
	hasRow    bool
	row       rowEnd // the visit's row as the hit leaves it
	hasValues bool
	values    stats.Values // held here, not pointed to: no allocation a visit
	rowPage   string
	event     string
	eventName string   // the event's name as sent (event holds the counted name:value:unit)
	props     []string // the hit's custom properties its visit kept, stats.PropPair each
	revenue   string   // an event's revenue, revenuePart; "" for none
	// rowCut: the row is full (Visits.keepRow): the hit adds its pageview to the row's count,
	// and neither its page nor its event.
	rowCut bool
}

// AddHit counts one hit's keys and extras, all or none; ErrFull when they would pass the
// bound.
func (c *Counters) AddHit(keys []Key, x *hitExtras) error {
	need := len(keys)
	if x.hasMember {
		need++ // its membership may be a new entry
	}
	if x.hasRow {
		need++ // its row may be a new entry
	}
	c.mu.Lock()
	// Counting the new keys costs a map operation a key; it is needed only near the bound.
	if used := c.used(); used+need > c.maxKeys && used+need-len(keys)+c.fresh(keys) > c.maxKeys || c.rowStore.texts.bytes > c.maxBytes {
		c.mu.Unlock()
		c.flushSoon(c.maxKeys)
		return ErrFull
	}
	for _, k := range keys {
		c.counts[k]++
	}
	if x.hasMember {
		b := c.members[x.member]
		b.visited = b.visited || x.bits.visited
		b.hours |= x.bits.hours
		c.members[x.member] = b
	}
	if x.hasPageview || !x.minute.empty() {
		r := c.recent[x.site]
		if r == nil {
			r = &recentViews{}
			c.recent[x.site] = r
		}
		if x.hasPageview {
			r.views[r.n%recentMax] = x.pageview
			r.n++
			c.addPageviewHour(x.site, r, x.day, x.hour)
		}
		c.addMinute(x.site, r, x.at/int64(time.Minute), x.minute)
	}
	if x.hasRow {
		c.rowHit(x)
	}
	n := len(c.counts) + len(c.members) + len(c.rowStore.slots)
	if 2*c.rowStore.texts.bytes > c.maxBytes {
		n = c.maxKeys // past half the bytes: as soon as past half the keys
	}
	c.mu.Unlock()
	c.flushSoon(n)
	return nil
}

// addDeltas adds a visit's deltas. They are not refused at the bound: they are what visits
// already answered 202 still owe the counters, few keys a visit.
func (c *Counters) addDeltas(deltas []delta) {
	if len(deltas) == 0 {
		return
	}
	c.mu.Lock()
	for _, d := range deltas {
		c.counts[d.key] += d.n
	}
	c.mu.Unlock()
}

// addVisitEnd adds a visit's deltas and sets its row's end, at once (a visit that ends).
func (c *Counters) addVisitEnd(deltas []delta, end rowEnd) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range deltas {
		c.counts[d.key] += d.n
	}
	c.setEnd(&end)
}

// collect adds the deltas and row ends of Visits.Collect under one lock.
func (c *Counters) collect(deltas []delta, ends []rowEnd) {
	if len(deltas) == 0 && len(ends) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range deltas {
		c.counts[d.key] += d.n
	}
	for i := range ends {
		c.setEnd(&ends[i])
	}
}

// Add counts keys with no extras, all or none (AddHit). Only keys not yet in memory count
// against the bound, so a full buffer still takes hits that repeat known counters.
func (c *Counters) Add(keys []Key) error { return c.AddHit(keys, &hitExtras{}) }

// fresh is how many of the keys are not in the live map; c.mu is held.
func (c *Counters) fresh(keys []Key) int {
	n := 0
	for _, k := range keys {
		if _, ok := c.counts[k]; !ok {
			n++
		}
	}
	return n
}

// used is what the bound counts: keys and rows, live, waiting and held; c.mu is held.
func (c *Counters) used() int {
	return len(c.counts) + len(c.members) + len(c.rowStore.slots) + c.held
}

// flushSoon wakes the flusher once the live map holds n keys, past half the bound.
func (c *Counters) flushSoon(n int) {
	if n > c.maxKeys/2 {
		select {
		case c.soon <- struct{}{}:
		default:
		}
	}
}

// taken is what the flusher took from the live maps.
type taken struct {
	counts  map[Key]int64
	members map[memberKey]memberBits
	minutes map[minuteKey]minuteCounts
	recent  map[int64]*recentViews
	rows    takenRows
}

// size is how much of the bound what was taken holds.
func (t *taken) size() int { return len(t.counts) + len(t.members) + len(t.rows.rows) }

// take swaps the live maps out; their keys stay counted against the bound until release.
func (c *Counters) take() taken {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settle()
	t := taken{counts: c.counts, members: c.members, minutes: c.minutes, recent: c.recent, rows: c.rowStore.take(c.maxBytes / 2)}
	c.reset(len(t.counts))
	c.held += t.size()
	return t
}

// release frees the bound of a batch that is now written.
func (c *Counters) release(n int) {
	c.mu.Lock()
	c.held -= n
	c.mu.Unlock()
}

// Full tells whether the buffer may refuse the next hit: it has no room left for the counters
// of one more visit.
func (c *Counters) Full() bool {
	need := keysPerVisit()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used()+need > c.maxKeys || c.rowStore.texts.bytes > c.maxBytes
}

// Size is the number of distinct keys and visit rows in memory, live, waiting and held.
func (c *Counters) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used()
}
