package ingest

import (
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
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
	var req eventRequest
	if err := decodeEvent(body, &req); err != nil {
		return nil, errBadJSON
	}
	if req.Page != "" {
		return append(hits, req), nil
	}
	var p plausibleBody
	if err := json.Unmarshal(body, &p, hitJSON); err != nil {
		return nil, errBadJSON
	}
	if present(p.N) == nil && present(p.Name) == nil {
		// Neither body: the collector answers that page is missing.
		return append(hits, req), nil
	}
	return c.plausibleHits(&p, hits)
}

// plausibleHits checks Plausible's body and makes the collector's hits of it.
func (c *Collector) plausibleHits(p *plausibleBody, hits []eventRequest) ([]eventRequest, error) {
	name, err := stringField(p.N, p.Name, "n (name) must be a string.")
	if err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(name); n < 1 || n > maxEventNameLength {
		return nil, errors.New("n (name) must be 1 to 64 characters.")
	}
	rawURL, err := stringField(p.U, p.URL, "u (url) must be an absolute http(s) URL.")
	if err != nil {
		return nil, err
	}
	page, err := url.Parse(rawURL)
	if err != nil || (page.Scheme != "http" && page.Scheme != "https") || page.Hostname() == "" {
		return nil, errors.New("u (url) must be an absolute http(s) URL.")
	}
	referrer, err := stringField(p.R, p.Referrer, "r (referrer) must be a string or null.")
	if err != nil {
		return nil, err
	}
	domains, err := stringField(p.D, p.Domain, "d (domain) must be a string or null.")
	if err != nil {
		return nil, err
	}
	hit := eventRequest{Referrer: referrer, hash: string(p.H) == "1" || string(p.H) == "true",
		quiet: string(p.I) == "false" || string(p.Interactive) == "false"}
	switch name {
	case plausiblePageview:
	case plausibleEngagement:
		// Extends the open visit of this client (recordEngagement).
		hit.engagement = true
		hit.engagedMillis, hit.scrollDepth = engagedMillis(p.E), scrollDepth(p.SD)
	default:
		hit.Event = &eventBody{Name: name}
		hit.Event.Value, hit.Event.Unit = revenue(p)
	}
	hosts := c.trackedDomains(domains)
	if len(hosts) == 0 {
		// No domain of the list is tracked here: the page's host decides, as for this
		// service's body.
		hit.Page = page.String()
		return append(hits, hit), nil
	}
	for _, host := range hosts {
		hit.Page = pageOn(page, host)
		hits = append(hits, hit)
	}
	return hits, nil
}

// trackedDomains are the websites of Plausible's comma-separated domain list that are tracked
// here, as stored (lower case, no www.), each once.
func (c *Collector) trackedDomains(list string) []string {
	var hosts []string
	for part := range strings.SplitSeq(list, ",") {
		host := bareHost(strings.TrimSpace(part))
		if host == "" {
			continue
		}
		if _, ok := c.Websites.Lookup(host); ok && !containsString(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// pageOn is the page's URL with the website's domain as its host: the collector finds the
// website by the host of page, and stores only the path and query.
func pageOn(page *url.URL, domain string) string {
	u := *page
	u.Host = domain
	u.User = nil
	return u.String()
}

// revenue is the value and unit of an event's revenue ($, else revenue): the amount as sent
// (a number or a string) and the currency. A revenue that is not such an object gives none,
// as an event value that is not a positive number is dropped.
func revenue(p *plausibleBody) (value, unit string) {
	raw := present(p.Dollar)
	if raw == nil {
		raw = present(p.Revenue)
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

// engagedMillis is an engagement hit's e: a number of milliseconds, cut to maxEngagedMillis;
// -1 when absent, negative or not a number (never a 400: a browser sent it).
func engagedMillis(raw jsontext.Value) int32 {
	if raw.Kind() != '0' {
		return -1
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 {
		return -1
	}
	return int32(min(f, maxEngagedMillis))
}

// scrollDepth is an engagement hit's sd: a percentage 0..100, rounded; -1 when absent or out
// of range, which drops the field.
func scrollDepth(raw jsontext.Value) int8 {
	if raw.Kind() != '0' {
		return -1
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > 100 {
		return -1
	}
	return int8(math.Round(f))
}
