package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/analytics-service/analytics/testkit/harness"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web/webtest"
)

// seedMonth gives a website 45 days of every statistic, ending on the test clock's today, with
// a stranger's markup among the values.
func (e *env) seedMonth(id int64) {
	e.T.Helper()
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	values := map[string][]string{
		"page":              {"/", "/pricing", "/blog/how-we-count-visitors-without-cookies", "/docs/getting-started", "/<script>alert(1)</script>", "/about", "/signup", "/contact", "/careers", "/changelog", "/legal/privacy", "/blog"},
		"referrer":          {"", "www.google.com", "news.ycombinator.com", "duckduckgo.com", "github.com", "<img src=x onerror=alert(2)>"},
		"campaign":          {"spring-sale", "newsletter"},
		"channel":           {"Organic Search", "Direct", "Organic Social", "Email", "Referral", "Paid Search"},
		"source":            {"", "Google", "Hacker News", "Newsletter", "DuckDuckGo", "GitHub", "<img src=x onerror=alert(3)>"},
		"utm_medium":        {"email", "social", "cpc"},
		"utm_source":        {"newsletter", "mastodon", "google"},
		"continent":         {"EU:Europe", "NA:North America", "AS:Asia"},
		"country":           {"US:United States", "DE:Germany", "FR:France", "GB:United Kingdom", "JP:Japan", ""},
		"city":              {"US:New York, NY", "DE:Berlin, BE", "FR:Paris, IDF"},
		"browser":           {"Chrome", "Safari", "Firefox", "Edge"},
		"operating_system":  {"Windows", "macOS", "Android", "iOS", "Linux"},
		"device":            {"desktop", "mobile", "tablet"},
		"language":          {"en", "de", "fr"},
		"screen_resolution": {"1920x1080", "390x844", "1440x900", ""},
		"event":             {"Signup::", "Purchase:5:USD", "<b>bold</b>::", "Outbound Link  Click::"},
	}
	var counts []repository.StatCount
	for d := 0; d < 45; d++ {
		day := today.AddDate(0, 0, -d)
		wave := 1 + 0.4*math.Sin(float64(d)/3)
		pageviews := int64(300*wave) + int64(d)
		visitors := int64(120*wave) + int64(d/2)
		date := day.Format(time.DateOnly)
		counts = append(counts,
			repository.StatCount{WebsiteID: id, Name: "pageview", Date: day, Value: date, Count: pageviews},
			repository.StatCount{WebsiteID: id, Name: "visitor", Date: day, Value: date, Count: visitors})
		for name, vs := range values {
			for i, v := range vs {
				counts = append(counts, repository.StatCount{WebsiteID: id, Name: name, Date: day, Value: v,
					Count: int64(float64(len(vs)-i)*wave*3) + 1})
			}
		}
	}
	if _, err := e.Repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		e.T.Fatal(err)
	}
}

// axeViolation is what axe-core reports of one rule.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// The pages in a real browser at a desktop and a phone width: no console error, nothing
// wider than the screen, and no serious or critical accessibility violation (axe-core).
func TestPagesInChromium(t *testing.T) {
	axePath := os.Getenv("AXE_JS")
	if axePath == "" {
		t.Fatal("AXE_JS is not set: run the tests with `make test`, which fetches axe-core from npm")
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("read axe-core: %v", err)
	}
	shots := os.Getenv("SCREENSHOT_DIR") // to look at them; by default they go with the test
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	e.Site(owner.Key, "private.example", "privacy", "1")
	e.Site(owner.Key, "locked.example", "privacy", "2", "password", "letmein")
	e.Site(owner.Key, "localhost") // a local website: its snippet carries data-local
	e.seedMonth(id)
	// The visit counters of the last 45 days, counted by visits for the last 10 (so the
	// dashboard shows its note), and a realtime window with a stranger's markup in a path.
	e.visitDays(id, "2026-02-04", "2026-03-20", "2026-03-10")
	e.realtimeRows(id)
	e.goalsOf(owner, id)

	browser := webtest.NewBrowser(t)
	// The pages that answer 401 and 404 on purpose go in a tab of their own: Chromium logs
	// every such answer as a console error. Every other page must log none.
	errorTab, closeErrorTab := chromedp.NewContext(browser)
	t.Cleanup(closeErrorTab)
	ctx, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	// A tab opens on its first run, which must not have a deadline (it would close the tab).
	for _, tab := range []context.Context{errorTab, ctx} {
		if err := chromedp.Do(tab); err != nil {
			t.Fatal(err)
		}
	}
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	viewport := func(width int64) chromedp.Action[chromedp.Void] {
		if width < 600 {
			return chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile)
		}
		return chromedp.EmulateViewport(width, 900)
	}

	check := func(name, path string, width int64) {
		t.Helper()
		ctx := ctx
		if name == "password" || name == "not-found" || name == "bad-range" || name == "range-error" {
			ctx = errorTab
		}
		do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
		do(viewport(width), chromedp.Navigate(e.Server.URL+path), chromedp.WaitReady(chromedp.CSS("main")))
		auditPage(t, ctx, axe, shots, name, width)
	}

	for _, width := range []int64{1280, 375} {
		check("dashboard", "/stats/example.com", width)
	}
	// The month of data is on the page: every day a point with its numbers on hover, every top
	// list filled, the stranger's markup shown as text.
	var bars int
	var text string
	eval(`document.querySelectorAll("svg.chart-wide rect.slot > title").length`, &bars)
	eval(`document.querySelector("main").innerText`, &text)
	if bars != 30 || !strings.Contains(text, "/<script>alert(1)</script>") || !strings.Contains(text, "Purchase\n") || !strings.Contains(text, "5 USD\t") || !strings.Contains(text, "German\n") {
		t.Fatalf("dashboard: %d bars (want 30), or values missing:\n%s", bars, text)
	}

	for _, width := range []int64{1280, 375} {
		check("dashboard-sources", "/stats/example.com?sources=source#sources", width)
	}
	// The Sources panel shows the tab asked for, its values as filter links.
	eval(`document.querySelector("#sources").innerText`, &text)
	if !strings.Contains(text, "Hacker News") || !strings.Contains(text, "Direct / none") || strings.Contains(text, "Organic Search") {
		t.Fatalf("the Sources tab shows:\n%s", text)
	}

	for _, width := range []int64{1280, 375} {
		check("dashboard-today", "/stats/example.com?from=2026-03-20&to=2026-03-20", width)
		check("dashboard-goal", "/stats/example.com?filter%5Bgoal%5D=Signup", width)
		// Filtered by a goal, the headline numbers end with its conversion rate (a fifth of
		// goalsOf's visitors sign up), in a card as wide as its text.
		var card string
		eval(`[...document.querySelectorAll(".totals .total")].map(c => c.scrollWidth > c.clientWidth ? "overflows" : c.innerText).pop()`, &card)
		if !strings.HasPrefix(card, "Conversion rate\n20%\n") {
			t.Errorf("dashboard filtered by a goal at %dpx: the last headline number is %q", width, card)
		}
		check("realtime", "/stats/example.com/realtime", width)
	}
	// Today is drawn an hour a point; the realtime view shows a stranger no pageview.
	do(chromedp.Navigate(e.Server.URL+"/stats/example.com?from=2026-03-20&to=2026-03-20"), chromedp.WaitReady(chromedp.CSS("main")))
	eval(`document.querySelectorAll("svg.chart-wide rect.slot > title").length`, &bars)
	if bars != 24 {
		t.Errorf("today's chart has %d points, want 24 hours", bars)
	}
	do(chromedp.Navigate(e.Server.URL+"/stats/example.com/realtime"), chromedp.WaitReady(chromedp.CSS("main")))
	eval(`document.querySelector("main").innerText`, &text)
	if strings.Contains(text, "Latest pageviews") || strings.Contains(text, "/pricing") || !strings.Contains(text, "Current visitors") {
		t.Errorf("realtime page of a stranger:\n%s", text)
	}

	for _, width := range []int64{1280, 375} {
		check("list", "/stats/example.com/page?per_page=10", width)
		check("password", "/stats/locked.example", width)
		check("not-found", "/stats/private.example", width)
		check("bad-range", "/stats/example.com?from=0001-01-01&to=0001-01-10", width)
		check("range-error", "/stats/example.com?from=2026-03-10&to=2026-03-01", width)
		check("events", "/stats/example.com/event", width)
		check("login", "/login", width)
	}
	// Sign in through the form, as a person would, then the owner's pages.
	do(chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))
	for _, width := range []int64{1280, 375} {
		check("home", "/", width)
		// A tracker option's words run as one text beside its box, not as narrow columns: the
		// label is a flex row, so its text must be one item (a loose word or <code> is one).
		var columns int
		eval(`[...document.querySelectorAll(".snippet-options label.checkbox")].filter(l => l.children.length !== 2 ||
			[...l.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== "")).length`, &columns)
		if columns != 0 {
			t.Errorf("home at %d px: %d tracker options laid out in columns", width, columns)
		}
		check("edit", fmt.Sprintf("/websites/%d/edit", id), width)
		check("admin-users", "/admin/users", width)
		check("guide-local", "/stats/localhost", width)
		check("realtime-owner", "/stats/example.com/realtime", width) // last: read below
	}
	// The owner sees the latest pageviews; a path that is markup is text, not an element.
	var scripts int
	eval(`document.querySelector("main").innerText`, &text)
	eval(`document.querySelectorAll("main script, main img").length`, &scripts)
	if !strings.Contains(text, `/<script>alert("rt")</script>`) || !strings.Contains(text, "<img src=x onerror=alert(3)>") || scripts != 0 {
		t.Errorf("owner's realtime page: markup not shown as text (%d elements):\n%s", scripts, text)
	}
	checkRealtimeRefresh(t, browser, e, id)

	// After signing out, Back shows the sign-in page, not the owner's websites from the
	// browser's cache: every page shown to a signed-in user is no-store.
	do(viewport(1280), chromedp.Navigate(e.Server.URL+"/"), chromedp.WaitVisible(chromedp.CSS("table.sites")))
	do(chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS("#email")))
	// Back, then wait for another document than this one (a page restored from the cache
	// fires no load event, so the wait is on the marker left on this one).
	var ok bool
	eval(`window.signedOutPage = true; setTimeout(() => history.back(), 0); true`, &ok)
	afterBack := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		eval(`window.signedOutPage || document.readyState !== "complete" ? "" :
			location.pathname + " " + !!document.querySelector("#email") + " " + !!document.querySelector("table.sites")`, &afterBack)
		if afterBack != "" {
			break
		}
	}
	if afterBack != "/login true false" {
		t.Fatalf("Back after signing out shows %q, want the sign-in page", afterBack)
	}

	// Without JavaScript the dashboard, chart included, is all there.
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), viewport(1280), chromedp.Navigate(e.Server.URL+"/stats/example.com"), chromedp.WaitReady(chromedp.CSS("main")))
	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("svg.chart-wide rect.slot > title")))
	if err != nil || len(nodes) != 30 {
		t.Fatalf("without JavaScript the chart has %d days (%v)", len(nodes), err)
	}
	path, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("svg.chart-wide path.line"), "d"))
	if err != nil || strings.Count(path.Value, "M") != 1 || strings.Count(path.Value, "L") != 29 {
		t.Fatalf("without JavaScript the visitors' line is %q (%v)", path.Value, err)
	}
}

// Behind a proxy that serves the service under /analytics/, with PUBLIC_URL at the proxy, in
// Chromium: signing in through the form, the home page, a dashboard and signing out stay under
// the prefix, every stylesheet, script and icon loads from under it (nothing refused by the
// Content-Security-Policy, no console error), and the snippet carries PUBLIC_URL.
func TestPagesUnderAPrefixInChromium(t *testing.T) {
	proxy := httptest.NewUnstartedServer(nil)
	public := "http://" + proxy.Listener.Addr().String() + "/analytics"
	pub, err := url.Parse(public)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *app.Config) { o.PublicURL = pub })
	proxy.Config.Handler = e.prefixHandler("/analytics")
	proxy.Start()
	t.Cleanup(proxy.Close)
	owner := e.UserWithPassword("owner@example.com")
	e.seedMonth(e.Site(owner.Key, "example.com"))

	ctx := webtest.NewBrowser(t)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	// resources are the page's own address and everything it loaded, with their status.
	resources := func(what string) {
		t.Helper()
		var loaded []string
		eval(`[location.href, document.querySelector("link[rel=icon]").href,
			...performance.getEntriesByType("resource").map(r => r.name + " " + r.responseStatus)]`, &loaded)
		if len(loaded) < 4 { // the page, its icon, stylesheet and script
			t.Errorf("%s loaded only %q", what, loaded)
		}
		for _, l := range loaded {
			if !strings.HasPrefix(l, public+"/") || (strings.Contains(l, " ") && !strings.HasSuffix(l, " 200")) {
				t.Errorf("%s: %q is not under %s, or failed", what, l, public)
			}
		}
	}

	do(chromedp.Navigate(public+"/"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))
	resources("the home page")
	var snippet string
	eval(`document.querySelector("#snippet").textContent + (document.querySelector(".setup-note") ? " with a note" : "")`, &snippet)
	if want := `<script async defer src="` + public + `/js/script.js" data-host="` + public + `"></script>`; snippet != want {
		t.Errorf("snippet %q, want %q", snippet, want)
	}
	// The options rewrite the tag as they are ticked, under the pages' Content-Security-Policy.
	do(chromedp.Click(chromedp.CSS(`[data-snippet-option="data-outbound-links"]`)),
		chromedp.Click(chromedp.CSS(`[data-snippet-option="data-hash"]`)),
		chromedp.Click(chromedp.CSS(`[data-snippet-option='data-dnt="true"']`)),
		chromedp.SendKeys(chromedp.CSS("#snippet-exclude"), `/admin/*, /a"b`),
		chromedp.Click(chromedp.CSS(`[data-snippet-option="data-hash"]`)))
	eval(`document.querySelector("#snippet").textContent`, &snippet)
	if want := `<script async defer src="` + public + `/js/script.js" data-host="` + public +
		`" data-outbound-links data-dnt="true" data-exclude="/admin/*, /a&quot;b"></script>`; snippet != want {
		t.Errorf("snippet with options %q, want %q", snippet, want)
	}
	do(chromedp.Click(chromedp.CSS("a.site-domain")), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	resources("the dashboard")
	do(chromedp.Click(chromedp.CSS(".card-links a")), chromedp.WaitVisible(chromedp.CSS(".pager, .page-head")))
	resources("a full list")
	do(chromedp.Click(chromedp.CSS(".topbar form button")), chromedp.WaitVisible(chromedp.CSS("#email")))
	var at string
	eval(`location.href`, &at)
	if at != public+"/login" {
		t.Errorf("signed out at %s, want %s/login", at, public)
	}
}

// checkRealtimeRefresh opens the realtime page in a tab whose timers run fifty times faster
// (the page refreshes every 10 s; the test need not wait for it), adds pageviews as a flush
// would, and waits for the page to show them without a reload.
func checkRealtimeRefresh(t *testing.T, browser context.Context, e *env, id int64) {
	t.Helper()
	tab, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, tab)
	tabDo(t, tab, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
			Source: `(() => { const every = window.setInterval; window.setInterval = (f, ms, ...a) => every(f, ms / 50, ...a); })();`,
		})
		return err
	}), chromedp.Navigate(e.Server.URL+"/stats/example.com/realtime"), chromedp.WaitReady(chromedp.CSS("#realtime")))
	var before, after string
	tabEval(t, tab, `document.querySelectorAll(".realtime-now")[1].textContent`, &before)
	if _, err := e.DB.Exec(`UPDATE realtime_minutes SET pageviews = pageviews + 90 WHERE website_id = $1 AND minute = $2`,
		id, e.Clock.Now().Truncate(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		tabEval(t, tab, `document.querySelectorAll(".realtime-now")[1].textContent`, &after)
		if after != before {
			break
		}
	}
	if before != "10" || after != "100" {
		t.Errorf("realtime pageviews %q, then %q: want 10, then 100 without a reload", before, after)
	}
}

// newTab is a tab of the test's Chromium whose console errors and failed requests fail the
// test (webtest.WatchProblems).
func newTab(t *testing.T) context.Context {
	t.Helper()
	tab, closeTab := chromedp.NewContext(webtest.NewBrowser(t))
	t.Cleanup(closeTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, tab)
	return tab
}

// signInTab signs the user in with its password in tab, and waits for the page after it
// (until, a CSS selector).
func signInTab(t *testing.T, tab context.Context, base string, u harness.User, until string) {
	t.Helper()
	tabDo(t, tab, chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), u.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), u.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS(until)))
}

// tabDo runs steps in a tab, each run bounded in time.
func tabDo(t *testing.T, tab context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatal(err)
	}
}

// tabEval runs JavaScript in a tab (awaiting a promise) and decodes its value into out.
func tabEval(t *testing.T, tab context.Context, js string, out any) {
	t.Helper()
	c, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(c, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%.80s: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%.80s: %v", js, err)
		}
	}
}

// auditPage checks the page the tab shows at width: nothing wider than the screen and no
// serious or critical axe-core violation (the others are logged); then it saves a screenshot
// as shots/NAME-WIDTH.png for a person to look at.
func auditPage(t *testing.T, ctx context.Context, axe []byte, shots, name string, width int64) {
	t.Helper()
	// Against the layout viewport (clientWidth), not innerWidth: a phone (mobile emulation)
	// zooms out to show a page wider than its screen, so innerWidth grows with the page.
	var overflow int64
	tabEval(t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow)
	if overflow > 0 {
		t.Errorf("%s at %dpx: the page is %dpx wider than the screen", name, width, overflow)
	}
	var result []axeViolation
	tabEval(t, ctx, string(axe)+";0", nil)
	tabEval(t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, &result)
	for _, v := range result {
		if v.Impact == "serious" || v.Impact == "critical" {
			raw, _ := json.MarshalIndent(v.Nodes, "", "  ")
			t.Errorf("%s at %dpx: axe %s (%s): %s\n%s", name, width, v.ID, v.Impact, v.Help, raw)
		} else {
			t.Logf("%s at %dpx: axe %s (%s): %s", name, width, v.ID, v.Impact, v.Help)
		}
	}
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
