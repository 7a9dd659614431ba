package ingest

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/sources"
	"github.com/analytics-service/analytics/stats"
)

// MaxBodySize bounds a tracker request; real ones are a few hundred bytes.
const MaxBodySize = 16 << 10

// keysPerVisit bounds the entries one hit adds to the counters: a pageview that starts a visit
// adds at most 8 and a value of each visit-level name its first hit gives (its pageview and
// page, an hour of pageviews moved out of its slot, visit, visit_hour and timed_visit, the
// values, its day membership and its visit's row). Readiness asks for room for that many
// (Counters.Full).
func keysPerVisit() int {
	n := 8
	for _, d := range stats.Dimensions {
		if d.From != stats.FromVisit {
			n++
		}
	}
	return n
}

// maxKeysPerHit is keysPerVisit for as many dimensions as may be: a constant, so that the
// keys of a hit are an array on the stack, not an allocation.
const maxKeysPerHit = 8 + stats.MaxDimensions

// Collector answers POST /api/event: it parses and bounds the hit, finds the website in the
// settings cache, applies the exclusions, enriches the hit and increments the counters. Nothing
// on this path touches the database, and the IP and user agent are dropped when it returns.
type Collector struct {
	Websites       *Websites
	Counters       *Counters
	Geo            *GeoDB         // nil: geo values are ""
	TrustedProxies []netip.Prefix // peers whose X-Forwarded-For is believed
	Location       *time.Location // whose calendar days the counters use
	Now            func() time.Time
	Metrics        *Metrics
	Salts          *Salts  // the salts of the days, for visitor keys
	Visits         *Visits // this node's open visits
	VisitTimeout   time.Duration
	// Limiter bounds the hits of one client address (ratelimit.Limiter.AddrKey); nil: no limit.
	Limiter *ratelimit.Limiter
	Log     *slog.Logger // nil: slog.Default()

	proxyHint sync.Once
}

// eventRequest is the tracker's body: the page's URL, its referrer, the screen size and an
// optional event (name, value, unit).
type eventRequest struct {
	Page             string `json:"page"`
	Referrer         string `json:"referrer"`
	ScreenResolution string `json:"screen_resolution"`
	// Event is the hit's event when hasEvent (held here, not pointed to: a pointer was an
	// allocation of every event hit).
	Event    eventBody
	hasEvent bool
	// engagement: Plausible's engagement hit (plausible.go), never read from this service's
	// body.
	engagement bool
	// hash: the page's fragment is part of the page (the tracker's data-hash: "hash": true,
	// Plausible's h: 1); quiet: an event that is not interactive ("interactive": false,
	// Plausible's i: false), which does not end a bounce.
	hash, quiet bool
	// An engagement hit's engaged milliseconds (at most 30 minutes) and scroll depth
	// (0..100); -1 when it has none.
	engagedMillis int32
	scrollDepth   int8
	// pageURL: Page as parsed already (Plausible's body), which recordRequest then uses; its
	// hostname is "" until then (parsePage never answers a URL without one).
	pageURL pageURL
	// props and revenue as sent (props.go reads them once the website is known); nil: none.
	props, revenue jsontext.Value
}

type eventBody struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Unit  string `json:"unit"`
}

// anyOrigin is the header value every answer carries, shared rather than made per hit (net/http
// only reads it).
var anyOrigin = []string{"*"}

func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = anyOrigin
	switch r.Method {
	case http.MethodPost:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "POST, OPTIONS")
		c.fail(w, http.StatusMethodNotAllowed, "Method not allowed.")
		return
	}
	ip := ratelimit.ClientAddr(r, c.TrustedProxies)
	// First of all, so that a flood costs no body, JSON, user agent or GeoIP work.
	if ok, wait := c.allow(ip, 1); !ok {
		c.refuseRate(w, ip, wait)
		return
	}
	status, message, wait := c.collect(r, ip)
	switch status {
	case http.StatusAccepted:
		w.WriteHeader(http.StatusAccepted)
	case http.StatusTooManyRequests:
		c.refuseRate(w, ip, wait)
	default:
		c.fail(w, status, message)
	}
}

// allow takes n hits from the client address's EVENT_RATE_LIMIT; when it has none left, it
// says how long until it has.
func (c *Collector) allow(ip netip.Addr, n int) (bool, time.Duration) {
	if c.Limiter == nil {
		return true, 0
	}
	key := c.Limiter.AddrKey(ip)
	for range n {
		if ok, wait := c.Limiter.Allow(key); !ok {
			return false, wait
		}
	}
	return true, 0
}

// refuseRate answers a client past EVENT_RATE_LIMIT.
func (c *Collector) refuseRate(w http.ResponseWriter, ip netip.Addr, wait time.Duration) {
	c.hintProxy(ip)
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(wait)))
	c.fail(w, http.StatusTooManyRequests, "Too many events from this client; retry later.")
}

// collect handles one hit from the client address ip and says how to answer it (and, for a
// 429, when to retry).
func (c *Collector) collect(r *http.Request, ip netip.Addr) (int, string, time.Duration) {
	if !acceptedContentType(r.Header.Get("Content-Type")) {
		return http.StatusBadRequest, "The body must be JSON sent as application/json or text/plain.", 0
	}
	if r.ContentLength > MaxBodySize {
		return http.StatusRequestEntityTooLarge, "The body is larger than 16 KiB.", 0
	}
	buf := bodyBuffers.Get().(*[]byte)
	defer bodyBuffers.Put(buf)
	// One byte more than the bound, so that a longer body shows.
	n, err := io.ReadFull(r.Body, *buf)
	switch {
	case n > MaxBodySize:
		return http.StatusRequestEntityTooLarge, "The body is larger than 16 KiB.", 0
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return http.StatusBadRequest, "The body could not be read.", 0
	}
	body := (*buf)[:n]
	var one [1]eventRequest
	hits, err := c.decodeHits(body, one[:0]) // this service's body or Plausible's (plausible.go)
	if err != nil {
		return http.StatusBadRequest, err.Error(), 0
	}
	// A Plausible hit for several websites is a hit of each: the ones after the first are
	// charged before any is recorded.
	if ok, wait := c.allow(ip, len(hits)-1); !ok {
		return http.StatusTooManyRequests, "", wait
	}
	for i := range hits {
		if status, message := c.recordRequest(r, ip, &hits[i]); status != http.StatusAccepted {
			return status, message, 0
		}
	}
	return http.StatusAccepted, "", 0
}

// recordRequest checks one decoded hit, finds its website and records it.
func (c *Collector) recordRequest(r *http.Request, ip netip.Addr, req *eventRequest) (int, string) {
	page := req.pageURL
	if page.hostname == "" {
		var ok bool
		if page, ok = parsePage(req.Page); !ok {
			return http.StatusBadRequest, "page must be an absolute http(s) URL."
		}
	}
	var event string // name:value:unit
	if req.hasEvent {
		// The event's name and unit are stored as the page is (redact.go).
		req.Event.Name, req.Event.Unit = redactText(req.Event.Name), redactText(req.Event.Unit)
		var ok bool
		if event, ok = eventValue(&req.Event); !ok {
			return http.StatusBadRequest, "event.name must be 1 to 64 characters."
		}
	}
	host := bareHost(page.hostname)
	site, ok := c.Websites.Lookup(host)
	if page.website != "" {
		site, ok = c.Websites.Lookup(page.website)
	}
	if !ok {
		// Answered like a counted hit: a stranger must not learn whether a domain is tracked
		// here. The metric counts the reason, never the host.
		c.Metrics.ignore(reasonUnknownWebsite)
		return http.StatusAccepted, ""
	}

	if site.excludesIP(ip) {
		c.Metrics.ignore(reasonIP)
		return http.StatusAccepted, ""
	}
	if req.engagement {
		return c.recordEngagement(r, ip, site, &hit{page: page, host: host, hash: req.hash, engagedMillis: req.engagedMillis, scrollDepth: req.scrollDepth})
	}
	h := hit{kind: hitPageview, page: page, host: host, referrer: req.Referrer, screen: req.ScreenResolution, hash: req.hash}
	h.props = c.readProps(req.props)
	if req.hasEvent {
		h.kind, h.event, h.eventName = hitEvent, event, req.Event.Name
		if req.quiet {
			h.kind = hitQuietEvent
		}
		if amount, currency, ok := c.readRevenue(req.revenue); ok {
			h.revenue = revenuePart(stats.Storable(req.Event.Name), currency, amount)
		}
	} else if present(req.revenue) != nil {
		c.Metrics.dropRevenue() // revenue belongs to events
	}
	return c.record(r, ip, site, &h)
}

// hit is one hit of a website as the collector counts it, whichever body it came in.
type hit struct {
	kind     hitKind
	page     pageURL
	host     string // the page's host as bareHost writes it, which the allowed hostnames match
	referrer string // as sent
	screen   string // "WIDTHxHEIGHT" as sent
	event    string // "name:value:unit" of an event hit
	hash     bool   // the fragment is part of the page
	// Of an engagement hit: engaged milliseconds and scroll depth, -1 for none.
	engagedMillis int32
	scrollDepth   int8
	// eventName is the event's name as sent, which goals compare (the statistic's event
	// writes a ':' of it as a space).
	eventName string
	props     []string // its custom properties as kept, stats.PropPair each
	revenue   string   // an event's revenue as its row keeps it (revenuePart); "" for none
}

// recordEngagement is the entry for a hit that only says the visitor is still there
// (Plausible's `engagement`): it extends the open visit's duration, is
// neither a pageview nor an event, does not end a bounce, and is ignored (answered 202, not
// counted) when the visitor has no open visit. page is the page it was sent from.
func (c *Collector) recordEngagement(r *http.Request, ip netip.Addr, site *Website, h *hit) (int, string) {
	h.kind = hitEngagement
	return c.record(r, ip, site, h)
}

// record counts a hit of site from the client address ip: its visitor key under the salt of
// the day, its visit (started when none is open), the counters of the hit and, on a visit's
// first hit, the visit-level values. The address and user agent are not kept past the next
// flush (the realtime view's last pageviews are resolved to country, browser and device then).
func (c *Collector) record(r *http.Request, ip netip.Addr, site *Website, h *hit) (int, string) {
	userAgent := r.UserAgent()
	var client Client
	parsed := false
	if site.ExcludeBots {
		client, parsed = ParseUserAgent(userAgent), true
		if client.Bot {
			c.Metrics.ignore(reasonBot)
			return http.StatusAccepted, ""
		}
	}
	// The page as counted, which the row holds too and the page shields match.
	page := stats.Storable(pageValue(h.page, site, h.hash))
	where := place{db: c.Geo, ip: ip}
	if site.shields != nil {
		if reason := site.shields.refuse(h.host, page, &where); reason != "" {
			c.Metrics.ignore(reason)
			return http.StatusAccepted, ""
		}
	}
	now := c.Now()
	// Two calendars: the salt's day is TZ's, the same for every website; the day and hour
	// the hit counts on are the website's own zone's.
	saltLocal := now.In(c.Location)
	saltDay := dayNumber(stats.Day(saltLocal))
	local := saltLocal
	if loc := site.Zone.At(now); loc != nil && loc != c.Location {
		local = now.In(loc)
	}
	dayKey := dayNumber(stats.Day(local))
	hour := uint8(local.Hour())
	vh := visitHit{websiteID: site.ID, addr: ip, at: now.UnixNano(), day: dayKey, hour: hour, kind: h.kind,
		engagedMillis: h.engagedMillis, scrollDepth: h.scrollDepth}
	var ok bool
	if vh.key, ok = c.Salts.Key(saltDay, site.ID, ip, userAgent); !ok {
		return http.StatusServiceUnavailable, "The service is not ready to count events; retry later."
	}
	if sinceMidnight(saltLocal) < c.VisitTimeout {
		// A visit that started before the salt's midnight is held under yesterday's key.
		vh.prevKey, vh.hasPrev = c.Salts.Key(saltDay-1, site.ID, ip, userAgent)
	}
	// What the hit adds to its row is known before its visit decides whether the row has
	// room for it (keepRow).
	var event, eventName string
	switch h.kind {
	case hitEvent, hitQuietEvent:
		event, eventName = stats.Storable(h.event), stats.Storable(h.eventName)
		vh.rowBytes = len(event) + len(eventName) + len(h.revenue)
	case hitPageview:
		vh.rowBytes = len(page)
	}
	vh.page = page
	vh.props = h.props
	out := c.Visits.hit(&vh)
	if out.ignored {
		c.Metrics.ignore(reasonNoVisit)
		return http.StatusAccepted, ""
	}

	keys := make([]Key, 0, maxKeysPerHit)
	addStored := func(name stats.Name, day int32, value string) string {
		keys = append(keys, Key{WebsiteID: site.ID, Name: name, Day: day, Value: value})
		return value
	}
	add := func(name stats.Name, day int32, value string) string { // the value as counted
		return addStored(name, day, stats.Storable(value))
	}
	extras := hitExtras{site: site.ID, hasRow: h.kind != hitEngagement, row: out.row, props: vh.props, revenue: h.revenue, rowCut: out.rowCut, at: vh.at}
	if out.minuteVisitor {
		extras.minute.visitors = 1
	}
	if out.started {
		extras.minute.visits = 1
	}
	c.Metrics.dropProps(reasonPropPerVisit, out.pairsDropped)
	if out.rowCut {
		c.Metrics.cutRow(rowPartHit, 1)
	}
	c.Metrics.cutRow(rowPartProperty, out.propsCut)
	// The referrer as the dashboard counts it: the realtime view's latest pageviews and the
	// visit's values name it alike, "" for a click from the website's own pages.
	refHost := siteReferrer(referrerHost(h.referrer), site)
	switch h.kind {
	case hitEvent, hitQuietEvent:
		extras.event = addStored(stats.Event, dayKey, event) // the row holds what the counter counts
		extras.eventName = eventName
	case hitPageview:
		add(stats.Pageview, dayKey, dayString(dayKey))
		extras.rowPage = addStored(stats.Page, dayKey, page)
		extras.day, extras.hour = dayKey, hour // pageview_hour, counted by Counters.AddHit
		extras.minute.pageviews = 1
		extras.hasPageview, extras.pageview = true, recentView{at: vh.at, page: stats.Storable(recentPath(h.page)), referrer: stats.Storable(refHost), ip: ip, userAgent: userAgent}
	}
	if out.started {
		if !parsed {
			client = ParseUserAgent(userAgent)
		}
		extras.hasValues = true
		c.addVisit(add, &extras.values, out.day, hour, site, h, refHost, client, &where, r)
	}
	if out.visited || out.hourBits != 0 {
		extras.hasMember, extras.member = true, memberKey{websiteID: site.ID, day: out.day, key: out.key}
		extras.bits = memberBits{visited: out.visited, hours: out.hourBits}
	}
	// The buffer full (a database outage that lasts): refused, although its visit took the hit.
	if err := c.Counters.AddHit(keys, &extras); err != nil {
		if out.started {
			c.Counters.abandonRow(out.row.ref)
		}
		if !out.rowCut {
			c.Visits.giveBackRow(out.key, out.row.ref, &vh)
		}
		return http.StatusServiceUnavailable, "The service cannot keep more events right now; retry later."
	}
	c.Metrics.accept()
	return http.StatusAccepted, ""
}

// addVisit adds the counters of a visit's first hit: the visit itself and its visit-level
// values (stats.Dimensions), on the visit's day; the values go to its row too, as counted.
// Landing and exit pages, bounce and duration are emitted by the visit as it goes on
// (Visits.Collect).
func (c *Collector) addVisit(add func(stats.Name, int32, string) string, row *stats.Values, day int32, hour uint8, site *Website, h *hit, refHost string, client Client, where *place, r *http.Request) {
	date := dayString(day)
	add(stats.Visit, day, date)
	add(stats.VisitHour, day, hourValues[hour])
	add(stats.TimedVisit, day, date)
	// Each input once, whichever dimensions take it: an array, not a map, on the hit path.
	var in [stats.Inputs]string
	in[stats.FromReferrer] = refHost
	in[stats.FromSearchEngine], in[stats.FromSocialNetwork] = classifyReferrer(refHost)
	geo := where.lookup()
	in[stats.FromContinent], in[stats.FromCountry], in[stats.FromCity] = geo.Continent, geo.Country, geo.City
	in[stats.FromBrowser], in[stats.FromOperatingSystem], in[stats.FromDevice] = client.Browser, client.OS, client.Device
	in[stats.FromLanguage] = languageValue(r.Header.Get("Accept-Language"))
	in[stats.FromScreen] = screenValue(h.screen)
	// The tags as sent: exclude_params only shapes the page.
	from := sources.Resolve(h.page.rawQuery, refHost)
	in[stats.FromSource], in[stats.FromChannel] = from.Source, from.Channel
	for i := range stats.Dimensions {
		d := &stats.Dimensions[i]
		v := in[d.From]
		switch d.From {
		case stats.FromVisit:
			continue
		case stats.FromQuery:
			var known bool
			if v, known = from.Tag(d.Param); !known {
				v = sources.ReadTag(h.page.rawQuery, d.Param)
			}
		}
		if v != "" || !d.OnlyGiven {
			row[i] = add(d.Name, day, v)
		}
	}
}

// sinceMidnight is the wall-clock time of t since its midnight.
func sinceMidnight(t time.Time) time.Duration {
	h, m, sec := t.Clock()
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
}

// recentPath is a page's path without its query string, for the realtime view.
func recentPath(u pageURL) string {
	path := u.path
	if path == "" {
		path = "/"
	}
	return stats.Truncate(stats.PagePath(redactPath(path)), maxPageLength)
}

// hintProxy says once, when the limit first refuses a private address, that a reverse proxy
// in front of the service needs TRUSTED_PROXIES: without it every visitor is the proxy and
// shares one limit. The address itself is not logged.
func (c *Collector) hintProxy(ip netip.Addr) {
	if !ip.IsPrivate() && !ip.IsLoopback() {
		return
	}
	c.proxyHint.Do(func() {
		log := c.Log
		if log == nil {
			log = slog.Default()
		}
		log.Warn("POST /api/event refused hits over EVENT_RATE_LIMIT from a private address: " +
			"if a reverse proxy is in front of the service, set TRUSTED_PROXIES, or every visitor shares its limit")
	})
}

// Today is the calendar day of TZ (as midnight UTC) now: the salt's day. A website counts on
// its own zone's day, at most one day before or after it.
func (c *Collector) Today() time.Time {
	return stats.Day(c.Now().In(c.Location))
}

func (c *Collector) fail(w http.ResponseWriter, status int, message string) {
	c.Metrics.reject(strconv.Itoa(status))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	body, _ := json.Marshal(struct {
		Message string `json:"message"`
		Status  int    `json:"status"`
	}{message, status})
	_, _ = w.Write(append(body, '\n'))
}

// acceptedContentType: JSON, or text/plain so that sendBeacon needs no CORS preflight.
func acceptedContentType(header string) bool {
	switch header { // what sendBeacon and fetch send, without ParseMediaType's map
	case "text/plain;charset=UTF-8", "text/plain", "application/json":
		return true
	}
	mediaType, _, err := mime.ParseMediaType(header)
	return err == nil && (mediaType == "application/json" || mediaType == "text/plain")
}

// bodyBuffers hold the bodies being read: a pooled buffer of the largest allowed body (and one
// byte) costs no allocation and no growing per hit, where io.ReadAll cost both. The decoded
// strings are copies, so the buffer is free again once the hit is decoded.
var bodyBuffers = sync.Pool{New: func() any {
	b := make([]byte, MaxBodySize+1)
	return &b
}}

// hitJSON decodes the way encoding/json (v1) does, which trackers were written against:
// unknown members are ignored, names match whatever their case, the last of a repeated name
// wins, and invalid UTF-8 is mangled rather than refused. The decoder is encoding/json/v2's
// (github.com/go-json-experiment/json, the module it comes from): it decodes a hit in a quarter
// of v1's time with a tenth of its allocations (see docs/decisions.md, Performance).
var hitJSON = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true),
	json.MatchCaseInsensitiveNames(true))

// rawEvent is the tracker's body as decoded, before decodeEvent checks it.
type rawEvent struct {
	Page             string `json:"page"`
	Referrer         string `json:"referrer"`
	ScreenResolution string `json:"screen_resolution"`
	Event            *struct {
		Name  string         `json:"name"`
		Value jsontext.Value `json:"value"`
		Unit  string         `json:"unit"`
	} `json:"event"`
	// hash and interactive: true, false or null (flagError refuses any other value, as a
	// string member of another type is refused). Bad props or revenue never cost a hit
	// (props.go).
	Hash        jsontext.Value `json:"hash"`
	Interactive jsontext.Value `json:"interactive"`
	Props       jsontext.Value `json:"props"`
	Revenue     jsontext.Value `json:"revenue"`
	// eventValue: a string event.value as decoded (decodeEvent).
	eventValue string
}

// fieldError is a body's member of the wrong type: its text is the 400 answer.
type fieldError string

func (e fieldError) Error() string { return string(e) }

// flagError refuses a flag member that is neither absent, null nor of its JSON kind ('t' a
// boolean, '0' a number), naming it: the spec declares its type, and a sender whose flag is
// silently read as absent would never learn why its events bounce.
func flagError(v jsontext.Value, name string, kind jsontext.Kind) error {
	if k := v.Kind(); len(v) == 0 || k == 'n' || k == kind || (kind == 't' && k == 'f') {
		return nil
	}
	if kind == 't' {
		return fieldError(name + " must be true, false or null.")
	}
	return fieldError(name + " must be a number or null.")
}

// rawEvents hold the structs hits are decoded into: Unmarshal takes a pointer, which made one
// a hit on the heap (some 160 bytes). Each is zeroed before and after use, so that nothing of a
// hit is read by, or kept alive for, the next (Unmarshal appends to a non-nil jsontext.Value).
var rawEvents = sync.Pool{New: func() any { return new(rawEvent) }}

// decodeEvent reads the body; event.value may be a JSON number or a string.
func decodeEvent(body []byte, req *eventRequest) error {
	raw := rawEvents.Get().(*rawEvent)
	*raw = rawEvent{}
	defer func() {
		*raw = rawEvent{}
		rawEvents.Put(raw)
	}()
	// Unmarshal refuses trailing data itself.
	if err := json.Unmarshal(body, raw, hitJSON); err != nil {
		return err
	}
	if raw.Page != "" { // this service's body; a body without page is Plausible's, or refused
		if err := flagError(raw.Hash, "hash", 't'); err != nil {
			return err
		}
		if err := flagError(raw.Interactive, "interactive", 't'); err != nil {
			return err
		}
	}
	*req = eventRequest{Page: raw.Page, Referrer: raw.Referrer, ScreenResolution: raw.ScreenResolution,
		hash: string(raw.Hash) == "true", quiet: string(raw.Interactive) == "false", props: raw.Props, revenue: raw.Revenue}
	if raw.Event == nil {
		return nil
	}
	req.hasEvent, req.Event = true, eventBody{Name: raw.Event.Name, Unit: raw.Event.Unit}
	switch v := raw.Event.Value; v.Kind() {
	case 0, 'n': // absent, null
	case '"':
		// Into raw, already on the heap: the address of req's field made every hit's req escape.
		err := json.Unmarshal(v, &raw.eventValue, hitJSON)
		req.Event.Value = raw.eventValue
		return err
	case '0':
		req.Event.Value = string(v)
	default:
		return errors.New("event.value must be a string or a number")
	}
	return nil
}
