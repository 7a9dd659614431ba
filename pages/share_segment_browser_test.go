package pages_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// A segment's shared link as a person makes and reads it, in Chromium, each page checked at
// 1280 and 375 px (nothing wider than the screen, no serious axe-core violation, a
// screenshot): the settings form with the segment chosen and the link made, and the link's
// dashboard, whose segment chip is fixed (no remove, switch or edit control, and a screen
// reader hears that it is fixed), alone and beside a filter of the reader's own.
func TestSharedSegmentInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	site := e.Site(owner.Key, "example.com", "privacy", "1")
	e.filterVisits(site, "2026-03-01", "2026-03-20", 40)
	filters, err := query.DashboardSegment(stats.Filters{{Name: stats.Country, Value: "DE:Germany"}})
	if err != nil {
		t.Fatal(err)
	}
	seg, err := e.Repo.CreateSegment(context.Background(), site, nil, segmentName, filters)
	if err != nil {
		t.Fatal(err)
	}

	ctx := newTab(t)
	base := e.Server.URL
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	count := func(sel string) int {
		t.Helper()
		var n int
		tabEval(t, ctx, `document.querySelectorAll(`+jsString(sel)+`).length`, &n)
		return n
	}
	signInTab(t, ctx, base, owner, ".topbar form button")

	do(chromedp.Navigate(base+"/websites/"+strconv.FormatInt(site, 10)+"/shared"), chromedp.WaitVisible(chromedp.CSS("#link-segment")),
		chromedp.SendKeys(chromedp.CSS("#link-name"), "Germany for the Berlin office"),
		chromedp.SetValue(chromedp.CSS("#link-segment"), strconv.FormatInt(seg.ID, 10)),
		chromedp.Click(chromedp.CSS(`#new button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#new-link-url")))
	check.look(ctx, "shared-links-segment", 1280, 375)
	var shared string
	tabEval(t, ctx, `document.querySelector("#new-link-url").textContent.trim()`, &shared)

	do(chromedp.Navigate(shared+"&from=2026-03-14&to=2026-03-20"), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	if n := count(".filter-bar .chip-fixed"); n != 1 {
		t.Errorf("%d fixed chips, want 1", n)
	}
	if n := count(".filter-bar .chip-fixed a, .filter-bar .chip-fixed button, .filter-bar .chip-remove, .filter-bar .clear-filters"); n != 0 {
		t.Errorf("the fixed chip has %d controls", n)
	}
	var said string
	tabEval(t, ctx, `document.querySelector(".filter-bar .chip-fixed").textContent.replace(/\s+/g, " ").trim()`, &said)
	if !strings.Contains(said, "fixed by the shared link: this filter cannot be removed") {
		t.Errorf("the fixed chip says %q", said)
	}
	var segment string
	tabEval(t, ctx, `document.querySelector(".chips-segment").textContent`, &segment)
	if segment != "Segment: "+segmentName {
		t.Errorf("the segment is named %q", segment)
	}
	check.look(ctx, "share-segment-dashboard", 1280, 375)

	do(chromedp.Navigate(shared+"&from=2026-03-14&to=2026-03-20&filter%5Bbrowser%5D=Firefox"), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	if n := count(".filter-bar .chip-remove"); n != 1 {
		t.Errorf("%d remove links beside the fixed chip, want the reader's filter's", n)
	}
	check.look(ctx, "share-segment-filtered", 1280, 375)
}
