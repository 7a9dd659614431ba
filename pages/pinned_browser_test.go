package pages_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// colorScheme makes the tab's system colour scheme light or dark.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// waitLoaded waits for the tab to show a page other than the one marked window.before, loaded.
func waitLoaded(t *testing.T, ctx context.Context) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var loaded bool
		// A page being left may not answer: try again.
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.before && document.readyState === "complete"`))
		if loaded = err == nil && raw; loaded {
			return
		}
	}
	t.Fatal("no new page within 10 s")
}

// In Chromium: filters saved as a segment from the dashboard's menu and applied from it; an
// annotation added with the form shows as a marker under the graph; the map shades the
// countries and a click on one filters the dashboard by it. At 1280 and 375 px, light and
// dark: nothing wider than the screen, no serious axe-core violation, no console error;
// screenshots (pinned-*.png) in SCREENSHOT_DIR.
func TestSegmentsAnnotationsAndMapInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "pinned.example")
	e.seedMonth(id)

	ctx := newTab(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	signInTab(t, ctx, e.Server.URL, owner, "table.sites")

	// Save: the filtered dashboard's menu.
	rng := "from=2026-03-01&to=2026-03-20"
	do(chromedp.Navigate(e.Server.URL + "/stats/pinned.example?" + rng + "&filter%5Bcountry%5D=DE%3AGermany"))
	do(chromedp.Click(chromedp.CSS("#segments > summary")),
		chromedp.WaitVisible(chromedp.CSS("#segment-name")),
		chromedp.SendKeys(chromedp.CSS("#segment-name"), "Germany only"),
		chromedp.SetValue(chromedp.CSS("#segment-type"), "site"))
	// The page before is marked, so that the wait is for the one the form's answer loads.
	tabEval(t, ctx, `window.before = true`, nil)
	do(chromedp.Click(chromedp.CSS(".segment-save button[type=submit]")))
	waitLoaded(t, ctx)
	if loc := location(); !strings.Contains(loc, "filter%5Bcountry%5D=DE%3AGermany") || !strings.Contains(loc, rng) {
		t.Errorf("after saving: %s", loc)
	}
	// Apply: from the unfiltered dashboard's menu.
	do(chromedp.Navigate(e.Server.URL+"/stats/pinned.example?"+rng),
		chromedp.Click(chromedp.CSS("#segments > summary")),
		chromedp.Click(chromedp.CSS(".segment-list a")),
		chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
	var chips string
	tabEval(t, ctx, `document.querySelector(".filter-bar").innerText`, &chips)
	if loc := location(); !strings.Contains(loc, "filter%5Bcountry%5D=DE") || !strings.Contains(chips, "Country") {
		t.Errorf("applying the segment: %s, chips %q", loc, chips)
	}

	// Save the filters shown into the segment, from a view filtered otherwise; then applying
	// it shows them.
	do(chromedp.Navigate(e.Server.URL+"/stats/pinned.example?"+rng+"&filter%5Bcountry%5D=FR%3AFrance"),
		chromedp.Click(chromedp.CSS("#segments > summary")),
		chromedp.WaitVisible(chromedp.CSS(`.segment-list form[action$="/filters"] button`)))
	for _, width := range []int64{1280, 375} {
		do(viewportOf(width))
		auditPage(t, ctx, check.axe, check.shots, "pinned-save-into", width)
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#segments")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(check.shots, fmt.Sprintf("pinned-save-into-%d.png", width)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(viewportOf(1280))
	tabEval(t, ctx, `window.before = true`, nil)
	do(chromedp.Click(chromedp.CSS(`.segment-list form[action$="/filters"] button`)))
	waitLoaded(t, ctx)
	do(chromedp.Navigate(e.Server.URL+"/stats/pinned.example?"+rng),
		chromedp.Click(chromedp.CSS("#segments > summary")),
		chromedp.Click(chromedp.CSS(".segment-list a")),
		chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
	tabEval(t, ctx, `document.querySelector(".filter-bar").innerText`, &chips)
	if loc := location(); !strings.Contains(loc, "filter%5Bcountry%5D=FR") || !strings.Contains(chips, "France") {
		t.Errorf("the segment after saving the filters shown into it: %s, chips %q", loc, chips)
	}

	// An annotation: the form under the graph, then its marker.
	do(chromedp.Navigate(e.Server.URL+"/stats/pinned.example?"+rng),
		chromedp.Click(chromedp.CSS(".annotations summary")),
		chromedp.WaitVisible(chromedp.CSS("#annotation-note")),
		chromedp.SetValue(chromedp.CSS("#annotation-date"), "2026-03-10"),
		chromedp.SendKeys(chromedp.CSS("#annotation-note"), "Launched <the> pricing page"),
		chromedp.Submit(chromedp.CSS("#annotation-note")),
		chromedp.WaitVisible(chromedp.CSS("svg.chart-wide.markers path.marker")))
	var markerTitle string
	tabEval(t, ctx, `document.querySelector("svg.chart-wide.markers path.marker title").textContent`, &markerTitle)
	if markerTitle != "2026-03-10: Launched <the> pricing page" {
		t.Errorf("the marker's note: %q", markerTitle)
	}
	// The marker sits under the day's bar: the 10th of 20 days.
	var share float64
	tabEval(t, ctx, `(() => { const s = document.querySelector("svg.chart-wide.markers"), m = s.querySelector("path.marker").getBoundingClientRect(), b = s.getBoundingClientRect();
		return (m.left + m.width / 2 - b.left) / b.width })()`, &share)
	if left, right := (48+9*(960-48)/20.0)/960, (48+10*(960-48)/20.0)/960; share < left || share > right {
		t.Errorf("the marker is at %.3f of the strip, want within the 10th day's slot %.3f..%.3f", share, left, right)
	}

	for _, scheme := range []string{"light", "dark"} {
		do(colorScheme(scheme), chromedp.Navigate(e.Server.URL+"/stats/pinned.example?"+rng), chromedp.Click(chromedp.CSS("#segments > summary")))
		for _, width := range []int64{1280, 375} {
			do(viewportOf(width), chromedp.WaitVisible(chromedp.CSS("figure.country-map")))
			auditPage(t, ctx, check.axe, check.shots, "pinned-dashboard-"+scheme, width)
			shootElement(t, ctx, "figure.country-map", filepath.Join(check.shots, fmt.Sprintf("pinned-map-%s-%d.png", scheme, width)))
			shootElement(t, ctx, "#graph", filepath.Join(check.shots, fmt.Sprintf("pinned-chart-%s-%d.png", scheme, width)))
			shootElement(t, ctx, ".annotations", filepath.Join(check.shots, fmt.Sprintf("pinned-notes-%s-%d.png", scheme, width)))
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#segments")))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(check.shots, fmt.Sprintf("pinned-segments-%s-%d.png", scheme, width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	do(colorScheme("light"), viewportOf(1280))

	// The map: shaded countries, and a click on one filters the dashboard by it.
	var shaded int
	tabEval(t, ctx, `document.querySelectorAll("figure.country-map a path:not(.shade-0)").length`, &shaded)
	if shaded != 5 { // seedMonth's five countries
		t.Errorf("%d countries shaded, want 5", shaded)
	}
	// Germany: one piece, so the middle of its box is in it (France's includes French Guiana).
	do(chromedp.Click(chromedp.CSS(`figure.country-map a[href*="DE%3AGermany"] path`)), chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
	if loc := location(); !strings.Contains(loc, "filter%5Bcountry%5D=DE%3AGermany") {
		t.Errorf("after clicking Germany: %s", loc)
	}
}
