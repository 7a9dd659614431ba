package ingest_test

// The whole collection path, end to end, as a customer's visitor drives it: a real browser
// (Debian's chromium) loads a page of a customer site that carries the official snippet, the
// tracker script comes from the real server, its beacons reach the real collector, the real
// flusher writes the counters to PostgreSQL, and the stats API reads them back. Nothing is
// faked between the browser and the database; only the host names (site.test, other.test) are
// mapped to 127.0.0.1 inside the browser, so the test needs no DNS and no network.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/ingest/geotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/web/webtest"
)

const (
	// e2eDomain is the tracked website; e2eOther links to it, so the visit has a referrer.
	e2eDomain = "site.test"
	e2eOther  = "other.test"

	// e2eUA is a Windows desktop Chrome. Headless Chrome announces itself as HeadlessChrome,
	// which the service rightly drops as a bot when exclude_bots=1; a visitor's real browser
	// does not.
	e2eUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

	// The browser window and screen. Headless Chromium reports an 800x600 screen whatever
	// the window size unless --screen-info sets it; this is the screen_resolution the
	// tracker sends.
	e2eWidth, e2eHeight = 1280, 720

	// e2eWait bounds every wait of the test: generous for a loaded CI machine, and still a
	// clear failure rather than a hang.
	e2eWait = 15 * time.Second
)

// e2eGeo is what the test GeoIP database says of 127.0.0.1, the address every hit of the
// browser comes from.
var e2eGeo = struct{ continent, country, city string }{"EU:Europe", "DE:Germany", "DE:Berlin, BE"}

// e2e is one running service (testkit/harness, started) on its own fresh database, with one
// website created through the API, and the customer's web server.
type e2e struct {
	*harness.Env
	t       *testing.T
	api     *httptest.Server // the service: API, collector, tracker script, /metrics
	pages   *httptest.Server // the customer's site (and the page that links to it)
	key     string
	website int64
	day     string // the calendar day (UTC) of every hit
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	geo, err := ingest.OpenGeoDB(writeLoopbackGeoDB(t))
	if err != nil {
		t.Fatalf("OpenGeoDB: %v", err)
	}
	t.Cleanup(func() { _ = geo.Close() })
	// The clock is pinned to the start of the test, so that a run across midnight UTC still
	// counts every hit on the one day the test asserts.
	start := time.Now().UTC()
	h := harness.New(t, harness.At(start), harness.Started(), harness.Config(app.Config{
		Geo:           geo,
		FlushInterval: 100 * time.Millisecond,
		BufferMaxKeys: 10_000, // the zero value holds no key at all: every hit would be a 503
		// An hour: the website created below can only be known to the collector through the
		// website rules' refresh of this node's cache, which is what this proves; a short TTL
		// would hide a broken hook.
		SettingsTTL: time.Hour,
	}))
	e := &e2e{Env: h, t: t, api: h.Server, key: h.User("owner@site.test").Key, day: start.Format(time.DateOnly)}
	e.website = e.createWebsite()
	e.pages = e.customerSite()
	return e
}

// writeLoopbackGeoDB writes a GeoLite2-City-shaped database that places 127.0.0.1 in Berlin.
func writeLoopbackGeoDB(t *testing.T) string {
	t.Helper()
	return geotest.Write(t, "GeoLite2-City", []geotest.Network{
		{Network: "127.0.0.1/32", Record: geotest.CityRecord("EU", "Europe", "DE", "Germany", "Berlin", "BE")}})
}

// call makes an API request with the key and decodes the JSON answer, which must have status
// want.
func (e *e2e) call(method, path string, form url.Values, want int) map[string]any {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.api.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := e.api.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
	return out
}

// createWebsite stores the website through the API, as its owner would, so that the
// collector learns of it through the website rules' refresh of the cache.
func (e *e2e) createWebsite() int64 {
	e.t.Helper()
	out := e.call(http.MethodPost, "/api/v1/websites",
		url.Values{"domain": {e2eDomain}, "exclude_bots": {"1"}}, http.StatusCreated)
	data, _ := out["data"].(map[string]any)
	id, ok := data["id"].(float64)
	if !ok || data["domain"] != e2eDomain || data["exclude_bots"] != 1.0 {
		e.t.Fatalf("created website: %v", out)
	}
	return int64(id)
}

// stats returns one statistic of the website for the test's day, as value -> count.
func (e *e2e) stats(name string) map[string]int64 {
	e.t.Helper()
	q := url.Values{"name": {name}, "from": {e.day}, "to": {e.day}, "per_page": {"100"}}
	out := e.call(http.MethodGet, fmt.Sprintf("/api/v1/stats/%d?%s", e.website, q.Encode()), nil, http.StatusOK)
	data, ok := out["data"].([]any)
	if !ok {
		e.t.Fatalf("stats %s: %v", name, out)
	}
	got := map[string]int64{}
	for _, d := range data {
		entry, _ := d.(map[string]any)
		value, ok1 := entry["value"].(string)
		count, ok2 := entry["count"].(float64)
		if !ok1 || !ok2 {
			e.t.Fatalf("stats %s: entry %v", name, d)
		}
		got[value] = int64(count)
	}
	return got
}

// allStats is every statistic of the contract, as stats returns them.
func (e *e2e) allStats() map[string]map[string]int64 {
	e.t.Helper()
	all := map[string]map[string]int64{}
	for _, name := range stats.Names {
		all[string(name)] = e.stats(string(name))
	}
	return all
}

// waitFor polls cond until it holds, or fails the test after e2eWait.
func (e *e2e) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(e2eWait)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("waited %v for %s", e2eWait, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// customerSite serves, on one port for both host names, other.test/from, a page that links to
// the site, and every page of site.test, which carries exactly the official snippet.
func (e *e2e) customerSite() *httptest.Server {
	snippet := web.Snippet(e.api.URL)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent) // keeps the console free of 404s
			return
		}
		host, port, _ := net.SplitHostPort(r.Host)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch host {
		case e2eOther:
			fmt.Fprintf(w, `<!doctype html><html><head><title>elsewhere</title></head><body>`+
				`<a id="go" href="http://%s:%s/start?utm_campaign=launch">the site</a></body></html>`, e2eDomain, port)
		case e2eDomain:
			fmt.Fprintf(w, `<!doctype html><html><head><title>site</title>%s</head><body><h1>%s</h1></body></html>`,
				snippet, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	e.t.Cleanup(srv.Close)
	return srv
}

// url is the address of path on host, on the customer's server.
func (e *e2e) url(host, path string) string {
	_, port, _ := net.SplitHostPort(e.pages.Listener.Addr().String())
	return "http://" + host + ":" + port + path
}

// browser starts chromium with both test host names mapped to the customer's server, a fixed
// window, German as the language, and opts.
func browser(t *testing.T, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts = append([]chromedp.ExecAllocatorOption{
		chromedp.Flag("host-resolver-rules", "MAP "+e2eDomain+" 127.0.0.1, MAP "+e2eOther+" 127.0.0.1"),
		chromedp.WindowSize(e2eWidth, e2eHeight),
		// screen.width/height, which the tracker sends; the window size alone leaves them at
		// headless's 800x600.
		chromedp.Flag("screen-info", fmt.Sprintf("{%dx%d}", e2eWidth, e2eHeight)),
		// --lang sets navigator.language; --accept-lang the Accept-Language header, which is
		// what the collector reads (headless ignores --lang for the header).
		chromedp.Flag("lang", "de-DE"),
		chromedp.Flag("accept-lang", "de-DE,de;q=0.9,en;q=0.8"),
	}, opts...)
	ctx := webtest.NewBrowser(t, opts...)
	webtest.WatchProblems(t, ctx)
	return ctx
}

// do runs browser steps, bounded by e2eWait.
func do(t *testing.T, tab context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, e2eWait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func evalString(t *testing.T, tab context.Context, js string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, e2eWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// visit is what a visitor does: arrive at the site from a link on other.test, move to /next
// inside the single-page app, and buy something. counted is the metric (and its labels, as name, value pairs) that grows by one
// for each hit the collector handles; visit waits for it after each step, since the beacons are
// asynchronous: a person does not click within microseconds of the page loading, but a test
// does, and the SPA pageview could otherwise reach the collector first and start the visit
// without the landing page's referrer and campaign.
func (e *e2e) visit(tab context.Context, counted ...string) {
	t := e.t
	t.Helper()
	do(t, tab, chromedp.Navigate(e.url(e2eOther, "/from")), chromedp.Click(chromedp.ID("go")))
	// The click starts a navigation that chromedp does not wait for. Until the new document
	// runs the tracker, evaluating may fail (the old context is destroyed) or see the old page,
	// so poll from Go. window.pa is set by the tracker's one synchronous run, which also
	// patches history.pushState, so once it exists the SPA navigation below is tracked.
	want := e.url(e2eDomain, "/start?utm_campaign=launch") + " true"
	deadline := time.Now().Add(e2eWait)
	for {
		ctx, cancel := context.WithTimeout(tab, time.Second)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + !!window.pa`))
		cancel()
		if err == nil && got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the tab shows %q (error %v), want %q", e2eWait, got, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.waitFor("the landing pageview", func() bool { return e.Metric(counted[0], counted[1:]...) >= 1 })
	// Moving on in the app sends the landing page's engagement, then the SPA pageview.
	do(t, tab, chromedp.Evaluate[chromedp.Void](`history.pushState({}, "", "/next")`))
	e.waitFor("the engagement and the SPA pageview", func() bool { return e.Metric(counted[0], counted[1:]...) >= 3 })
	do(t, tab, chromedp.Evaluate[chromedp.Void](`pa.track({name: "Purchase", value: "5", unit: "USD"})`))
}

// TestE2EBrowser drives the real tracker in a real browser against the real service and
// database, and checks every statistic the API then reports.
func TestE2EBrowser(t *testing.T) {
	t.Run("a visit from a desktop browser", func(t *testing.T) {
		start := time.Now()
		e := newE2E(t)
		tab := browser(t, chromedp.UserAgent(e2eUA))
		e.visit(tab, "analytics_events_accepted_total")
		// The test's own assumption about headless screens, checked rather than trusted: if a
		// chromium update changes it, the failure says so here, not as a stats mismatch.
		screen := fmt.Sprintf("%dx%d", e2eWidth, e2eHeight)
		if got := evalString(t, tab, `screen.width + "x" + screen.height`); got != screen {
			t.Fatalf("the browser's screen is %s, want %s", got, screen)
		}

		want := map[string]map[string]int64{
			"pageview":          {e.day: 2},
			"visitor":           {e.day: 1},
			"page":              {"/start?utm_campaign=launch": 1, "/next": 1},
			"referrer":          {e2eOther: 1},
			"campaign":          {"launch": 1},
			"browser":           {"Chrome": 1},
			"operating_system":  {"Windows": 1},
			"device":            {"desktop": 1},
			"language":          {"de": 1},
			"screen_resolution": {screen: 1},
			"continent":         {e2eGeo.continent: 1},
			"country":           {e2eGeo.country: 1},
			"city":              {e2eGeo.city: 1},
			"event":             {"Purchase:5:USD": 1},
		}
		// The beacons are asynchronous and the flusher writes every 100ms: wait until the
		// collector has counted the four hits and every counter is in the database (the open
		// visit's row may hold its later parts back: not counters). Then the stats are final,
		// and one exact comparison catches a missing hit and a double count.
		e.waitFor("four hits counted and written", func() bool {
			return e.Metric("analytics_events_accepted_total") >= 4 && e.App.Pipeline.Counters.Size() == e.App.Pipeline.Counters.HeldRows()
		})
		got := e.allStats()
		for name, w := range want {
			if !maps.Equal(got[name], w) {
				t.Errorf("%s = %v, want %v", name, got[name], w)
			}
		}
		if n := e.Metric("analytics_events_accepted_total"); n != 4 {
			t.Errorf("events accepted: %v, want 4 (two pageviews, an engagement and one event)", n)
		}
		t.Logf("visit recorded and read back in %v", time.Since(start).Round(time.Millisecond))
	})

	t.Run("headless chromium is a bot and counts for nothing", func(t *testing.T) {
		e := newE2E(t)
		tab := browser(t) // the browser's own user agent
		if ua := evalString(t, tab, `navigator.userAgent`); !strings.Contains(ua, "HeadlessChrome") {
			t.Fatalf("user agent %q does not say HeadlessChrome: this subtest would prove nothing", ua)
		}
		e.visit(tab, "analytics_events_ignored_total", "reason", "bot")
		// Wait until the collector has seen all four hits, so that "nothing recorded" is not
		// just "nothing arrived yet". An ignored hit adds no counter: with none accepted and
		// none in memory, the database has all it will ever get from this visit.
		e.waitFor("four hits ignored as bots", func() bool {
			return e.Metric("analytics_events_ignored_total", "reason", "bot") >= 4
		})
		if n := e.Metric("analytics_events_ignored_total", "reason", "bot"); n != 4 {
			t.Errorf("ignored as bots: %v, want 4", n)
		}
		if n := e.Metric("analytics_events_accepted_total"); n != 0 {
			t.Errorf("events accepted: %v, want 0", n)
		}
		if n := e.App.Pipeline.Counters.Size(); n != 0 {
			t.Errorf("%d counters in memory, want 0", n)
		}
		out := e.call(http.MethodGet, fmt.Sprintf("/api/v1/stats/%d?name=pageview&from=%s&to=%s", e.website, e.day, e.day), nil, http.StatusOK)
		if meta, _ := out["meta"].(map[string]any); meta["total"] != 0.0 {
			t.Errorf("pageview stats: %v, want a total of 0", out)
		}
		for name, values := range e.allStats() {
			if len(values) != 0 {
				t.Errorf("%s = %v, want nothing", name, values)
			}
		}
	})
}
