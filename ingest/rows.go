package ingest

import (
	"time"

	"github.com/analytics-service/analytics/repository"
)

// A visit's row for filters (visit_rows, docs/filters.md) is built in memory between flushes,
// next to the counters and bounded with them: the first hit of a visit gives it its values,
// each pageview and event appends to it, and Visits (Collect, end) sets what changes as the
// visit goes on (landing and exit page, bounce, seconds). A flush writes what a row gathered
// since the last one; the repository appends it to what is written.

// rowRef names a visit's row: its key in visit_rows.
type rowRef struct {
	websiteID int64
	day       int32
	visitor   int32 // the day number
	id        int64
}

// rowValues are a visit's visit-level values as its first hit counts them.
type rowValues struct {
	referrer, searchEngine, socialNetwork, campaign, browser, operatingSystem, device string
	language, screenResolution, continent, country, city                              string
}

// rowEnd is what Visits set on a row: as the visit is now.
type rowEnd struct {
	ref           rowRef
	hour          uint8 // the hour the visit started
	landing, exit string
	seconds       int32
	bounce        bool
	due           bool // what the row gathered goes with the next flush (else only a first write does)
}

// pendingRow is a row's part not yet written. The counters hold them by id alone (a map of
// int64 costs far less a hit than one of rowRef): ids are 63 random bits, so two visits of one
// node share one (and then one row) about once in 10^9 flushes of 200,000 rows.
type pendingRow struct {
	ref rowRef
	// values are the visit's values, in its first write only: nil in the later parts, which
	// wait in memory up to resendEvery and are most of the rows held (a pointer, not 192 bytes
	// of empty strings each, that the garbage collector would scan).
	values     *rowValues
	needValues bool // its visit's first hit has not given its values yet
	hasEnd     bool // Visits set its landing, exit, bounce and seconds
	first      bool // the row's first write, which goes at once
	due        bool // a later write, held back until Visits say it is due
	hour       uint8
	bounce     bool
	seconds    int32
	pageviews  int32
	landing    string
	exit       string
	pages      []string
	events     []string
}

// ready tells whether a row may be written: a write without its values would lose them (the
// later writes only append), and one without its end would blank its exit page; a later
// write waits until it is due (Visits.collectRow).
func (r *pendingRow) ready() bool { return r.hasEnd && !r.needValues && (r.first || r.due) }

// openRow notes a visit that just started: its row waits for the values of its first hit
// (rowHit) and for its end (setEnd). The visit's shard lock is held, so that Collect cannot
// set the end of a row this does not know yet. Not refused at the bound: the hit that follows
// is.
func (c *Counters) openRow(ref rowRef, hour uint8) {
	c.mu.Lock()
	c.waiting[ref.id] = &pendingRow{ref: ref, needValues: true, first: true, hour: hour}
	c.mu.Unlock()
}

// rowHit adds a hit to its row (c.mu is held): the visit's values on its first hit, the page
// of a pageview, the event of an event. A part with no end yet takes the hit's: a hit that
// raced its visit's end (the visit ended between the hit and this) must still be writable,
// and nothing else would give it one.
func (c *Counters) rowHit(x *hitExtras) {
	id := x.row.ref.id
	r, ready := c.rows[id]
	if !ready {
		r = c.waiting[id]
		if r == nil {
			r = &pendingRow{ref: x.row.ref, hour: x.row.hour}
			c.waiting[id] = r
		}
	}
	if x.hasValues {
		values := x.values
		r.values, r.needValues = &values, false
	}
	if x.pageview != nil {
		if r.pages == nil {
			r.pages = make([]string, 0, 2) // most visits have one or two pageviews a flush
		}
		r.pages = append(r.pages, x.rowPage)
		r.pageviews++
	}
	if x.event != "" {
		r.events = append(r.events, x.event)
	}
	if !r.hasEnd {
		e := &x.row
		r.hasEnd, r.landing, r.exit, r.seconds, r.bounce = true, e.landing, e.exit, e.seconds, e.bounce
	}
	if len(r.pages)+len(r.events) >= maxHeldHits {
		r.due = true
	}
	if !ready && r.ready() {
		delete(c.waiting, id)
		c.rows[id] = r
	}
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
	if r := c.waiting[ref.id]; r != nil {
		r.needValues = false
		if r.ready() {
			delete(c.waiting, ref.id)
			c.rows[ref.id] = r
		}
	}
}

// setEnd sets a row's landing and exit page, bounce and seconds as its visit is now
// (absolute: the last set wins); c.mu is held. Not refused at the bound, like addDeltas: what
// visits owe. A row unknown here was written before: its entry carries what follows.
func (c *Counters) setEnd(e *rowEnd) {
	r, ready := c.rows[e.ref.id]
	if !ready {
		if r = c.waiting[e.ref.id]; r == nil {
			r = &pendingRow{ref: e.ref, hour: e.hour}
			c.waiting[e.ref.id] = r
		}
	}
	r.hasEnd, r.landing, r.exit, r.seconds, r.bounce = true, e.landing, e.exit, e.seconds, e.bounce
	r.due = r.due || e.due
	if !ready && r.ready() {
		delete(c.waiting, e.ref.id)
		c.rows[e.ref.id] = r
	}
}

// releaseWaiting makes every waiting row ready as it is (a node that stops: its visits have
// ended, and nothing will come for them).
func (c *Counters) releaseWaiting() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, r := range c.waiting {
		c.rows[id] = r
	}
	c.waiting = make(map[int64]*pendingRow)
}

// noValues are the values of a row's later parts: "" each, ignored by the upsert.
var noValues rowValues

// visitRows turns the rows taken into the batch's.
func visitRows(rows map[int64]*pendingRow) []repository.VisitRow {
	out := make([]repository.VisitRow, 0, len(rows))
	for _, r := range rows {
		ref := r.ref
		row := repository.VisitRow{WebsiteID: ref.websiteID, Day: dayDate(ref.day), Visitor: ref.visitor, ID: ref.id,
			Hour: int(r.hour), Pageviews: int(r.pageviews), Seconds: int(r.seconds), Bounce: r.bounce,
			LandingPage: r.landing, ExitPage: r.exit, Pages: r.pages, Events: r.events}
		v := r.values // nil in the later writes: only the first inserts the row
		if v == nil {
			v = &noValues
		}
		row.Referrer, row.SearchEngine, row.SocialNetwork, row.Campaign = v.referrer, v.searchEngine, v.socialNetwork, v.campaign
		row.Browser, row.OperatingSystem, row.Device, row.Language = v.browser, v.operatingSystem, v.device, v.language
		row.ScreenResolution, row.Continent, row.Country, row.City = v.screenResolution, v.continent, v.country, v.city
		out = append(out, row)
	}
	return out
}

// secondsOf is a visit's duration as the visit_seconds counter counts it.
func secondsOf(start, last int64) int32 { return int32((last - start) / int64(time.Second)) }
