package goatcounter

import (
	"container/list"
	"net/url"
	"strings"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/sources"
	"github.com/analytics-service/analytics/stats"
)

// GoatCounter's export is hits; the counters here are of visits and visitors (section 8 of
// the statistics), so the import makes the visits again from the hits, as the collector makes
// them: a run of one session's hits with no gap of VisitTimeout is a visit, counted on the
// day (in the website's zone) it starts with its first hit's values; pageviews and events
// count on their own day and hour; a session is a visitor once a day. A hit without a
// session (GoatCounter kept none) is a visit of its own.

// VisitTimeout ends a visit, as the collector's default VISIT_TIMEOUT does.
const VisitTimeout = 30 * time.Minute

// MaxSessions bounds the sessions held at once while an export is read; past it the one
// seen least recently ends (its visit counted), and a later hit of it starts a new visit, as
// MAX_OPEN_VISITS does in the collector. Rows come in the order GoatCounter stored them, by
// time, so a session seen last 100,000 sessions ago has ended anyway. About 200 bytes each.
const MaxSessions = 100_000

// counter adds n to a counter of a day.
type counter func(name stats.Name, day time.Time, value string, n int64)

// sessions makes visits of hits, holding at most max sessions.
type sessions struct {
	zone   stats.Zone
	domain string // the website's, as stored: a referrer to it is no referrer
	max    int
	add    counter
	byKey  map[string]*list.Element // of *session
	order  *list.List               // least recently seen first
}

type session struct {
	key string
	// The day the session last counted as a visitor, and the hours of a day it counted in
	// visitor_hour.
	visitorDay, hourDay time.Time
	hours               uint32
	open                bool
	visit               visit
}

type visit struct {
	day         time.Time // the day it started, in the website's zone
	hour        int       // the hour it started
	first, last time.Time
	pageviews   int
	events      int
	landing     string
	exit        string
}

func newSessions(zone stats.Zone, domain string, max int, add counter) *sessions {
	return &sessions{zone: zone, domain: domain, max: max, add: add, byKey: map[string]*list.Element{}, order: list.New()}
}

// hit counts one hit of the export (no bot's).
func (ss *sessions) hit(r *row) {
	loc := ss.zone.At(r.at)
	if loc == nil {
		loc = time.UTC
	}
	local := r.at.In(loc)
	day, hour := stats.Day(local), local.Hour()
	s := &session{}
	if r.session != "" && r.session != "0-0" {
		s = ss.session(r.session)
	}
	if s.open && (r.at.Sub(s.visit.last) > VisitTimeout || s.visit.first.Sub(r.at) > VisitTimeout) {
		ss.end(s)
	}
	if !s.open {
		ss.start(s, r, day, hour)
	}
	if r.at.After(s.visit.last) {
		s.visit.last = r.at
	}
	if r.at.Before(s.visit.first) {
		s.visit.first = r.at
	}
	if !s.hourDay.Equal(day) {
		s.hourDay, s.hours = day, 0
	}
	if bit := uint32(1) << hour; s.hours&bit == 0 {
		s.hours |= bit
		ss.add(stats.VisitorHour, day, stats.HourValue(hour), 1)
	}
	if r.event {
		value, _ := importer.EventValue(strings.TrimPrefix(r.path, "/"))
		ss.add(stats.Event, day, value, 1)
		s.visit.events++
	} else {
		page := importer.PageValue(r.path)
		ss.add(stats.Pageview, day, stats.DayValue(day), 1)
		ss.add(stats.PageviewHour, day, stats.HourValue(hour), 1)
		ss.add(stats.Page, day, page, 1)
		if s.visit.pageviews == 0 {
			s.visit.landing = page
		}
		s.visit.exit = page
		s.visit.pageviews++
	}
	if r.session == "" || r.session == "0-0" {
		ss.end(s)
	}
}

// session is the session of a key, made when new; the one seen least recently ends past max.
func (ss *sessions) session(key string) *session {
	if e, ok := ss.byKey[key]; ok {
		ss.order.MoveToBack(e)
		return e.Value.(*session)
	}
	if len(ss.byKey) >= ss.max {
		oldest := ss.order.Front()
		s := oldest.Value.(*session)
		ss.end(s)
		ss.order.Remove(oldest)
		delete(ss.byKey, s.key)
	}
	s := &session{key: key}
	ss.byKey[key] = ss.order.PushBack(s)
	return s
}

// start opens a visit with r, its first hit: the visit, its visitor once a day, and its values.
func (ss *sessions) start(s *session, r *row, day time.Time, hour int) {
	s.open, s.visit = true, visit{day: day, hour: hour, first: r.at, last: r.at}
	date := stats.DayValue(day)
	ss.add(stats.Visit, day, date, 1)
	ss.add(stats.VisitHour, day, stats.HourValue(hour), 1)
	ss.add(stats.TimedVisit, day, date, 1)
	if !s.visitorDay.Equal(day) {
		s.visitorDay = day
		ss.add(stats.Visitor, day, date, 1)
	}
	from := ss.origin(r)
	ss.add(stats.Referrer, day, from.referrer, 1)
	ss.add(stats.Source, day, from.Source, 1)
	ss.add(stats.Channel, day, from.Channel, 1)
	if from.UTMSource != "" {
		ss.add(stats.UTMSource, day, from.UTMSource, 1)
	}
	ss.add(stats.Browser, day, r.browser, 1)
	ss.add(stats.OperatingSystem, day, r.system, 1)
	ss.add(stats.ScreenResolution, day, r.screen, 1)
	if c, ok := stats.Countries[r.country]; ok {
		ss.add(stats.Country, day, c.Country, 1)
		ss.add(stats.Continent, day, c.Continent, 1)
	} else {
		ss.add(stats.Country, day, "", 1)
		ss.add(stats.Continent, day, "", 1)
	}
}

// origin is where a visit came from, as the collector names it from its first hit: a
// referrer GoatCounter kept as a URL (scheme h) is its host, and the source and channel it
// gives; a name GoatCounter made of one (g: Hacker News, Email) or another kind of referrer
// (o: an app) is the referrer and the source as given; a campaign's source (c: the
// utm_source or ref of the page's URL) is its utm_source and source, with no referrer.
type origin struct {
	referrer string
	sources.Visit
}

func (ss *sessions) origin(r *row) origin {
	switch r.scheme {
	case "h", "":
		host := referrerHost(r.referrer)
		if r.referrer == "" || strings.TrimPrefix(host, "www.") == ss.domain {
			host = ""
		}
		return origin{referrer: host, Visit: sources.Resolve("", host)}
	case "c":
		return origin{Visit: sources.Resolve("utm_source="+url.QueryEscape(r.referrer), "")}
	}
	source := sources.KnownName(r.referrer)
	if source == "" {
		source = sources.Clean(r.referrer)
	}
	return origin{referrer: r.referrer, Visit: sources.Visit{Source: source, Channel: sources.Channel(source, "", "", "", "")}}
}

// end counts what a visit's end decides: its landing and exit page, bounce and duration.
func (ss *sessions) end(s *session) {
	if !s.open {
		return
	}
	v := s.visit
	s.open = false
	if v.pageviews > 0 {
		ss.add(stats.LandingPage, v.day, v.landing, 1)
		ss.add(stats.ExitPage, v.day, v.exit, 1)
	}
	hour := stats.HourValue(v.hour)
	if v.pageviews == 1 && v.events == 0 {
		ss.add(stats.Bounce, v.day, stats.DayValue(v.day), 1)
		ss.add(stats.BounceHour, v.day, hour, 1)
	}
	if seconds := int64(v.last.Sub(v.first) / time.Second); seconds > 0 {
		ss.add(stats.VisitSeconds, v.day, stats.DayValue(v.day), seconds)
		ss.add(stats.VisitSecondsHour, v.day, hour, seconds)
	}
}

// close ends every visit still open.
func (ss *sessions) close() {
	for e := ss.order.Front(); e != nil; e = e.Next() {
		ss.end(e.Value.(*session))
	}
}
