package ingest_test

// Plausible's official npm tracker (@plausible-analytics/tracker, fetched by scripts/test.sh),
// unchanged, in a real chromium, pointed at this service with its endpoint option: what a
// Plausible user does to switch. Its hits must record what this service's own tracker records
// for the same visit (TestE2EBrowser).

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestPlausibleTrackerInBrowser(t *testing.T) {
	trackerPath := os.Getenv("PLAUSIBLE_TRACKER_JS")
	if trackerPath == "" {
		t.Fatal("PLAUSIBLE_TRACKER_JS is not set: run the tests with scripts/test.sh (make test), which fetches the tracker from npm")
	}
	tracker, err := os.ReadFile(trackerPath)
	if err != nil {
		t.Fatal(err)
	}
	e := newE2E(t)
	e.pages = plausibleSite(t, e, tracker, "", "")
	tab := browser(t, chromedp.UserAgent(e2eUA))

	// Arrive from a link on other.test, move inside the single-page app, buy something.
	do(t, tab, chromedp.Navigate(e.url(e2eOther, "/from")), chromedp.Click(chromedp.ID("go")))
	want := e.url(e2eDomain, "/start?utm_campaign=launch") + " true"
	deadline := time.Now().Add(e2eWait)
	for {
		got, err := evalQuietly(tab, `location.href + " " + !!window.tracked`)
		if err == nil && got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the tab shows %q (error %v), want %q", e2eWait, got, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.waitFor("the first pageview", func() bool { return e.Metric("analytics_events_accepted_total") >= 1 })
	do(t, tab, chromedp.Evaluate[chromedp.Void](`history.pushState({}, "", "/next")`))
	e.waitFor("the SPA pageview", func() bool { return e.Metric("analytics_events_accepted_total") >= 2 })
	do(t, tab, chromedp.Evaluate[chromedp.Void](`window.track("Purchase", {revenue: {amount: 5, currency: "USD"}, props: {plan: "pro"}})`))
	// Leaving the page sends Plausible's engagement hit (time on page): a hit of the open visit,
	// neither a pageview nor an event.
	do(t, tab, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event("blur"))`))

	e.waitFor("four hits counted and written, the engagement among them", func() bool {
		// The open visit's row may hold its later parts back (not counters).
		return e.Metric("analytics_events_accepted_total") >= 4 && e.App.Pipeline.Counters.Size() == e.App.Pipeline.Counters.HeldRows()
	})
	got := e.allStats()
	t.Logf("recorded: %v", got)
	// Per hit: exactly what this service's tracker records.
	exact := map[string]map[string]int64{
		"pageview": {e.day: 2},
		"page":     {"/start?utm_campaign=launch": 1, "/next": 1},
		"event":    {"Purchase:5:USD": 1},
		// Plausible's tracker sends no screen size (w is gone from it).
		"screen_resolution": {"": got["visitor"][e.day]},
	}
	for name, w := range exact {
		if fmt.Sprint(got[name]) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v", name, got[name], w)
		}
	}
	// Per visit: one visit, with the values of this service's tracker (Plausible's sends the
	// page's referrer with the SPA pageview too; the visit keeps its first hit's).
	values := map[string]string{
		"visitor": e.day, "visit": e.day, "landing_page": "/start?utm_campaign=launch", "referrer": e2eOther,
		"campaign": "launch", "browser": "Chrome", "operating_system": "Windows", "device": "desktop", "language": "de",
		"continent": e2eGeo.continent, "country": e2eGeo.country, "city": e2eGeo.city,
	}
	for name, v := range values {
		if len(got[name]) != 1 || got[name][v] != 1 {
			t.Errorf("%s = %v, want %q once", name, got[name], v)
		}
	}
	if n := e.Metric("analytics_events_accepted_total"); n != 4 {
		t.Errorf("events accepted: %v, want 4 (two pageviews, one event, one engagement)", n)
	}
	if n := e.Metric("analytics_events_rejected_total", "status", "400"); n != 0 {
		t.Errorf("%v hits refused as malformed", n)
	}
}

// plausibleSite is the customer's site with Plausible's npm tracker bundled as its
// documentation says (import, init with the domain, this service's endpoint and the members
// of options), served on one port for site.test and other.test; markup is added to the pages
// of site.test.
func plausibleSite(t *testing.T, e *e2e, tracker []byte, options, markup string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port, _ := net.SplitHostPort(r.Host)
		switch {
		case r.URL.Path == "/favicon.ico":
			w.WriteHeader(http.StatusNoContent)
		case host == e2eOther:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html><head><title>elsewhere</title></head><body>`+
				`<a id="go" href="http://%s:%s/start?utm_campaign=launch">the site</a></body></html>`, e2eDomain, port)
		case host == e2eDomain && r.URL.Path == "/plausible.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write(tracker)
		case host == e2eDomain:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			// window.__plausible: the tracker ignores browsers driven by automation
			// (navigator.webdriver) unless it is set, as Plausible's own tests do.
			fmt.Fprintf(w, `<!doctype html><html><head><title>site</title>
<script type="module">
import { init, track } from "/plausible.js";
window.__plausible = true;
init({ domain: %q, endpoint: %q%s });
window.track = track;
window.tracked = true;
</script></head><body><h1>%s</h1>%s</body></html>`, e2eDomain, e.api.URL+"/api/event", options, strings.ReplaceAll(r.URL.Path, "<", ""), markup)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// evalQuietly evaluates js, for polling while a navigation may destroy the context: an error
// is returned, not fatal.
func evalQuietly(tab context.Context, js string) (string, error) {
	ctx, cancel := context.WithTimeout(tab, time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](js))
}

// TestPlausibleTrackerOptionsInBrowser: Plausible's tracker with its outbound link and file
// download options sends its events here, a click's link still opens, and the engagement it
// sends as the page is left is a hit of the visit, never refused.
func TestPlausibleTrackerOptionsInBrowser(t *testing.T) {
	trackerPath := os.Getenv("PLAUSIBLE_TRACKER_JS")
	if trackerPath == "" {
		t.Fatal("PLAUSIBLE_TRACKER_JS is not set: run the tests with scripts/test.sh (make test), which fetches the tracker from npm")
	}
	tracker, err := os.ReadFile(trackerPath)
	if err != nil {
		t.Fatal(err)
	}
	e := newE2E(t)
	// The download link keeps the page (a listener after the tracker's prevents it), so that
	// the outbound link is clicked from the same page.
	e.pages = plausibleSite(t, e, tracker, ", outboundLinks: true, fileDownloads: true",
		`<a id="dl" href="/files/report.pdf?v=1">report</a><a id="out" href="/">out</a>`+
			`<script>document.getElementById("out").href = location.href.replace("`+e2eDomain+`", "`+e2eOther+`").replace(/\/[^/]*$/, "/from");`+
			`addEventListener("click", function (e) { if (e.target.id == "dl") e.preventDefault(); });</script>`)
	tab := browser(t, chromedp.UserAgent(e2eUA))

	do(t, tab, chromedp.Navigate(e.url(e2eDomain, "/start")))
	if got := evalString(t, tab, `String(!!window.tracked)`); got != "true" {
		t.Fatalf("the tracker did not start: %s", got)
	}
	e.waitFor("the pageview", func() bool { return e.Metric("analytics_events_accepted_total") >= 1 })
	do(t, tab, chromedp.Click(chromedp.ID("dl")))
	e.waitFor("the download", func() bool { return e.Metric("analytics_events_accepted_total") >= 2 })
	do(t, tab, chromedp.Click(chromedp.ID("out")))
	deadline := time.Now().Add(e2eWait)
	for {
		got, err := evalQuietly(tab, `location.host`)
		if err == nil && strings.HasPrefix(got, e2eOther+":") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbound link did not open: the tab is on %q (error %v)", got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.waitFor("the outbound click and the engagement counted and written", func() bool {
		return e.Metric("analytics_events_accepted_total") >= 4 && e.App.Pipeline.Counters.Size() == e.App.Pipeline.Counters.HeldRows()
	})
	got := e.allStats()
	// The event statistic writes a name's colon as a space.
	want := map[string]int64{"File Download::": 1, "Outbound Link  Click::": 1}
	if fmt.Sprint(got["event"]) != fmt.Sprint(want) || fmt.Sprint(got["pageview"]) != fmt.Sprint(map[string]int64{e.day: 1}) {
		t.Errorf("events %v and pageviews %v, want %v and one pageview", got["event"], got["pageview"], want)
	}
	if n := e.Metric("analytics_events_accepted_total"); n != 4 {
		t.Errorf("events accepted: %v, want 4 (a pageview, two events, the engagement)", n)
	}
	if n := e.Metric("analytics_events_rejected_total", "status", "400"); n != 0 {
		t.Errorf("%v hits refused as malformed", n)
	}
}
