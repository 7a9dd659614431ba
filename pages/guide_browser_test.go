package pages_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// The first-run guide in Chromium, at a desktop and a phone width: the owner signs in, opens
// the dashboard of a website with nothing counted, sees the snippet and verifies the
// installation (a website on loopback, reached through the tests' seam). No console error,
// nothing wider than the screen, no serious or critical axe-core violation, and the same with
// JavaScript off.
func TestGuideInChromium(t *testing.T) {
	axe, err := os.ReadFile(os.Getenv("AXE_JS"))
	if err != nil {
		t.Fatalf("axe-core (AXE_JS, set by scripts/test.sh): %v", err)
	}
	shots := os.Getenv("SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	var srvURL string
	testSite(t, func() string {
		return `<html><head><script async defer src="` + srvURL + `/js/script.js" data-host="` + srvURL + `"></script></head></html>`
	})
	e := newEnv(t)
	srvURL = e.Server.URL
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com", "exclude_ips", "203.0.113.7")

	ctx := webtest.NewBrowser(t)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	look := func(name string, width int64) {
		t.Helper()
		auditPage(t, ctx, axe, shots, name, width)
	}

	do(chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))
	for _, width := range []int64{1280, 375} {
		viewport := chromedp.EmulateViewport(width, 900)
		if width < 600 {
			viewport = chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile)
		}
		do(viewport, chromedp.Navigate(e.Server.URL+"/stats/example.com"), chromedp.WaitVisible(chromedp.CSS("#snippet")))
		look("guide", width)
		do(chromedp.Click(chromedp.CSS(`form[action$="/verify#check-result"] button`)), chromedp.WaitVisible(chromedp.CSS("#check-result")))
		var result string
		eval(`document.querySelector("#check-result").innerText`, &result)
		if !strings.Contains(result, "Snippet found.") {
			t.Fatalf("verify at %dpx: %q", width, result)
		}
		look("guide-verified", width)
		// The answer is a page of its own: reloaded, it shows again (no form to post again).
		var at string
		do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#check-result")))
		eval(`location.pathname + " " + document.querySelector("#check-result").innerText`, &at)
		if want := fmt.Sprintf("/websites/%d/verify Snippet found.", id); !strings.HasPrefix(at, want) {
			t.Fatalf("verify at %dpx, reloaded: %q, want %q...", width, at, want)
		}
	}

	// Without JavaScript the guide and the check work the same (the copy button aside).
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.EmulateViewport(1280, 900), chromedp.Navigate(e.Server.URL+"/stats/example.com"), chromedp.WaitVisible(chromedp.CSS("#snippet")),
		chromedp.Click(chromedp.CSS(`form[action="/websites/`+fmt.Sprint(id)+`/verify#check-result"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#check-result")))
	var result string
	eval(`document.querySelector("#check-result").innerText`, &result)
	if !strings.Contains(result, "Snippet found.") {
		t.Fatalf("verify without JavaScript: %q", result)
	}
}
