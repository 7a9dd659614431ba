package pages_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// darkMode makes the tab's pages see prefers-color-scheme: dark (on) or light.
func darkMode(on bool) chromedp.Action[chromedp.Void] {
	scheme := "light"
	if on {
		scheme = "dark"
	}
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// The dashboard driven as a person drives it, in Chromium: a card chooses the graph's metric
// without a reload, a point shows its numbers under the mouse, the keys of the period menu
// (W, X, I, the arrows, H the last 24 hours) change the view but not while typing, a box's tab
// changes without a reload and keeps the focus and the scroll, the Filter dialog adds a typed
// filter of two values and edits it from its chip, the Events card draws today's events by the
// hour, and Today's Minutes lead to the realtime view and back. Every state is checked (axe-core, no horizontal scroll)
// at 1280 and 375 px, light and dark; without JavaScript the same controls are links.
func TestDashboardInteractionsInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	e.seedMonth(id)
	e.seedMinutes(id, time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC), 12*60+1, func(i int) repository.RealtimeMinute { // a morning's rise
		wave := 6 + 5*math.Sin(float64(i)/120-2) + float64(i%7)/3
		return repository.RealtimeMinute{Visitors: int64(wave), Visits: int64(wave / 2), Pageviews: int64(2 * wave)}
	})
	e.visitDays(id, "2026-02-04", "2026-03-20", "2026-03-10")
	// The visit rows of the last two days, which the last 24 hours and the hours of events
	// are read from: a visit or two an hour, some with events.
	var rows []repotest.Visit
	for d, day := range []time.Time{mustDay("2026-03-19"), mustDay("2026-03-20")} {
		for h := range 24 {
			for v := range 1 + (h+d)%3 {
				visit := repotest.Visit{Day: day, Hour: h, Visitor: int32(100*h + v), Pages: []string{"/", "/pricing"}[:1+v%2]}
				if (h+v)%2 == 0 {
					visit.Events = []string{"Signup::"}
				}
				rows = append(rows, visit)
			}
		}
	}
	repotest.WriteVisitRows(t, e.DB, id, rows)
	e.exec(`UPDATE websites SET filters_from = '2026-03-10' WHERE id = $1`, id)
	ctx := newTab(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	text := func(js string) string { t.Helper(); var s string; eval(js, &s); return s }
	address := func() url.Values {
		t.Helper()
		u, err := url.Parse(text(`location.href`))
		if err != nil {
			t.Fatal(err)
		}
		return u.Query()
	}
	waitFor := func(what, js string) {
		t.Helper()
		var ok bool
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			eval(js, &ok)
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited in vain for %s (%s)", what, js)
			}
		}
	}
	// look audits the page as it is now in light and dark at both widths.
	look := func(name string) {
		t.Helper()
		for _, dark := range []bool{false, true} {
			shot := name
			if dark {
				shot += "-dark"
			}
			for _, width := range []int64{1280, 375} {
				do(darkMode(dark), viewportOf(width))
				auditPage(t, ctx, check.axe, check.shots, shot, width)
				// And the first screen alone, which a full page's picture shows too small.
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(check.shots, fmt.Sprintf("%s-screen-%d.png", shot, width)), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		do(darkMode(false), viewportOf(1280))
	}
	const dash = "/stats/example.com"
	do(viewportOf(1280), chromedp.Navigate(e.Server.URL+dash), chromedp.WaitVisible(chromedp.CSS("#graph")))
	look("dash")

	// A fragment's link (Skip to content) adds a history entry, and the page stays: the
	// marker set on this document is there half a second later (a reload would lose it).
	var stayed bool
	eval(`window.sameDocument = true; document.querySelector("a.skip").click();
		new Promise(done => setTimeout(() => done(window.sameDocument === true && location.hash === "#main"), 500))`, &stayed)
	if !stayed {
		t.Error("the skip link's fragment reloaded the dashboard")
	}

	// A card: the graph draws visits, without a reload (the marker set on this document stays).
	eval(`window.sameDocument = true`, nil)
	do(chromedp.Click(chromedp.CSS(`a.metric-card[data-swap="card-visits"]`)))
	waitFor("the graph of visits", `document.querySelector("#chart-heading").textContent === "Visits per day"`)
	if q := address(); q.Get("graph_metric") != "visits" {
		t.Errorf("after the Visits card the address is %v", q)
	}
	var same bool
	eval(`window.sameDocument === true && document.querySelector('a.metric-card[aria-current=true]').dataset.swap === "card-visits"`, &same)
	if !same {
		t.Error("the Visits card reloaded the page or is not the current one")
	}
	// The mouse over the last point: its day and visits, beside a marker.
	var box struct{ X, Y float64 }
	eval(`(() => { document.querySelector("#graph").scrollIntoView(); const r = [...document.querySelectorAll("svg.chart-wide rect.slot")].pop().getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2} })()`, &box)
	do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box.X, box.Y))
	waitFor("the graph's tip", `!document.querySelector(".graph-tip").hidden`)
	if tip := text(`document.querySelector(".graph-tip").innerText`); !strings.HasPrefix(tip, "2026-03-20\n") || !strings.HasSuffix(tip, " visits") {
		t.Errorf("the tip of 20 March says %q", tip)
	}
	var marks int
	eval(`document.querySelectorAll("svg.chart-wide .mark").length`, &marks)
	if marks != 1 {
		t.Errorf("%d markers on the graph, want 1", marks)
	}
	do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 5, 5))

	// W: the last 7 days, the graph still of visits. X: the comparison's dashed line.
	do(chromedp.KeyEvent("w"))
	// The new address shows before its page is parsed: a wait for a navigation waits for both.
	waitFor("the last 7 days", `new URLSearchParams(location.search).get("from") === "2026-03-14" && document.readyState === "complete"`)
	if q := address(); q.Get("to") != "2026-03-20" || q.Get("graph_metric") != "visits" {
		t.Errorf("after W the address is %v", q)
	}
	if got := text(`document.querySelector(".period-menu summary").textContent`); got != "Last 7 days" {
		t.Errorf("the period menu says %q after W", got)
	}
	do(chromedp.KeyEvent("x"))
	waitFor("the comparison", `document.querySelectorAll("svg.chart-wide .cmp-line").length === 1`)
	if q := address(); q.Get("comparison") != "previous_period" {
		t.Errorf("after X the address is %v", q)
	}
	// I: the next interval the range allows (hours, days, weeks): weeks.
	do(chromedp.KeyEvent("i"))
	waitFor("weeks", `document.querySelector("#chart-heading").textContent === "Visits per week"`)
	// ←: the 7 days before, keeping the comparison and the graph.
	do(chromedp.KeyEvent(kb.ArrowLeft))
	waitFor("the 7 days before", `new URLSearchParams(location.search).get("from") === "2026-03-07" && document.readyState === "complete"`)
	if q := address(); q.Get("to") != "2026-03-13" || q.Get("comparison") != "previous_period" || q.Get("interval") != "week" {
		t.Errorf("after ← the address is %v", q)
	}
	look("dash-compared")

	// A box's tab: entry pages, without a reload, the focus on the tab, the page not scrolled.
	eval(`window.sameDocument = true; document.querySelector("#pages").scrollIntoView(); true`, nil)
	var scrolled float64
	eval(`window.scrollY`, &scrolled)
	do(chromedp.Focus(chromedp.CSS(`a[data-swap="tab-pages-landing_page"]`)), chromedp.KeyEvent(kb.Enter))
	waitFor("the entry pages", `document.querySelector("#pages").dataset.stat === "landing_page"`)
	var after struct {
		Same   bool
		Focus  string
		Scroll float64
	}
	eval(`({Same: window.sameDocument === true, Focus: document.activeElement.textContent, Scroll: window.scrollY})`, &after)
	if !after.Same || after.Focus != "Entry pages" || after.Scroll != scrolled {
		t.Errorf("after the tab: same document %v, focus on %q, scrolled %v (was %v)", after.Same, after.Focus, after.Scroll, scrolled)
	}
	if q := address(); q.Get("pages") != "landing_page" || q.Get("comparison") != "previous_period" {
		t.Errorf("after the tab the address is %v", q)
	}
	before := text(`location.href`)
	do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#graph")))
	if got := text(`document.querySelector("#pages [aria-current=true]").textContent`); got != "Entry pages" {
		t.Errorf("after a reload the Pages box shows %q", got)
	}

	// The Filter dialog: browsers that are not Chrome nor Safari, typed; a key typed in a
	// field is a letter, not a shortcut.
	do(chromedp.Click(chromedp.CSS("#filter-dialog summary")), chromedp.WaitVisible(chromedp.CSS("#dialog-name")))
	do(chromedp.SetValue(chromedp.CSS("#dialog-name"), "browser"), chromedp.SetValue(chromedp.CSS("#dialog-op"), "is_not"),
		chromedp.SendKeys(chromedp.CSS("#dialog-value-0"), "Chrome"))
	if got := text(`location.href`); got != before {
		t.Errorf("typing in the dialog moved the page to %s", got)
	}
	do(chromedp.Click(chromedp.CSS("button.add-value")), chromedp.WaitVisible(chromedp.CSS("#dialog-value-1")))
	do(chromedp.SendKeys(chromedp.CSS("#dialog-value-1"), "Safari"))
	look("dash-dialog")
	do(chromedp.Click(chromedp.CSS(".dialog-form button[type=submit]")), chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
	if got := text(`document.querySelector(".chip-text").textContent`); got != "Browser is not Chrome or Safari" {
		t.Errorf("the chip says %q", got)
	}
	if q := address(); q.Get("filter_not[browser]") != "Chrome|Safari" || q.Get("pages") != "landing_page" || q.Has("dialog_name") {
		t.Errorf("after the dialog the address is %v", q)
	}
	// Its chip opens it again, on its values: now browsers containing "fire".
	do(chromedp.Click(chromedp.CSS(".chip-edit")), chromedp.WaitVisible(chromedp.CSS("#dialog-value-1")))
	var values []string
	eval(`[...document.querySelectorAll("input[name=dialog_value]")].map(i => i.value)`, &values)
	if strings.Join(values, ",") != "Chrome,Safari" || text(`document.querySelector("#dialog-op").value`) != "is_not" {
		t.Errorf("the dialog opened on the chip shows %q", values)
	}
	do(chromedp.SetValue(chromedp.CSS("#dialog-op"), "contains"), chromedp.SetValue(chromedp.CSS("#dialog-value-0"), "fire"))
	eval(`document.querySelector("#dialog-value-1").value = ""`, nil) // emptied: the value goes
	do(chromedp.Click(chromedp.CSS(".dialog-form button[type=submit]")))
	waitFor("the edited chip", `document.querySelector(".chip-text")?.textContent === "Browser contains fire"`)
	var chips int
	eval(`document.querySelectorAll(".chip").length`, &chips)
	if q := address(); chips != 1 || q.Get("filter_contains[browser]") != "fire" || q.Has("filter_not[browser]") {
		t.Errorf("after editing: %d chips, address %v", chips, q)
	}
	// Esc clears the filters.
	do(chromedp.KeyEvent(kb.Escape))
	waitFor("no filter", `document.querySelector(".filter-bar") === null`)
	do(chromedp.Click(chromedp.CSS(".period-menu summary")), chromedp.WaitVisible(chromedp.CSS(".period-menu ul")))
	look("dash-menu")
	// A click beside the menu closes it; C goes to the custom range's first field; D is today.
	do(chromedp.Click(chromedp.CSS("h1")))
	waitFor("the menu closed", `!document.querySelector(".period-menu").open`)
	do(chromedp.KeyEvent("c"))
	waitFor("the custom range's field", `document.activeElement.id === "from"`)
	do(chromedp.KeyEvent("d")) // typed into the date field: not a shortcut
	if q := address(); q.Get("from") != "2026-03-07" {
		t.Errorf("D typed in the date field moved the page to %v", q)
	}
	do(chromedp.Click(chromedp.CSS("h1")), chromedp.KeyEvent("d"))
	waitFor("today", `new URLSearchParams(location.search).get("from") === "2026-03-20" && document.readyState === "complete"`)
	if got := text(`document.querySelector("#chart-heading").textContent`); got != "Visits per hour" {
		t.Errorf("today's graph is %q: the week's interval was kept, or the metric lost", got)
	}
	shootElement(t, ctx, "#graph", filepath.Join(check.shots, "dash-graph-1280.png"))

	// The Events card: today's events by the hour, without a reload.
	do(chromedp.Click(chromedp.CSS(`a.metric-card[data-swap="card-events"]`)))
	waitFor("the graph of events", `document.querySelector("#chart-heading").textContent === "Events per hour"`)
	if q := address(); q.Get("graph_metric") != "events" {
		t.Errorf("after the Events card the address is %v", q)
	}
	// H: the last 24 hours, the graph still of events, by the hour.
	do(chromedp.KeyEvent("h"))
	waitFor("the last 24 hours", `new URLSearchParams(location.search).get("period") === "24h" && document.readyState === "complete"`)
	if got := text(`document.querySelector(".period-menu summary").textContent`); got != "Last 24 hours" {
		t.Errorf("the period menu says %q after H", got)
	}
	var hours int
	eval(`document.querySelectorAll("svg.chart-wide rect.slot").length`, &hours)
	if q := address(); q.Get("graph_metric") != "events" || q.Has("from") || hours != 25 ||
		text(`document.querySelector("#chart-heading").textContent`) != "Events per hour" {
		t.Errorf("after H: address %v, %d hours", q, hours)
	}
	look("dash-24h")
	// Today by the minute: D, the visitors' card (events are not counted by the minute, so
	// their switch has no minutes), then the switch's Minutes, swapped in place; I goes back.
	do(chromedp.KeyEvent("d"))
	waitFor("today again", `new URLSearchParams(location.search).get("from") === "2026-03-20" && document.readyState === "complete"`)
	if n := text(`String(document.querySelectorAll('a[data-swap="interval-Minutes"]').length)`); n != "0" {
		t.Errorf("the graph of events offers %s minutes", n)
	}
	do(chromedp.Click(chromedp.CSS(`a.metric-card[data-swap="card-visitors"]`)))
	waitFor("visitors by the hour", `document.querySelector("#chart-heading")?.textContent === "Unique visitors per hour"`)
	do(chromedp.Click(chromedp.CSS(`a[data-swap="interval-Minutes"]`)))
	waitFor("today by the minute", `document.querySelector("#chart-heading")?.textContent === "Unique visitors per minute"`)
	var minutes int
	eval(`document.querySelectorAll("svg.chart-wide rect.slot").length`, &minutes)
	if minutes != 12*60+1 || address().Get("interval") != "minute" {
		t.Errorf("by the minute: %d minutes drawn (want 721, midnight to 12:00), address %v", minutes, address())
	}
	look("dash-minutes")
	do(chromedp.KeyEvent("i"))
	waitFor("today by the hour", `document.querySelector("#chart-heading")?.textContent === "Unique visitors per hour"`)
	// The realtime view (R) has its own minutes, and its switch leads back to Today by the hour.
	do(chromedp.KeyEvent("r"))
	waitFor("the realtime view's minutes", `document.querySelector("#minutes-heading")?.textContent === "Pageviews per minute"`)
	look("realtime")
	do(chromedp.Click(chromedp.CSS(`.intervals a[href*="from=2026-03-20"]`)))
	waitFor("today by the hour again", `document.querySelector("#chart-heading")?.textContent === "Unique visitors per hour"`)

	// Without JavaScript: the card, the interval and the tab are links that load the page.
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(e.Server.URL+dash+"?from=2025-03-21&to=2026-03-20"), chromedp.WaitVisible(chromedp.CSS("#graph")))
	if got := text(`document.querySelector("#chart-heading").textContent`); got != "Unique visitors per week" {
		t.Errorf("a year's graph is %q", got)
	}
	do(chromedp.Click(chromedp.CSS(`a.metric-card[data-swap="card-bounce_rate"]`)))
	waitFor("the bounce rate", `document.querySelector("#chart-heading")?.textContent === "Bounce rate per week"`)
	do(chromedp.Click(chromedp.CSS(`a[data-swap="interval-Months"]`)))
	waitFor("months", `document.querySelector("#chart-heading")?.textContent === "Bounce rate per month"`)
	shootElement(t, ctx, "#graph", filepath.Join(check.shots, "dash-graph-year-1280.png"))
	var points int
	eval(`document.querySelectorAll("svg.chart-wide rect.slot > title").length`, &points)
	if points != 13 {
		t.Errorf("a year by month without JavaScript has %d points with a title, want 13", points)
	}
	do(chromedp.Click(chromedp.CSS(`a[data-swap="tab-locations-city"]`)))
	waitFor("cities", `document.querySelector("#locations")?.dataset.stat === "city"`)
	if q := address(); q.Get("graph_metric") != "bounce_rate" || q.Get("interval") != "month" {
		t.Errorf("without JavaScript the tab's address is %v", q)
	}
}
