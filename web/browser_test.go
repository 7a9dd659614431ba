package web

// Runs script.js in a real browser (Debian's chromium through chromedp)
// against a fake collector, and checks every request it sends, byte for byte.
// The "site" and the "analytics" servers listen on different ports, so the
// beacons are cross-origin exactly as in production.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// How long a step may take before the test gives up waiting.
const waitFor = 5 * time.Second

// request is what the fake collector saw of one request.
type request struct {
	Method, Path, ContentType, Body string
}

// collector stands in for POST /api/event and records the raw requests.
type collector struct {
	mu   sync.Mutex
	reqs []request
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	c.mu.Lock()
	c.reqs = append(c.reqs, request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(body)})
	c.mu.Unlock()
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (c *collector) snapshot() []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// wait polls until at least n requests have arrived, or fails the test.
func (c *collector) wait(t *testing.T, n int) []request {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		got := c.snapshot()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the collector has %d requests, want %d: %+v", waitFor, len(got), n, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fixture is a customer site whose pages carry a script tag, and the
// analytics service serving the script and collecting.
type fixture struct {
	site, analytics *httptest.Server
	// base is the site's URL under the name siteHost: the script sends nothing from a
	// loopback address such as the test server's own.
	base   string
	events collector
}

// siteHost is the customer site's name, otherHost another site its links lead
// to; the test browser resolves both to 127.0.0.1 (newBrowser).
const (
	siteHost  = "site.test"
	otherHost = "other.test"
)

// newBrowser starts chromium with siteHost and otherHost mapped to the loopback address.
func newBrowser(t *testing.T) context.Context {
	return webtest.NewBrowser(t, chromedp.Flag("host-resolver-rules", "MAP "+siteHost+" 127.0.0.1, MAP "+otherHost+" 127.0.0.1"))
}

// newFixture serves, at every path of the site, a page with the script tag
// that tag builds from the analytics server's base URL (SITEPORT in it becomes
// the site's port); under /files/ plain text, and on otherHost a page without
// the tag, where links lead.
func newFixture(t *testing.T, tag func(analyticsURL string) string) *fixture {
	t.Helper()
	f := &fixture{}
	mux := http.NewServeMux()
	mux.Handle("/js/script.js", ScriptHandler())
	mux.Handle("/api/event", &f.events)
	mux.Handle("/collect/api/event", &f.events)
	// Other scripts of the page, for the test without document.currentScript.
	noop := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
	}
	mux.HandleFunc("/js/other.js", noop)
	mux.HandleFunc("/x.js", noop)
	f.analytics = httptest.NewServer(mux)
	t.Cleanup(f.analytics.Close)

	f.site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent) // keeps the console free of 404s
			return
		}
		_, port, _ := net.SplitHostPort(r.Host)
		switch {
		case strings.HasPrefix(r.URL.Path, "/files/"):
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "a file")
			return
		case strings.HasPrefix(r.Host, otherHost+":"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><title>elsewhere</title></head><body>elsewhere</body></html>")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>test</title></head><body><h1>%s</h1>%s</body></html>",
			r.URL.Path, strings.ReplaceAll(tag(f.analytics.URL), "SITEPORT", port))
	}))
	t.Cleanup(f.site.Close)
	f.base = "http://" + siteHost + ":" + f.site.URL[strings.LastIndex(f.site.URL, ":")+1:]
	return f
}

// spy counts, in the page, each attempt of the script to send something, by
// transport, so a test can assert that nothing more was sent without waiting
// for requests that might still be on their way.
const spy = `(function () {
  var s = window.__sent = [], N = Navigator.prototype, b = N.sendBeacon, f = window.fetch, x = XMLHttpRequest.prototype.send;
  if (b) N.sendBeacon = function () { s.push('beacon'); return b.apply(this, arguments); };
  if (f) window.fetch = function () { s.push('fetch'); return f.apply(this, arguments); };
  XMLHttpRequest.prototype.send = function () { s.push('xhr'); return x.apply(this, arguments); };
})();`

// tab is one browser tab with its own init scripts.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu    sync.Mutex
	infos []string // the text of each console.info call, as the browser's console got it
}

// consoleInfos are the lines console.info wrote in the tab so far.
func (tb *tab) consoleInfos() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return slices.Clone(tb.infos)
}

// newTab opens a tab in which init scripts, then the spy, run before any
// script of each page. Uncaught exceptions and console errors fail the test.
func newTab(t *testing.T, browser context.Context, inits ...string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	// Open the tab with a context that has no timeout: the first Run on a
	// context ties the tab's life to that context.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventConsoleAPICalled); ok && e.Type == runtime.ConsoleAPICalledTypeInfo {
			var parts []string
			for _, a := range e.Args {
				var s string
				if json.Unmarshal(a.Value, &s) != nil {
					s = string(a.Value)
				}
				parts = append(parts, s)
			}
			tb.mu.Lock()
			tb.infos = append(tb.infos, strings.Join(parts, " "))
			tb.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		for _, src := range append(slices.Clone(inits), spy) {
			if _, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument,
				page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
				return err
			}
		}
		return nil
	}))

	// Runs before the tab closes (cleanups run last-in first-out).
	webtest.WatchProblems(t, ctx)
	return tb
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 3*waitFor)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

func (tb *tab) navigate(url string) { tb.t.Helper(); tb.do(chromedp.Navigate(url)) }

// eval runs js in the page and ignores its value.
func (tb *tab) eval(js string) { tb.t.Helper(); tb.do(chromedp.Evaluate[chromedp.Void](js)) }

// evalString runs js in the page and returns its value as a string.
func (tb *tab) evalString(js string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		tb.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// until waits for a JavaScript condition to become true.
func (tb *tab) until(cond string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 2*waitFor)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+cond+")",
			chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(waitFor)))
		// A poll that began in the document being left loses its context when the next one
		// loads (seen on a loaded machine): poll again in the new document.
		if err != nil && ctx.Err() == nil && navigatedAway(err) {
			continue
		}
		if err != nil {
			tb.t.Fatalf("waiting for %s: %v", cond, err)
		}
		return
	}
}

func navigatedAway(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

func (tb *tab) sent() []string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string]("window.__sent"))
	if err != nil {
		tb.t.Fatal(err)
	}
	return v
}

func (tb *tab) screen() string { return tb.evalString(`screen.width + "x" + screen.height`) }

// hit is an expected payload. Its fields are in the order script.js writes
// them, so that its encoding is the exact expected body.
type hit struct {
	Page        string            `json:"page"`
	Referrer    string            `json:"referrer"`
	Screen      string            `json:"screen_resolution"`
	Event       *event            `json:"event,omitempty"`
	Props       map[string]string `json:"props,omitempty"` // one key, or keys in the order sent
	Revenue     *revenue          `json:"revenue,omitempty"`
	Interactive *bool             `json:"interactive,omitempty"`
	Hash        bool              `json:"hash,omitempty"`
	// engaged: not such a body but an engagement hit of this page, whose engaged time and
	// scroll depth vary (engagementBody checks them); hashed: of a data-hash page.
	engaged string
	hashed  bool
}

type revenue struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// engagement is the expected engagement hit of page.
func engagement(page string) hit { return hit{engaged: page} }

// engagementBody is how check compares an engagement hit: its page and h, once its other
// fields are found right (the host of the page as d, sd 0..100, e a count of ms); any other
// body is itself.
func engagementBody(body string) string {
	var e struct {
		N, U, D string
		SD, E   *int
		H       int
	}
	if json.Unmarshal([]byte(body), &e) != nil || e.N != "engagement" {
		return body
	}
	if e.D != siteHost || e.SD == nil || *e.SD < 0 || *e.SD > 100 || e.E == nil || *e.E < 0 {
		return "malformed engagement " + body
	}
	return (hit{engaged: e.U, hashed: e.H == 1}).body()
}

type event struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	Unit  string `json:"unit,omitempty"`
}

// body encodes h as JSON.stringify does (no HTML escaping of & < >).
func (h hit) body() string {
	if h.engaged != "" {
		return fmt.Sprintf("engagement of %s (h %v)", h.engaged, h.hashed)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// check waits until the collector has len(want) requests and compares their
// bodies with want, exactly. Requests sent together may arrive in any order
// (each beacon may take its own connection), so both sides are sorted. Each
// hit must have been one send attempt of the kinds in perHit ("beacon",
// "fetch", "xhr") in the page, so any extra send, even one still in flight,
// fails the test. path is the collector's path.
func check(t *testing.T, f *fixture, tb *tab, path string, perHit []string, want ...hit) {
	t.Helper()
	got := f.events.wait(t, len(want))
	var gotBodies, wantBodies []string
	for _, r := range got {
		// A preflight (OPTIONS) fails here too: text/plain must not need one. sendBeacon sends
		// the Blob's type; fetch and XMLHttpRequest a string's, with its charset.
		if r.Method != http.MethodPost || r.Path != path || (r.ContentType != "text/plain" && r.ContentType != "text/plain;charset=UTF-8") {
			t.Errorf("got %s %s (Content-Type %q), want POST %s (text/plain)", r.Method, r.Path, r.ContentType, path)
		}
		gotBodies = append(gotBodies, engagementBody(r.Body))
	}
	for _, h := range want {
		wantBodies = append(wantBodies, h.body())
	}
	slices.Sort(gotBodies)
	slices.Sort(wantBodies)
	if !slices.Equal(gotBodies, wantBodies) {
		t.Errorf("bodies:\n got %s\nwant %s", strings.Join(gotBodies, "\n     "), strings.Join(wantBodies, "\n     "))
	}
	var wantSent []string
	for range want {
		wantSent = append(wantSent, perHit...)
	}
	if s := tb.sent(); !slices.Equal(s, wantSent) {
		t.Errorf("send attempts in the page: %q, want %q", s, wantSent)
	}
	if t.Failed() {
		t.FailNow()
	}
}

var beacon = []string{"beacon"}

// withDNT is the snippet of a site that honours Do Not Track.
func withDNT(base string) string {
	return strings.Replace(Snippet(base), "></script>", ` data-dnt="true"></script>`, 1)
}

func TestTrackerInBrowser(t *testing.T) {
	start := time.Now()
	browser := newBrowser(t)
	t.Logf("chromium started in %v", time.Since(start).Round(time.Millisecond))

	t.Run("pageviews, SPA navigation and events", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		first := f.base + "/start?a=1&utm_campaign=spring"
		tb.navigate(first)
		scr := tb.screen()
		want := []hit{{Page: first, Referrer: "", Screen: scr}}
		check(t, f, tb, "/api/event", beacon, want...)

		// Leaving a page in the app sends its engagement first (its first: any depth is deeper).
		tb.eval(`history.pushState({}, "", "/next?x=1")`)
		next := f.base + "/next?x=1"
		want = append(want, engagement(first), hit{Page: next, Referrer: first, Screen: scr})
		check(t, f, tb, "/api/event", beacon, want...)

		tb.eval(`history.back()`)
		want = append(want, engagement(next), hit{Page: first, Referrer: next, Screen: scr})
		check(t, f, tb, "/api/event", beacon, want...)

		// Events carry the current page, and the referrer of its pageview.
		tb.eval(`pa.track({name: "Purchase", value: "5", unit: "USD"})`)
		want = append(want, hit{Page: first, Referrer: next, Screen: scr, Event: &event{Name: "Purchase", Value: "5", Unit: "USD"}})
		check(t, f, tb, "/api/event", beacon, want...)

		// Only the keys given; numbers become strings; no name, no hit.
		tb.eval(`pa.track({name: "Signup"}); pa.track({value: 3}); pa.track(); pa.track({name: "Score", value: 12.5, unit: null})`)
		want = append(want,
			hit{Page: first, Referrer: next, Screen: scr, Event: &event{Name: "Signup"}},
			hit{Page: first, Referrer: next, Screen: scr, Event: &event{Name: "Score", Value: "12.5"}})
		check(t, f, tb, "/api/event", beacon, want...)

		// A real navigation: the page left sends its engagement; a new document, whose referrer
		// is the page left.
		tb.eval(`location.href = "/other"`)
		f.events.wait(t, len(want)+2)
		tb.until(`location.pathname == "/other"`)
		var last []string
		for _, r := range f.events.snapshot()[len(want):] {
			last = append(last, engagementBody(r.Body))
		}
		slices.Sort(last)
		if w := []string{engagement(first).body(), (hit{Page: f.base + "/other", Referrer: first, Screen: scr}).body()}; !slices.Equal(last, w) {
			t.Errorf("after navigation got %q, want %q", last, w)
		}
		if s := tb.sent(); !slices.Equal(s, beacon) {
			t.Errorf("send attempts in the new page: %q, want one beacon", s)
		}
	})

	t.Run("no pageview without a new URL", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		a := f.base + "/a"
		tb.navigate(a)
		scr := tb.screen()
		check(t, f, tb, "/api/event", beacon, hit{Page: a, Screen: scr})

		// Same URL, fragment only, back to a fragment, replaceState: none of
		// these is a new page.
		tb.eval(`history.pushState({}, "", "/a"); history.pushState({}, "", "/a#x"); location.hash = "y"`)
		tb.until(`location.hash == "#y"`)
		tb.eval(`history.back()`)
		tb.until(`location.hash == "#x"`)
		tb.eval(`history.replaceState({}, "", "/c")`)
		check(t, f, tb, "/api/event", beacon, hit{Page: a, Screen: scr})

		// The referrer is the last pageview's URL, not the replaced one.
		tb.eval(`history.pushState({}, "", "/b")`)
		check(t, f, tb, "/api/event", beacon, hit{Page: a, Screen: scr}, engagement(a), hit{Page: f.base + "/b", Referrer: a, Screen: scr})
	})

	// Each transport must deliver the same body as text/plain, which needs
	// no CORS preflight (check fails on any OPTIONS request).
	for _, tc := range []struct {
		name   string
		init   string
		perHit []string
	}{
		{"fetch without sendBeacon", `delete Navigator.prototype.sendBeacon`, []string{"fetch"}},
		{"fetch when sendBeacon refuses", `Navigator.prototype.sendBeacon = function () { return false; }`, []string{"beacon", "fetch"}},
		{"XMLHttpRequest without sendBeacon and fetch", `delete Navigator.prototype.sendBeacon; window.fetch = undefined`, []string{"xhr"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Snippet)
			tb := newTab(t, browser, tc.init)
			p := f.base + "/t?q=%C3%A9"
			tb.navigate(p)
			scr := tb.screen()
			check(t, f, tb, "/api/event", tc.perHit, hit{Page: p, Screen: scr})
			tb.eval(`pa.track({name: "Download", value: "1", unit: "file"})`)
			check(t, f, tb, "/api/event", tc.perHit,
				hit{Page: p, Screen: scr},
				hit{Page: p, Screen: scr, Event: &event{Name: "Download", Value: "1", Unit: "file"}})
		})
	}

	for _, tc := range []struct {
		name string
		init string
		tag  func(string) string
		path string
	}{
		{"without document.currentScript", `Object.defineProperty(Document.prototype, "currentScript", {get: function () { return null; }})`,
			func(b string) string {
				return `<script src="` + b + `/js/other.js"></script>` + Snippet(b) + `<script src="` + b + `/x.js"></script>`
			}, "/api/event"},
		{"data-host elsewhere, trailing slash", "",
			func(b string) string {
				return `<script async src="` + b + `/js/script.js" data-host="` + b + `/collect/"></script>`
			}, "/collect/api/event"},
		{"without data-host", "",
			func(b string) string { return `<script async src="` + b + `/js/script.js?v=2"></script>` }, "/api/event"},
		{"data-dnt without Do Not Track", "", withDNT, "/api/event"},
		{"Do Not Track without data-dnt", `Object.defineProperty(Navigator.prototype, "doNotTrack", {get: function () { return "1"; }})`,
			Snippet, "/api/event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.tag)
			tb := newTab(t, browser, tc.init)
			p := f.base + "/"
			tb.navigate(p)
			check(t, f, tb, tc.path, beacon, hit{Page: p, Screen: tb.screen()})
		})
	}

	for _, tc := range []struct{ name, init string }{
		{"navigator.doNotTrack", `Object.defineProperty(Navigator.prototype, "doNotTrack", {get: function () { return "1"; }})`},
		{"window.doNotTrack", `window.doNotTrack = "1"`},
	} {
		t.Run("data-dnt and "+tc.name+" send nothing", func(t *testing.T) {
			f := newFixture(t, withDNT)
			tb := newTab(t, browser, tc.init)
			tb.navigate(f.base + "/")
			tb.until(`window.pa && typeof pa.track == "function"`)
			tb.eval(`pa.track({name: "Purchase", value: "5"}); history.pushState({}, "", "/next")`)
			tb.eval(`history.back()`)
			tb.until(`location.pathname == "/"`)
			check(t, f, tb, "/api/event", nil)
		})
	}

	t.Run("file URL sends nothing", func(t *testing.T) {
		f := newFixture(t, Snippet)
		tb := newTab(t, browser)
		file := filepath.Join(t.TempDir(), "page.html")
		if err := os.WriteFile(file, []byte("<!doctype html><title>file</title>"+Snippet(f.analytics.URL)), 0o644); err != nil {
			t.Fatal(err)
		}
		tb.navigate("file://" + file)
		tb.until(`window.pa && typeof pa.track == "function"`)
		tb.eval(`pa.track({name: "Purchase"})`)
		check(t, f, tb, "/api/event", nil)
		waitInfos(t, tb, infoLocal) // once, for the page: pa.track then does nothing

	})

	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}
