package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

const (
	chromeWindows = ingest.ChromeWindowsUA
	safariIPhone  = ingest.SafariIPhoneUA
)

// hit is one tracker request.
type hit struct {
	body        string
	contentType string // default text/plain, as sendBeacon sends
	ua          string // default chromeWindows; "-" sends none
	language    string
	remote      string // TCP peer, default 198.51.100.7 (New York in the test GeoIP database)
	forwarded   string // X-Forwarded-For
	method      string
}

func (c *collectEnv) send(h hit) harness.Response {
	c.T.Helper()
	method := h.method
	if method == "" {
		method = http.MethodPost
	}
	req := httptest.NewRequest(method, "http://collector.test/api/event", strings.NewReader(h.body))
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	if h.contentType != "" {
		req.Header.Set("Content-Type", h.contentType)
	}
	switch h.ua {
	case "":
		req.Header.Set("User-Agent", chromeWindows)
	case "-":
	default:
		req.Header.Set("User-Agent", h.ua)
	}
	if h.language != "" {
		req.Header.Set("Accept-Language", h.language)
	}
	req.RemoteAddr = "198.51.100.7:51000"
	if h.remote != "" {
		req.RemoteAddr = h.remote
	}
	if h.forwarded != "" {
		req.Header.Set("X-Forwarded-For", h.forwarded)
	}
	res := c.DoRequest(req)
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		c.T.Fatalf("Access-Control-Allow-Origin %q", got)
	}
	return res
}

// stats flushes and returns every counter of a website: name -> value -> count.
func (c *collectEnv) stats(websiteID int64) map[string]map[string]int64 {
	c.T.Helper()
	if err := c.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		c.T.Fatal(err)
	}
	var rows []struct {
		Name  string `db:"name"`
		Date  string `db:"date"`
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := c.DB.Select(&rows, `SELECT name, to_char(date, 'YYYY-MM-DD') AS date, value, count FROM stats WHERE website_id = $1`, websiteID); err != nil {
		c.T.Fatal(err)
	}
	out := map[string]map[string]int64{}
	for _, r := range rows {
		if r.Date != "2026-03-04" {
			c.T.Fatalf("counter on day %s, want 2026-03-04", r.Date)
		}
		if out[r.Name] == nil {
			out[r.Name] = map[string]int64{}
		}
		out[r.Name][r.Value] += r.Count
	}
	return out
}

func body(page, referrer, screen string) string {
	b, _ := json.Marshal(map[string]string{"page": page, "referrer": referrer, "screen_resolution": screen})
	return string(b)
}

type counts = map[string]map[string]int64

func wantStats(t testing.TB, got, want counts) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stats\n got  %v\n want %v", got, want)
	}
}

const day = "2026-03-04"

// formTrackingParams are the parameters the add form offers to drop (pages.trackingParams).
const formTrackingParams = "utm_source\nutm_medium\nutm_campaign\nutm_term\nutm_content\nutm_id\nfbclid\ngclid\nmsclkid\nmc_eid\nref"

// visit is what one visit with the default client records, besides page, referrer and campaign
// (TestEachStatistic compares the values of section 3 but visitor, visit, landing and exit
// pages, which the visit scenarios check).
func visit(extra counts) counts { return visits(1, "1920x1080", extra) }

// visits is n direct visits of the default client with one screen resolution, besides page
// and referrer.
func visits(n int64, screen string, extra counts) counts {
	c := counts{
		"pageview": {day: n}, "source": {"": n}, "channel": {"Direct": n},
		"browser": {"Chrome": n}, "operating_system": {"Windows": n}, "device": {"desktop": n},
		"language": {"": n}, "screen_resolution": {screen: n},
		"continent": {"NA:North America": n}, "country": {"US:United States": n}, "city": {"US:New York, NY": n},
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

// valuesOfSection3 keeps the statistics of section 3 that a single hit decides, dropping
// visitor, visit, landing and exit pages and the internal counters.
func valuesOfSection3(got counts) counts {
	out := counts{}
	for name, values := range got {
		switch name {
		case "visitor", "visit", "landing_page", "exit_page":
			continue
		}
		if stats.Known(name) {
			out[name] = values
		}
	}
	return out
}

func TestEachStatistic(t *testing.T) {
	long := "/" + strings.Repeat("é", 300)
	cases := []struct {
		name     string
		settings []string
		hits     []hit
		want     counts
	}{
		{"a visit records every statistic", nil,
			[]hit{{body: body("https://www.SITE.test/a/b?x=1&utm_campaign=spring#top", "https://www.google.com/search?q=1", "1920x1080"), language: "de-CH,de;q=0.9,en;q=0.8"}},
			visit(counts{"page": {"/a/b?x=1&utm_campaign=spring": 1}, "referrer": {"www.google.com": 1}, "campaign": {"spring": 1}, "language": {"de": 1},
				"search_engine": {"Google": 1}, "source": {"Google": 1}, "channel": {"Organic Search": 1}})},
		{"a direct visit has the empty referrer and no campaign", nil,
			[]hit{{body: body("https://site.test", "", "1920x1080")}},
			visit(counts{"page": {"/": 1}, "referrer": {"": 1}})},
		{"a referrer of the website itself is the empty referrer", nil,
			[]hit{{body: body("https://site.test/next", "https://www.site.test/prev", "1920x1080")}},
			visit(counts{"page": {"/next": 1}, "referrer": {"": 1}})},
		{"a subdomain referrer is another host: a visit", nil,
			[]hit{{body: body("https://site.test/", "https://blog.site.test/post", "1920x1080")}},
			visit(counts{"page": {"/": 1}, "referrer": {"blog.site.test": 1}, "source": {"blog.site.test": 1}, "channel": {"Referral": 1}})},
		{"the tags are read before the form's tracking parameters are dropped", []string{"exclude_params", formTrackingParams},
			[]hit{{body: body("https://site.test/p?utm_source=Newsletter&utm_medium=email&utm_campaign=c&utm_term=t%201&utm_content=hero&ref=x&a=1", "", "1920x1080")}},
			visit(counts{"page": {"/p?a=1": 1}, "referrer": {"": 1}, "campaign": {"c": 1}, "source": {"Newsletter": 1}, "channel": {"Email": 1},
				"utm_source": {"Newsletter": 1}, "utm_medium": {"email": 1}, "utm_term": {"t 1": 1}, "utm_content": {"hero": 1}})},
		{"a known utm_source is written as the list spells it, and gclid from Google is paid", []string{"exclude_params", formTrackingParams},
			[]hit{{body: body("https://site.test/?utm_source=GOOGLE&gclid=abc", "https://www.google.de/", "1920x1080")}},
			visit(counts{"page": {"/": 1}, "referrer": {"www.google.de": 1}, "search_engine": {"Google": 1}, "source": {"Google": 1},
				"channel": {"Paid Search": 1}, "utm_source": {"GOOGLE": 1}})},
		{"ref names the source when utm_source is absent", nil,
			[]hit{{body: body("https://site.test/?ref=producthunt", "", "1920x1080")}},
			visit(counts{"page": {"/?ref=producthunt": 1}, "referrer": {"": 1}, "source": {"Product Hunt": 1}, "channel": {"Organic Social": 1}})},
		{"tags are cut, made storable and redacted, never refused", nil,
			[]hit{{body: body("https://site.test/?utm_source="+strings.Repeat("s", 300)+"&utm_medium=%FF%00&utm_term=me%40example.com&utm_content=%2B49%20170%201234567", "", "1920x1080")}},
			visit(counts{"page": {"/?utm_source=" + strings.Repeat("s", 242): 1}, "referrer": {"": 1}, "source": {strings.Repeat("s", 255): 1},
				"channel": {"Referral": 1}, "utm_source": {strings.Repeat("s", 255): 1}, "utm_medium": {"\uFFFD\uFFFD": 1},
				"utm_term": {"(redacted)": 1}, "utm_content": {"(redacted)": 1}})},
		{"excluded parameters leave the page, the campaign is read first", []string{"exclude_params", "utm_campaign\nref\r\n"},
			[]hit{{body: body("https://site.test/p?utm_campaign=c&a=1&ref=2&b=%20x", "", "1920x1080")}},
			visit(counts{"page": {"/p?a=1&b=%20x": 1}, "referrer": {"": 1}, "campaign": {"c": 1}, "source": {"2": 1}, "channel": {"Referral": 1}})},
		{"& drops the whole query", []string{"exclude_params", "&"},
			[]hit{{body: body("https://site.test/p?utm_campaign=c&a=1", "", "1920x1080")}},
			visit(counts{"page": {"/p": 1}, "referrer": {"": 1}, "campaign": {"c": 1}})},
		{"a page is cut at 255 characters, in its one spelling (/ééé..., not /%C3%A9...)", nil,
			[]hit{{body: body("https://site.test"+long, "https://site.test/", "1x1")}},
			visits(1, "1x1", counts{"page": {stats.Truncate(long, 255): 1}, "referrer": {"": 1}})},
		{"screen resolutions out of range are unknown", nil,
			[]hit{
				{body: body("https://site.test/", "", "0x100")}, {body: body("https://site.test/", "", "20001x5")},
				{body: body("https://site.test/", "", "axb")}, {body: body("https://site.test/", "", "")},
				{body: body("https://site.test/", "", "1920x1080x2")}, {body: body("https://site.test/", "", "20000x1")},
			},
			counts{"pageview": {day: 6}, "page": {"/": 6}, "referrer": {"": 6}, "source": {"": 6}, "channel": {"Direct": 6},
				"browser": {"Chrome": 6}, "operating_system": {"Windows": 6}, "device": {"desktop": 6}, "language": {"": 6},
				"screen_resolution": {"": 5, "20000x1": 1},
				"continent":         {"NA:North America": 6}, "country": {"US:United States": 6}, "city": {"US:New York, NY": 6}}},
		{"languages: first entry, primary subtag, lower case", nil,
			[]hit{
				{body: body("https://site.test/", "", "1x1"), language: "EN-us"},
				{body: body("https://site.test/", "", "1x1"), language: "fr;q=0.8, en"},
				{body: body("https://site.test/", "", "1x1"), language: "zh_Hant"},
				{body: body("https://site.test/", "", "1x1"), language: "*"},
			},
			counts{"pageview": {day: 4}, "page": {"/": 4}, "referrer": {"": 4}, "source": {"": 4}, "channel": {"Direct": 4},
				"browser": {"Chrome": 4}, "operating_system": {"Windows": 4}, "device": {"desktop": 4},
				"language": {"en": 1, "fr": 1, "zh": 1, "": 1}, "screen_resolution": {"1x1": 4},
				"continent": {"NA:North America": 4}, "country": {"US:United States": 4}, "city": {"US:New York, NY": 4}}},
		{"a phone", nil,
			[]hit{{body: body("https://site.test/", "", "390x844"), ua: safariIPhone, remote: "[2001:db8:1::9]:443"}},
			counts{"pageview": {day: 1}, "page": {"/": 1}, "referrer": {"": 1}, "source": {"": 1}, "channel": {"Direct": 1},
				"browser": {"Safari": 1}, "operating_system": {"iOS": 1}, "device": {"mobile": 1}, "language": {"": 1},
				"screen_resolution": {"390x844": 1}, "continent": {"AS:Asia": 1}, "country": {"JP:Japan": 1}, "city": {"JP:Tokyo, 13": 1}}},
		{"an address unknown to GeoIP", nil,
			[]hit{{body: body("https://site.test/", "", "1920x1080"), remote: "192.0.2.200:1"}},
			visit(counts{"page": {"/": 1}, "referrer": {"": 1}, "continent": {"": 1}, "country": {"": 1}, "city": {"": 1}})},
		{"an event starts a visit, whose values are the event's, and is not a pageview", nil,
			[]hit{
				{body: `{"page":"https://site.test/buy","event":{"name":"Purchase","value":"5","unit":"USD"}}`},
				{body: `{"page":"https://site.test/buy","event":{"name":"Purchase","value":"5","unit":"USD"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"Sign:up"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"N","value":2.5,"unit":"a:b"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"Neg","value":"-3","unit":"` + strings.Repeat("u", 33) + `"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"Long","value":"12345678901"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"Zero","value":"0"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"NaN","value":"NaN"}}`},
				{body: `{"page":"https://site.test/","event":{"name":"` + strings.Repeat("n", 64) + `","value":"1234567890","unit":"` + strings.Repeat("u", 32) + `"}}`},
			},
			visits(9, "", counts{"pageview": nil, "referrer": {"": 9},
				"event": {"Purchase:5:USD": 2, "Sign up::": 1, "N:2.5:a b": 1, "Neg::": 1, "Long::": 1, "Zero::": 1, "NaN::": 1,
					strings.Repeat("n", 64) + ":1234567890:" + strings.Repeat("u", 32): 1}})},
		// openapi.yaml declares these members nullable: null is the same as absent.
		{"null members count as absent", nil,
			[]hit{
				{body: `{"page":"https://site.test/","event":{"name":"Unitless","value":7,"unit":null}}`},
				{body: `{"page":"https://site.test/","event":{"name":"Valueless","value":null,"unit":"EUR"}}`},
				{body: `{"page":"https://site.test/","referrer":null,"screen_resolution":null,"event":null}`},
			},
			visits(3, "", counts{"event": {"Unitless:7:": 1, "Valueless::EUR": 1}, "pageview": {day: 1},
				"page": {"/": 1}, "referrer": {"": 3}})},
	}
	cases = append(cases, struct {
		name     string
		settings []string
		hits     []hit
		want     counts
	}{"NUL and invalid UTF-8, which PostgreSQL refuses, are replaced", nil,
		[]hit{
			{body: `{"page":"https://site.test/","event":{"name":"a\u0000b","unit":"\u0000"}}`},
			{body: body("https://site.test/%FF?utm_campaign=%FF%00x", "", "1x1")},
		},
		visits(2, "", counts{"event": {"a\uFFFDb::\uFFFD": 1}, "page": {"/%FF?utm_campaign=%FF%00x": 1}, "referrer": {"": 2},
			"pageview": {day: 1}, "campaign": {"\uFFFD\uFFFDx": 1}, "screen_resolution": {"": 1, "1x1": 1}})})
	// Each hit is a visit of its own: the clock moves past VISIT_TIMEOUT between hits.
	var clock atomic.Int64
	clock.Store(time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC).UnixNano())
	e := newCollectEnv(t, app.Config{VisitTimeout: time.Second, Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.T = t
			domain := fmt.Sprintf("site%d.test", i)
			id := e.site(domain, c.settings...)
			for _, h := range c.hits {
				clock.Add(int64(2 * time.Second))
				h.body = strings.ReplaceAll(strings.ReplaceAll(h.body, "site.test", domain), "SITE.test", strings.ToUpper(domain))
				if res := e.send(h); res.Status != http.StatusAccepted {
					t.Fatalf("status %d: %s", res.Status, res.Body)
				}
			}
			want := counts{}
			for name, values := range c.want {
				if values == nil {
					continue
				}
				want[name] = map[string]int64{}
				for v, n := range values {
					want[name][strings.ReplaceAll(v, "site.test", domain)] = n
				}
			}
			clock.Add(int64(2 * time.Second)) // every visit ends before the flush
			wantStats(t, valuesOfSection3(e.stats(id)), want)
		})
	}
}

func TestExclusions(t *testing.T) {
	e := newCollectEnv(t, app.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	page := func(domain string) string { return body("https://"+domain+"/", "", "1x1") }

	ips := e.site("ips.test", "exclude_ips", "198.51.100.0/24\n2001:db8:1::5\n")
	for _, remote := range []string{"198.51.100.9:1", "[2001:db8:1::5]:1", "[::ffff:198.51.100.10]:1"} {
		if res := e.send(hit{body: page("ips.test"), remote: remote}); res.Status != http.StatusAccepted {
			t.Fatalf("%s: status %d", remote, res.Status)
		}
	}
	e.send(hit{body: page("ips.test"), remote: "203.0.113.1:1"}) // counted
	if got := e.stats(ips)["pageview"][day]; got != 1 {
		t.Fatalf("excluded addresses counted: %d pageviews, want 1", got)
	}

	bots := e.site("bots.test")
	for _, ua := range []string{"curl/8.4.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"python-requests/2.31.0", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", "-"} {
		if res := e.send(hit{body: page("bots.test"), ua: ua}); res.Status != http.StatusAccepted {
			t.Fatalf("%s: status %d", ua, res.Status)
		}
	}
	if got := e.stats(bots); len(got) != 0 {
		t.Fatalf("bots counted with exclude_bots=1: %v", got)
	}
	allowBots := e.site("allbots.test", "exclude_bots", "0")
	e.send(hit{body: page("allbots.test"), ua: "curl/8.4.0"})
	if got := e.stats(allowBots)["pageview"][day]; got != 1 {
		t.Fatalf("exclude_bots=0 dropped a bot: %d", got)
	}

	// The client address: behind a trusted proxy the nearest untrusted hop, else the peer.
	geo := e.site("geo.test")
	proxied := []hit{
		{remote: "10.1.1.1:1", forwarded: "203.0.113.50, 198.51.100.7"}, // NY: the nearest untrusted hop
		{remote: "10.1.1.1:1", forwarded: "198.51.100.7, 10.2.2.2"},     // NY: the trusted hop skipped
		{remote: "192.0.2.10:1", forwarded: "198.51.100.7"},             // Singapore: an untrusted peer's header is ignored
		{remote: "10.1.1.1:1", forwarded: "garbage, 10.2.2.2"},          // unknown
		{remote: "10.1.1.1:1", forwarded: "2001:db8:1::7"},              // Tokyo
	}
	for _, h := range proxied {
		h.body = page("geo.test")
		e.send(h)
	}
	// The first two are one visitor (one address and user agent): one visit.
	wantStats(t, counts{"city": e.stats(geo)["city"]}, counts{"city": {"US:New York, NY": 1, "SG:Singapore": 1, "": 1, "JP:Tokyo, 13": 1}})
}

func TestBadHits(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("bad.test")
	cases := []struct {
		name   string
		hit    hit
		status int
	}{
		{"malformed JSON", hit{body: `{"page":`}, 400},
		{"not an object", hit{body: `["https://bad.test/"]`}, 400},
		{"trailing data", hit{body: `{"page":"https://bad.test/"} {}`}, 400},
		{"empty body", hit{body: ``}, 400},
		{"page missing", hit{body: `{"referrer":"https://a.test/"}`}, 400},
		{"page relative", hit{body: `{"page":"/a"}`}, 400},
		{"page without host", hit{body: `{"page":"https:///a"}`}, 400},
		{"page not http", hit{body: `{"page":"ftp://bad.test/a"}`}, 400},
		{"page javascript", hit{body: `{"page":"javascript:alert(1)"}`}, 400},
		{"page not a string", hit{body: `{"page":7}`}, 400},
		{"form content type", hit{body: `{"page":"https://bad.test/"}`, contentType: "application/x-www-form-urlencoded"}, 400},
		{"event without name", hit{body: `{"page":"https://bad.test/","event":{"value":"1"}}`}, 400},
		{"event name too long", hit{body: `{"page":"https://bad.test/","event":{"name":"` + strings.Repeat("n", 65) + `"}}`}, 400},
		{"event value an object", hit{body: `{"page":"https://bad.test/","event":{"name":"a","value":{}}}`}, 400},
		{"too large", hit{body: `{"page":"https://bad.test/","referrer":"` + strings.Repeat("r", ingest.MaxBodySize) + `"}`}, 413},
		{"GET", hit{method: "GET"}, 405},
		{"DELETE", hit{method: "DELETE"}, 405},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.T = t
			res := e.send(c.hit)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			var errBody struct {
				Message string
				Status  int
			}
			if err := json.Unmarshal(res.Body, &errBody); err != nil || errBody.Status != c.status || errBody.Message == "" {
				t.Fatalf("error body %s", res.Body)
			}
		})
	}
	e.T = t
	if got := e.stats(id); len(got) != 0 {
		t.Fatalf("refused hits were counted: %v", got)
	}
	// JSON is accepted as application/json too.
	if res := e.send(hit{body: `{"page":"https://bad.test/"}`, contentType: "application/json"}); res.Status != 202 {
		t.Fatalf("application/json: %d", res.Status)
	}
}

func TestPreflight(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	req := httptest.NewRequest("OPTIONS", "http://collector.test/api/event", nil)
	req.Header.Set("Origin", "https://anywhere.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	res := e.DoRequest(req)
	if res.Status != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(res.Header.Get("Access-Control-Allow-Headers")), "content-type") {
		t.Fatalf("preflight: %d %v", res.Status, res.Header)
	}
}

// Changes made through the API take effect on this node at once, without waiting for the TTL.
func TestSettingsChangesApplyAtOnce(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("live.test")
	hitLive := func() int { return e.send(hit{body: body("https://live.test/", "", "1x1")}).Status }
	if s := hitLive(); s != 202 {
		t.Fatalf("new website: %d", s)
	}
	api := func(method, path, form string) {
		req := httptest.NewRequest(method, "http://api.test"+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+e.key)
		if res := e.DoRequest(req); res.Status != 200 {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
	}
	api("PATCH", fmt.Sprintf("/api/v1/websites/%d", id), "exclude_ips=198.51.100.0/24")
	hitLive() // excluded now
	if got := e.stats(id)["pageview"][day]; got != 1 {
		t.Fatalf("exclude_ips not applied at once: %d pageviews, want 1", got)
	}
	api("DELETE", fmt.Sprintf("/api/v1/websites/%d", id), "")
	if s := hitLive(); s != 202 {
		t.Fatalf("deleted website: %d, want 202 (as for any unknown host)", s)
	}
	if n := e.Metric("analytics_events_ignored_total", "reason", "unknown_website"); n != 1 {
		t.Fatalf("deleted website: ignored{reason=unknown_website} = %v, want 1", n)
	}
}

// A hit for a host no website has is answered exactly like a counted one (202, no body, the
// same headers), so that a stranger cannot tell whether a private website is tracked here;
// only the metrics count it, by reason and never by host.
func TestUnknownWebsiteLooksAccepted(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("known.test")
	known := e.send(hit{body: body("https://known.test/", "", "1x1")})
	unknown := e.send(hit{body: body("https://unknown.test/", "", "1x1")})
	if known.Status != http.StatusAccepted || unknown.Status != http.StatusAccepted {
		t.Fatalf("known %d, unknown %d: want 202 for both", known.Status, unknown.Status)
	}
	if len(unknown.Body) != 0 || len(known.Body) != 0 {
		t.Fatalf("bodies %q and %q, want none", known.Body, unknown.Body)
	}
	for name := range known.Header {
		if unknown.Header.Get(name) != known.Header.Get(name) {
			t.Fatalf("header %s: %q for a known host, %q for an unknown one", name, known.Header.Get(name), unknown.Header.Get(name))
		}
	}
	if len(unknown.Header) != len(known.Header) {
		t.Fatalf("headers differ: %v and %v", known.Header, unknown.Header)
	}
	if n := e.Metric("analytics_events_ignored_total", "reason", "unknown_website"); n != 1 {
		t.Fatalf("ignored{reason=unknown_website} = %v, want 1", n)
	}
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := e.DB.Get(&rows, `SELECT count(*) FROM stats WHERE website_id <> $1`, id); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatalf("%d stats rows for no website", rows)
	}
	for _, f := range e.Metrics() {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), "unknown.test") {
					t.Fatalf("metric %s names the host: %v", f.GetName(), m)
				}
			}
		}
	}
}

// Past its bound the buffer refuses (503) rather than dropping silently; what it accepted is
// written exactly once.
func TestFullBufferAnswers503(t *testing.T) {
	e := newCollectEnv(t, app.Config{BufferMaxKeys: 40})
	// No background flusher runs (it would write early once the buffer is half full, making
	// room at a moment this test cannot choose): the test flushes by itself.
	id := e.site("full.test")
	accepted, refused := 0, 0
	for i := 0; i < 60; i++ { // each hit adds one distinct page key
		res := e.send(hit{body: body(fmt.Sprintf("https://full.test/p%d", i), "https://full.test/", "1x1")})
		switch res.Status {
		case 202:
			accepted++
		case 503:
			refused++
			if res.Header.Get("Retry-After") == "" {
				t.Fatal("503 without Retry-After")
			}
		default:
			t.Fatalf("status %d", res.Status)
		}
	}
	if refused == 0 || accepted == 0 {
		t.Fatalf("%d accepted, %d refused: the bound did not apply", accepted, refused)
	}
	if got := e.stats(id)["pageview"][day]; got != int64(accepted) {
		t.Fatalf("%d pageviews written for %d accepted", got, accepted)
	}
	if s := e.send(hit{body: body("https://full.test/after", "https://full.test/", "1x1")}).Status; s != 202 {
		t.Fatalf("after a flush: %d, want 202", s)
	}
}

// Days are calendar days of the configured time zone.
func TestDayInConfiguredTimeZone(t *testing.T) {
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	e := newCollectEnv(t, app.Config{Location: auckland, Now: func() time.Time { return time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC) }}) // the 5th there
	id := e.site("tz.test")
	e.send(hit{body: body("https://tz.test/", "", "1x1")})
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var date string
	if err := e.DB.Get(&date, `SELECT DISTINCT to_char(date, 'YYYY-MM-DD') FROM stats WHERE website_id = $1`, id); err != nil || date != "2026-03-05" {
		t.Fatalf("day %q (%v), want 2026-03-05", date, err)
	}
}

// Nothing personal is written: no address or user agent in the stats, in any table of a full
// pg_dump (the unlogged tables' data included) or in the logs; the only per-visitor tables are
// the day membership (keys under a salt, no address) and the salts, UNLOGGED with the realtime
// tables, so that no WAL, replica or base backup holds them.
func TestNothingPersonalIsKept(t *testing.T) {
	e := newCollectEnv(t, app.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	id := e.site("private.test")
	e.send(hit{body: body("https://private.test/?q=secret-query", "https://news.example/x", "1x1"), remote: "10.9.9.9:1", forwarded: "198.51.100.77", ua: safariIPhone})
	e.send(hit{body: body("https://private.test/b", "", "1x1"), remote: "10.9.9.9:1", forwarded: "198.51.100.77", ua: safariIPhone})
	e.send(hit{body: `{"page":"https://private.test/b","event":{"name":"Buy"}}`, remote: "10.9.9.9:1", forwarded: "198.51.100.77", ua: safariIPhone})
	// Properties are free text from strangers and site owners: e-mail addresses and runs of 9+
	// digits (phone, card, account numbers) in keys or values are stored as (redacted).
	e.send(hit{body: `{"page":"https://private.test/c","props":{"email":"ada.lovelace@example.com","card":"4111 1111 1111 1111",
		"phone":"+49 (170) 123-456-78","account":123456789012,"grace.hopper@example.org":"yes","url":"https://x.test/?mail=alan.turing@example.net"}}`,
		remote: "10.9.9.9:1", forwarded: "198.51.100.77", ua: safariIPhone})
	e.send(hit{body: `{"n":"Buy","u":"https://private.test/c","d":"private.test","p":"{\"customer\":\"555.123.4567.89\"}","$":{"amount":"5","currency":"EUR"}}`,
		remote: "10.9.9.9:1", forwarded: "198.51.100.77", ua: safariIPhone})
	got := e.stats(id)
	if got["visitor"][day] != 1 || got["visit"][day] != 1 {
		t.Fatalf("visitor %v visit %v, want one of each", got["visitor"], got["visit"])
	}
	out, err := exec.Command("pg_dump", "--no-owner", e.DBURL).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	dump := string(out)
	for _, table := range []string{"visitor_days", "realtime_recent", "realtime_minutes", "visit_rows_20260304"} {
		if !strings.Contains(dump, "COPY public."+table) {
			t.Fatalf("the dump has no data of %s: the test would prove nothing", table)
		}
	}
	// The visits' rows hold no visitor key (only the 32 bits of the day number).
	rows := dump[strings.Index(dump, "COPY public.visit_rows_20260304"):]
	rows = rows[:strings.Index(rows, "\\.\n")]
	if !strings.Contains(rows, "Buy::") || !strings.Contains(rows, "(redacted)") || !strings.Contains(dump, "COPY public.property_values") {
		t.Fatalf("the dump of visit_rows has not the visit's row with its properties: %s", rows)
	}
	var keys []string
	if err := e.DB.Select(&keys, `SELECT encode(key, 'hex') FROM visitor_days`); err != nil || len(keys) == 0 {
		t.Fatalf("keys %v (%v)", keys, err)
	}
	for _, key := range keys {
		if strings.Contains(rows, key) || strings.Contains(rows, key[:16]) {
			t.Fatalf("visit_rows holds a visitor key: %s", rows)
		}
	}
	for _, secret := range []string{"198.51.100.77", "10.9.9.9", "iPhone OS", "Mozilla", "AppleWebKit",
		"lovelace", "hopper", "turing", "4111 1111", "123-456-78", "123456789012", "555.123.4567"} {
		if strings.Contains(dump, secret) || strings.Contains(e.Logs.String(), secret) {
			i := strings.Index(dump, secret)
			t.Fatalf("%q was written (pg_dump or logs): %s", secret, dump[max(0, i-200):min(len(dump), i+100)])
		}
	}
	var recent []string
	if err := e.DB.Select(&recent, `SELECT page || ' ' || referrer || ' ' || browser FROM realtime_recent`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(recent) != "[/ news.example Safari /b  Safari /c  Safari]" {
		t.Errorf("realtime_recent holds %q, want the paths without their query string", recent)
	}
	var tables []struct {
		Name        string `db:"relname"`
		Persistence string `db:"relpersistence"`
	}
	if err := e.DB.Select(&tables, `SELECT c.relname, c.relpersistence::text FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`); err != nil {
		t.Fatal(err)
	}
	unlogged := map[string]bool{"visitor_salts": true, "visitor_days": true, "realtime_minutes": true, "realtime_recent": true, "realtime_visitors": true}
	for _, table := range tables {
		if unlogged[table.Name] {
			if table.Persistence != "u" {
				t.Errorf("%s is not UNLOGGED", table.Name)
			}
			continue
		}
		if table.Name == "sessions" {
			continue // website owners signed in to the stats pages, never visitors
		}
		if strings.Contains(table.Name, "hit") || strings.Contains(table.Name, "visitor") || strings.Contains(table.Name, "session") {
			t.Fatalf("a per-visitor table exists: %s", table.Name)
		}
	}
}
