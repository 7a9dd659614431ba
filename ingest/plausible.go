package ingest

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Plausible's tracker and Events API. A body with n/name where page is
// absent is Plausible's: its official tracker sends short keys as text/plain, server-side
// senders the long keys of its Events API documentation. Each is turned into the collector's
// own eventRequest, one per website it counts for, so that from there on a Plausible hit is
// counted exactly as the same hit of this service's tracker would be.

// The names Plausible gives a hit that is not a custom event.
const (
	plausiblePageview   = "pageview"
	plausibleEngagement = "engagement"
)

// errBadJSON is the answer to a body that is not a JSON object, whichever tracker sent it.
var errBadJSON = errors.New("The body is not valid JSON.")

// plausibleBody is Plausible's body: every field under its short and its long key. Values are
// kept raw so that null, absent and a wrong type can be told apart; other members (p/props,
// v, e, sd, w, ...) are ignored.
type plausibleBody struct {
	N        jsontext.Value `json:"n"`
	Name     jsontext.Value `json:"name"`
	U        jsontext.Value `json:"u"`
	URL      jsontext.Value `json:"url"`
	D        jsontext.Value `json:"d"`
	Domain   jsontext.Value `json:"domain"`
	R        jsontext.Value `json:"r"`
	Referrer jsontext.Value `json:"referrer"`
	Dollar   jsontext.Value `json:"$"`
	Revenue  jsontext.Value `json:"revenue"`
	P        jsontext.Value `json:"p"`
	Props    jsontext.Value `json:"props"`
	// h: 1, the fragment is part of the page (hash-based routing); i: false (or interactive),
	// an event that does not end a bounce. Other values mean neither.
	H           jsontext.Value `json:"h"`
	I           jsontext.Value `json:"i"`
	Interactive jsontext.Value `json:"interactive"`
	// e and sd of an engagement hit: engaged milliseconds, scroll depth in percent.
	E  jsontext.Value `json:"e"`
	SD jsontext.Value `json:"sd"`
}

// plausibleRevenue is an event's revenue: its amount becomes the event's value (a JSON number
// or a string), its currency the unit.
type plausibleRevenue struct {
	Amount   jsontext.Value `json:"amount"`
	Currency string         `json:"currency"`
}

// decodeHits reads a tracker body into the hits to record, appended to hits (the caller's
// array, so that this service's body, the hot path, costs no allocation): this service's body
// is one hit; Plausible's is one per website of its domain list that is tracked here (or one
// for the page's host); an engagement hit is marked so. The error's text is the 400 answer.
func (c *Collector) decodeHits(body []byte, hits []eventRequest) ([]eventRequest, error) {
	// Plausible's tracker body is read once: decodePlausibleFast also checks what decodeEvent
	// would (page empty, no event), so when it takes the body the answer is the one the path
	// below gives. The quick look (Plausible's trackers write n first) only saves this
	// service's bodies a decode that would fail; any other body takes the path below.
	if bytes.HasPrefix(body, plausibleStart) {
		if f, ok := decodePlausibleFast(body); ok {
			return c.plausibleHits(f, hits)
		}
	}
	var req eventRequest
	if err := decodeEvent(body, &req); err != nil {
		return nil, decodeError(err)
	}
	if req.Page != "" {
		return append(hits, req), nil
	}
	if f, ok := decodePlausibleFast(body); ok {
		return c.plausibleHits(f, hits)
	}
	var p plausibleBody
	if err := json.Unmarshal(body, &p, hitJSON); err != nil {
		return nil, errBadJSON
	}
	if present(p.N) == nil && present(p.Name) == nil {
		// Neither body: the collector answers that page is missing.
		return append(hits, req), nil
	}
	f, err := p.fields()
	if err != nil {
		return nil, err
	}
	return c.plausibleHits(f, hits)
}

// decodeError is the 400's error of a body decodeEvent refused: a member of the wrong type
// named, anything else as JSON it cannot read.
func decodeError(err error) error {
	var field fieldError
	if errors.As(err, &field) {
		return field
	}
	return errBadJSON
}

// plausibleFields are what a Plausible body says, whichever keys it used.
type plausibleFields struct {
	name, url, referrer, domains string
	dollar, revenue              jsontext.Value
	props                        jsontext.Value // p, else props
	hash, quiet                  bool
	engagedMillis                int32
	scrollDepth                  int8
}

// plausibleFast is Plausible's body as its tracker sends it from browsers (short keys, each
// of its type): decoded without a copy of each raw value, since engagement hits must cost no
// more than pageviews. Any other body (long keys, a wrong type) is read by plausibleBody, which
// names what is wrong.
type plausibleFast struct {
	N           string         `json:"n"`
	U           string         `json:"u"`
	D           string         `json:"d"`
	R           string         `json:"r"`
	Dollar      jsontext.Value `json:"$"`
	P           jsontext.Value `json:"p"`
	H           jsontext.Value `json:"h"`
	I           jsontext.Value `json:"i"`
	E           float64        `json:"e"`  // -1 when absent
	SD          float64        `json:"sd"` // -1 when absent
	Name        jsontext.Value `json:"name"`
	URL         jsontext.Value `json:"url"`
	Domain      jsontext.Value `json:"domain"`
	Referrer    jsontext.Value `json:"referrer"`
	Revenue     jsontext.Value `json:"revenue"`
	Interactive jsontext.Value `json:"interactive"`
	Props       jsontext.Value `json:"props"`
	// This service's members: a body with a page, or with an event, is this service's (or
	// refused as it), which the careful path decides.
	Page             string         `json:"page"`
	ScreenResolution string         `json:"screen_resolution"`
	Event            jsontext.Value `json:"event"`
}

// plausibleStart is how Plausible's trackers begin a body: with the event's name, n.
var plausibleStart = []byte(`{"n"`)

// plausibleFasts hold the structs decodePlausibleFast decodes into, as rawEvents do for this
// service's body (collector.go): one a hit on the heap otherwise. Zeroed before and after use.
var plausibleFasts = sync.Pool{New: func() any { return new(plausibleFast) }}

// decodePlausibleFast reads a body with n and u and none of the long keys, and without page
// or event; ok is false for any other, and for a body that does not decode so. A body it takes
// is one decodeEvent would take too (its members of this service's body are of the same types
// here, or absent), with an empty page: Plausible's.
func decodePlausibleFast(body []byte) (plausibleFields, bool) {
	p := plausibleFasts.Get().(*plausibleFast)
	*p = plausibleFast{E: -1, SD: -1}
	defer func() {
		*p = plausibleFast{}
		plausibleFasts.Put(p)
	}()
	if !scanPlausible(body, p) {
		*p = plausibleFast{E: -1, SD: -1}
		if json.Unmarshal(body, p, hitJSON) != nil {
			return plausibleFields{}, false
		}
	}
	if p.N == "" || p.U == "" || plausibleFlagsError(p.H, p.I, nil) != nil ||
		p.Name != nil || p.URL != nil || p.Domain != nil || p.Referrer != nil || p.Revenue != nil || p.Interactive != nil || p.Props != nil ||
		p.Page != "" || p.Event != nil {
		return plausibleFields{}, false
	}
	if (p.E == 0 || p.SD == 0) && bytes.Contains(body, []byte("null")) {
		// A null e or sd decodes as 0 here, which would count: the careful way tells them apart.
		return plausibleFields{}, false
	}
	return plausibleFields{name: p.N, url: p.U, referrer: p.R, domains: p.D, dollar: p.Dollar, props: p.P,
		hash: flagHash(p.H), quiet: string(p.I) == "false",
		engagedMillis: engagedMillis(p.E), scrollDepth: scrollDepth(p.SD)}, true
}

// fields checks the careful decoding's values: a field of a wrong type is refused, naming it.
func (p *plausibleBody) fields() (plausibleFields, error) {
	var f plausibleFields
	var err error
	if f.name, err = stringField(p.N, p.Name, "n (name) must be a string."); err != nil {
		return f, err
	}
	if f.url, err = stringField(p.U, p.URL, "u (url) must be an absolute http(s) URL."); err != nil {
		return f, err
	}
	if f.referrer, err = stringField(p.R, p.Referrer, "r (referrer) must be a string or null."); err != nil {
		return f, err
	}
	if f.domains, err = stringField(p.D, p.Domain, "d (domain) must be a string or null."); err != nil {
		return f, err
	}
	f.dollar, f.revenue = p.Dollar, p.Revenue
	if f.props = present(p.P); f.props == nil {
		f.props = p.Props
	}
	if err := plausibleFlagsError(p.H, p.I, p.Interactive); err != nil {
		return f, err
	}
	f.hash, f.quiet = flagHash(p.H), string(p.I) == "false" || string(p.Interactive) == "false"
	f.engagedMillis, f.scrollDepth = -1, -1
	if present(p.E) != nil && p.E.Kind() == '0' {
		if v, err := strconv.ParseFloat(string(p.E), 64); err == nil {
			f.engagedMillis = engagedMillis(v)
		}
	}
	if present(p.SD) != nil && p.SD.Kind() == '0' {
		if v, err := strconv.ParseFloat(string(p.SD), 64); err == nil {
			f.scrollDepth = scrollDepth(v)
		}
	}
	return f, nil
}

// flagHash is h: 1 (or true), hash-based routing.
func flagHash(h jsontext.Value) bool { return string(h) == "1" }

// plausibleFlagsError refuses an h that is not a number, or an i (interactive) that is not a
// boolean (null: absent), as the spec declares them. Plausible's own endpoint reads only a
// boolean i and an h of 1, and its trackers send nothing else.
func plausibleFlagsError(h, i, interactive jsontext.Value) error {
	if err := flagError(h, "h", '0'); err != nil {
		return err
	}
	if err := flagError(i, "i (interactive)", 't'); err != nil {
		return err
	}
	return flagError(interactive, "i (interactive)", 't')
}

// plausibleHits checks Plausible's fields and makes the collector's hits of them.
func (c *Collector) plausibleHits(f plausibleFields, hits []eventRequest) ([]eventRequest, error) {
	if n := utf8.RuneCountInString(f.name); n < 1 || n > maxEventNameLength {
		return nil, errors.New("n (name) must be 1 to 64 characters.")
	}
	page, ok := parsePage(f.url)
	if !ok {
		return nil, errors.New("u (url) must be an absolute http(s) URL.")
	}
	hit := eventRequest{Referrer: f.referrer, hash: f.hash, quiet: f.quiet, props: f.props, pageURL: page}
	switch f.name {
	case plausiblePageview:
		if rev := present(f.dollar); rev != nil {
			hit.revenue = rev
		} else {
			hit.revenue = f.revenue
		}
	case plausibleEngagement:
		hit.props = nil // an engagement hit's properties are ignored
		// Extends the open visit of this client (recordEngagement).
		hit.engagement = true
		hit.engagedMillis, hit.scrollDepth = f.engagedMillis, f.scrollDepth
	default:
		hit.hasEvent, hit.Event = true, eventBody{Name: f.name}
		hit.Event.Value, hit.Event.Unit = revenue(f.dollar, f.revenue)
		if hit.revenue = present(f.dollar); hit.revenue == nil {
			hit.revenue = f.revenue
		}
	}
	// The websites of the comma-separated domain list that are tracked here, as stored (lower
	// case, no www.), each once; held on the stack for a list of a few. The list is bounded:
	// each of its websites is a hit (and a hit against EVENT_RATE_LIMIT, Collector.collect).
	var found [4]string
	hosts := found[:0]
	listed := 0
	for part := range strings.SplitSeq(f.domains, ",") {
		host := bareHost(strings.TrimSpace(part))
		if host == "" {
			continue
		}
		if listed++; listed > maxPlausibleDomains {
			return nil, errTooManyDomains
		}
		if _, ok := c.Websites.Lookup(host); ok && !slices.Contains(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	switch len(hosts) {
	case 0:
		// No domain of the list is tracked here: the page's host decides, as for this
		// service's body.
		return append(hits, hit), nil
	}
	// The collector finds the website by the host given (and stores only the path and query of
	// the page).
	for _, host := range hosts {
		hit.pageURL.website = host
		hits = append(hits, hit)
	}
	return hits, nil
}

// maxPlausibleDomains bounds the domains of one Plausible hit's d: Plausible's tracker sends
// one, or a few for a rollup (one dashboard of several websites).
const maxPlausibleDomains = 10

var errTooManyDomains = errors.New("d (domain) may list at most 10 domains.")

// revenue is the value and unit of an event's revenue ($, else revenue): the amount as sent
// (a number or a string) and the currency. A revenue that is not such an object gives none,
// as an event value that is not a positive number is dropped.
func revenue(dollar, long jsontext.Value) (value, unit string) {
	raw := present(dollar)
	if raw == nil {
		raw = present(long)
	}
	if raw == nil {
		return "", ""
	}
	if raw.Kind() == '"' {
		// Older scripts sent it as a JSON string holding the object.
		var inner string
		if json.Unmarshal(raw, &inner) != nil {
			return "", ""
		}
		raw = jsontext.Value(inner)
	}
	var rev plausibleRevenue
	if raw.Kind() != '{' || json.Unmarshal(raw, &rev, hitJSON) != nil {
		return "", ""
	}
	switch amount := present(rev.Amount); {
	case amount == nil:
	case amount.Kind() == '0':
		value = string(amount)
	case amount.Kind() == '"':
		_ = json.Unmarshal(amount, &value)
	}
	return value, rev.Currency
}

// stringField is the short key's string, else the long key's; "" when both are absent or
// null. Any other JSON type is refused with message.
func stringField(short, long jsontext.Value, message string) (string, error) {
	raw := present(short)
	if raw == nil {
		raw = present(long)
	}
	if raw == nil {
		return "", nil
	}
	var s string
	if raw.Kind() != '"' || json.Unmarshal(raw, &s, hitJSON) != nil {
		return "", errors.New(message)
	}
	return s, nil
}

// present is v unless it is absent or null.
func present(v jsontext.Value) jsontext.Value {
	if len(v) == 0 || v.Kind() == 'n' {
		return nil
	}
	return v
}

// maxEngagedMillis bounds the engaged time of one engagement hit: 30 minutes, a visit's usual
// timeout; a longer one (a tab left open, a clock jump) is cut to it.
const maxEngagedMillis = 30 * 60 * 1000

// engagedMillis is an engagement hit's e, a number of milliseconds, cut to maxEngagedMillis;
// -1 when negative (never a 400: a browser sent it).
func engagedMillis(e float64) int32 {
	if !(e >= 0) {
		return -1
	}
	return int32(min(e, maxEngagedMillis))
}

// scrollDepth is an engagement hit's sd, a percentage 0..100, rounded; -1 when out of range,
// which drops the field.
func scrollDepth(sd float64) int8 {
	if !(sd >= 0 && sd <= 100) {
		return -1
	}
	return int8(math.Round(sd))
}
