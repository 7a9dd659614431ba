package pages_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// The dashboard's funnel and the settings page's funnels in Chromium, at a phone's width and a
// desktop's: nothing wider than the screen, no serious axe-core violation, no console error;
// the bars show the API's numbers, and a funnel is made on the settings page by picking goals
// in order. Screenshots go to SCREENSHOT_DIR (funnel-*.png) for a person to look at.
func TestFunnelsInChromium(t *testing.T) {
	check := newPageChecker(t)
	axe, shots := check.axe, check.shots
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id, funnels := e.funnelSite(owner, "funnel.example")

	browser := webtest.NewBrowser(t)
	ctx, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	today := e.Clock.Now().UTC().Format("2006-01-02")
	rng := "from=" + e.Clock.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02") + "&to=" + today
	dashboard := fmt.Sprintf("/stats/funnel.example?%s&funnel=%d#funnel", rng, funnels[0])
	for _, width := range []int64{1280, 375} {
		do(viewportOf(width), chromedp.Navigate(e.Server.URL+dashboard), chromedp.WaitVisible(chromedp.CSS("#funnel")))
		auditPage(t, ctx, axe, shots, "funnel-dashboard", width)
		shootElement(t, ctx, "#funnel", filepath.Join(shots, fmt.Sprintf("funnel-panel-%d.png", width)))
	}
	var text string
	var bars int
	tabEval(t, ctx, `document.querySelector("#funnel").innerText`, &text)
	tabEval(t, ctx, `document.querySelectorAll("#funnel svg.funnel-bar").length`, &bars)
	for _, line := range e.apiFunnelLines(owner, id, funnels[0], rng) {
		if !strings.Contains(text, line) {
			t.Errorf("the funnel does not say %q:\n%s", line, text)
		}
	}
	if bars != 3 {
		t.Errorf("%d bars, want one a step (3)", bars)
	}

	do(chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))
	edit := fmt.Sprintf("%s/websites/%d/edit#funnels", e.Server.URL, id)
	for _, width := range []int64{1280, 375} {
		do(viewportOf(width), chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#funnels")))
		auditPage(t, ctx, axe, shots, "funnel-settings", width)
		shootElement(t, ctx, "#funnels", filepath.Join(shots, fmt.Sprintf("funnel-settings-card-%d.png", width)))
	}
	// A funnel made by picking goals in order, a box left empty between them.
	do(chromedp.SendKeys(chromedp.CSS("#funnel-name"), "Made in the browser"),
		chromedp.SetValue(chromedp.CSS("#funnel-step-1"), "2"),
		chromedp.SetValue(chromedp.CSS("#funnel-step-3"), "1"),
		chromedp.Submit(chromedp.CSS("#funnel-name")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	made, err := e.Repo.Funnels(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range made {
		if f.Name == "Made in the browser" {
			for _, s := range f.Steps {
				got = append(got, s.DisplayName)
			}
		}
	}
	if strings.Join(got, ", ") != "Signup, Visit /pricing" {
		t.Errorf("the funnel made in the browser has the steps %v, want Signup, Visit /pricing", got)
	}
}

// shootElement saves a screenshot of the element sel's card (its closest .card), for a person to
// look at the part a full page's screenshot shows too small.
func shootElement(t *testing.T, ctx context.Context, sel, file string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.Screenshot(chromedp.CSS(sel+".card, .card:has("+sel+")")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
