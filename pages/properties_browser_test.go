package pages_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The dashboard's Properties panel in Chromium, at a phone's width and a desktop's: nothing
// wider than the screen (a 300-character value included), no serious axe-core violation, no
// console error, and markup sent as a property key and value shown as text, never run.
// Screenshots go to SCREENSHOT_DIR (properties-*.png) for a person to look at.
func TestPropertiesPanelInChromium(t *testing.T) {
	check := newPageChecker(t)
	axe, shots := check.axe, check.shots
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "props.example")
	const hostile = `<img src=x onerror=\"window.pwned=1\">`
	long := strings.Repeat("long-value-", 27)
	for i, plan := range []string{"pro", "pro", "free", long} {
		e.track(fmt.Sprintf(`{"page":"https://props.example/p%d","props":{"plan":%q,"%s":"%s"}}`, i, plan, hostile, hostile))
	}
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	ctx := newTab(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	signInTab(t, ctx, e.Server.URL, owner, "table.sites")
	day := e.Clock.Now().UTC().Format("2006-01-02")
	// The plan key chosen, whose values include the long one.
	page := fmt.Sprintf("%s/stats/props.example?from=%s&to=%s&property=plan#properties", e.Server.URL, day, day)
	for _, width := range []int64{1280, 375} {
		do(viewportOf(width), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#properties")))
		auditPage(t, ctx, axe, shots, "properties-dashboard", width)
		shootElement(t, ctx, "#properties", filepath.Join(shots, fmt.Sprintf("properties-panel-%d.png", width)))
	}
	var text string
	var pwned bool
	tabEval(t, ctx, `document.querySelector("#properties").innerText`, &text)
	tabEval(t, ctx, `window.pwned === 1 || document.querySelector("#properties img") !== null`, &pwned)
	if pwned {
		t.Error("markup sent as a property became an element of the page")
	}
	if !strings.Contains(text, "plan") || !strings.Contains(text, "pro\t2") || !strings.Contains(text, "long-value-") {
		t.Errorf("the panel does not show the key plan with its values (pro twice, the long one):\n%s", text)
	}
}
