package ingest

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/stats"
)

// MaxBodySize bounds a tracker request; real ones are a few hundred bytes.
const MaxBodySize = 16 << 10

// maxKeysPerHit is the most counters one hit increments: a visit's 14 statistics.
const maxKeysPerHit = 14

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
	// Limiter bounds the hits of one client address (ratelimit.Limiter.AddrKey); nil: no limit.
	Limiter *ratelimit.Limiter
	Log     *slog.Logger // nil: slog.Default()

	proxyHint sync.Once
}

// eventRequest is the tracker's body: the page's URL, its referrer, the screen size and an
// optional event (name, value, unit).
type eventRequest struct {
	Page             string     `json:"page"`
	Referrer         string     `json:"referrer"`
	ScreenResolution string     `json:"screen_resolution"`
	Event            *eventBody `json:"event"`
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
	if c.Limiter != nil {
		if ok, wait := c.Limiter.Allow(c.Limiter.AddrKey(ip)); !ok {
			c.hintProxy(ip)
			h.Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(wait)))
			c.fail(w, http.StatusTooManyRequests, "Too many events from this client; retry later.")
			return
		}
	}
	status, message := c.collect(r, ip)
	if status != http.StatusAccepted {
		c.fail(w, status, message)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// collect handles one hit from the client address ip and says how to answer it.
func (c *Collector) collect(r *http.Request, ip netip.Addr) (int, string) {
	if !acceptedContentType(r.Header.Get("Content-Type")) {
		return http.StatusBadRequest, "The body must be JSON sent as application/json or text/plain."
	}
	if r.ContentLength > MaxBodySize {
		return http.StatusRequestEntityTooLarge, "The body is larger than 16 KiB."
	}
	buf := bodyBuffers.Get().(*[]byte)
	defer bodyBuffers.Put(buf)
	// One byte more than the bound, so that a longer body shows.
	n, err := io.ReadFull(r.Body, *buf)
	switch {
	case n > MaxBodySize:
		return http.StatusRequestEntityTooLarge, "The body is larger than 16 KiB."
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return http.StatusBadRequest, "The body could not be read."
	}
	body := (*buf)[:n]
	var one [1]eventRequest
	hits, err := c.decodeHits(r, ip, body, one[:0]) // this service's body or Plausible's (plausible.go)
	if err != nil {
		return http.StatusBadRequest, err.Error()
	}
	for i := range hits {
		if status, message := c.record(r, ip, &hits[i]); status != http.StatusAccepted {
			return status, message
		}
	}
	return http.StatusAccepted, ""
}

// record counts one hit from the client address ip and says how to answer it.
func (c *Collector) record(r *http.Request, ip netip.Addr, req *eventRequest) (int, string) {
	page, err := url.Parse(req.Page)
	if err != nil || (page.Scheme != "http" && page.Scheme != "https") || page.Hostname() == "" {
		return http.StatusBadRequest, "page must be an absolute http(s) URL."
	}
	var event string
	if req.Event != nil {
		var ok bool
		if event, ok = eventValue(req.Event); !ok {
			return http.StatusBadRequest, "event.name must be 1 to 64 characters."
		}
	}
	site, ok := c.Websites.Lookup(bareHost(page.Hostname()))
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
	refHost := referrerHost(req.Referrer)
	visit := req.Event == nil && isVisit(refHost, site)
	var client Client
	if site.ExcludeBots || visit {
		client = ParseUserAgent(r.UserAgent())
	}
	if site.ExcludeBots && client.Bot {
		c.Metrics.ignore(reasonBot)
		return http.StatusAccepted, ""
	}

	day := c.Today()
	dayKey := dayNumber(day)
	keys := make([]Key, 0, maxKeysPerHit)
	add := func(name stats.Name, value string) {
		keys = append(keys, Key{WebsiteID: site.ID, Name: name, Day: dayKey, Value: storable(value)})
	}
	switch {
	case req.Event != nil:
		add(stats.Event, event)
	default:
		date := dayString(dayKey)
		add(stats.Pageview, date)
		add(stats.Page, pageValue(page, site))
		if visit {
			geo := c.Geo.Lookup(ip)
			add(stats.Visitor, date)
			add(stats.Referrer, refHost)
			if campaign, ok := campaignValue(page); ok {
				add(stats.Campaign, campaign)
			}
			add(stats.Browser, client.Browser)
			add(stats.OperatingSystem, client.OS)
			add(stats.Device, client.Device)
			add(stats.Language, languageValue(r.Header.Get("Accept-Language")))
			add(stats.ScreenResolution, screenValue(req.ScreenResolution))
			add(stats.Continent, geo.Continent)
			add(stats.Country, geo.Country)
			add(stats.City, geo.City)
		}
	}
	if err := c.Counters.Add(keys); err != nil {
		return http.StatusServiceUnavailable, "The service cannot keep more events right now; retry later."
	}
	c.Metrics.accept()
	return http.StatusAccepted, ""
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

// Today is the calendar day (in the collector's time zone, as midnight UTC) that hits count on now.
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

// decodeEvent reads the body; event.value may be a JSON number or a string.
func decodeEvent(body []byte, req *eventRequest) error {
	var raw struct {
		Page             string `json:"page"`
		Referrer         string `json:"referrer"`
		ScreenResolution string `json:"screen_resolution"`
		Event            *struct {
			Name  string         `json:"name"`
			Value jsontext.Value `json:"value"`
			Unit  string         `json:"unit"`
		} `json:"event"`
	}
	// Unmarshal refuses trailing data itself.
	if err := json.Unmarshal(body, &raw, hitJSON); err != nil {
		return err
	}
	*req = eventRequest{Page: raw.Page, Referrer: raw.Referrer, ScreenResolution: raw.ScreenResolution}
	if raw.Event == nil {
		return nil
	}
	req.Event = &eventBody{Name: raw.Event.Name, Unit: raw.Event.Unit}
	switch v := raw.Event.Value; v.Kind() {
	case 0, 'n': // absent, null
	case '"':
		return json.Unmarshal(v, &req.Event.Value, hitJSON)
	case '0':
		req.Event.Value = string(v)
	default:
		return errors.New("event.value must be a string or a number")
	}
	return nil
}
