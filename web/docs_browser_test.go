package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// TestDocsPageInChromium opens the documentation page in Chromium with every other host
// unreachable (a proxy that does not exist; loopback goes direct) and the page's own
// Content-Security-Policy in force, at a desktop and a phone width: it lists every operation,
// requests nothing from any other host, logs no error, is no wider than the screen, passes
// axe-core with no serious or critical violation, and reads the same without JavaScript.
func TestDocsPageInChromium(t *testing.T) {
	axe, err := os.ReadFile(os.Getenv("AXE_JS"))
	if err != nil {
		t.Fatalf("axe-core (AXE_JS, set by scripts/test.sh): %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/docs", DocsHandler())
	mux.Handle("/static/", StaticHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	origin, _ := url.Parse(srv.URL)

	ctx := webtest.NewBrowser(t, chromedp.ProxyServer("http://127.0.0.1:9"))
	ctx, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, ctx)

	var mu sync.Mutex
	var requested []string
	err = chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	run := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(c, steps...); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(js string, out any) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		raw, err := chromedp.Run(c, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%.60s: %v", js, err)
		}
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	shots := os.Getenv("SCREENSHOT_DIR")
	for _, width := range []int64{1280, 375} {
		viewport := chromedp.EmulateViewport(width, 900)
		if width < 600 {
			viewport = chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile)
		}
		run(viewport, chromedp.Navigate(srv.URL+"/api/v1/docs"), chromedp.WaitVisible(chromedp.CSS("#listWebsites")))
		var stylesApplied bool
		eval(`getComputedStyle(document.querySelector(".card")).borderRadius !== "0px"`, &stylesApplied)
		if !stylesApplied {
			t.Errorf("at %dpx the stylesheets were not applied", width)
		}
		// Against the layout viewport (clientWidth): a phone zooms out to show a page wider
		// than its screen, so innerWidth grows with the page and would hide the overflow.
		var overflow int64
		eval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow)
		if overflow > 0 {
			var wide []string
			eval(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 12).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + " " + (e.textContent||"").slice(0, 60))`, &wide)
			t.Errorf("at %dpx the page is %dpx wider than the screen: %q", width, overflow, wide)
		}
		var violations []struct {
			ID, Impact, Help string
			Nodes            []struct{ HTML string }
		}
		eval(string(axe)+";0", nil)
		eval(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, &violations)
		for _, v := range violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("at %dpx: axe %s (%s): %s %+v", width, v.ID, v.Impact, v.Help, v.Nodes)
			} else {
				t.Logf("at %dpx: axe %s (%s): %s", width, v.ID, v.Impact, v.Help)
			}
		}
		if shots != "" {
			c, cancel := context.WithTimeout(ctx, 30*time.Second)
			png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			// The whole page is long: the first 4000 pixels show its layout.
			if err := os.WriteFile(filepath.Join(shots, "apidocs-"+strings.TrimSpace(itoa(width))+".png"), png, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	var nav string
	eval(`document.querySelector(".docs-nav").innerText`, &nav)
	for _, op := range []string{"List websites", "Add a website", "Delete a website", "Statistics of a website"} {
		if !strings.Contains(nav, op) {
			t.Errorf("the menu has no %q:\n%s", op, nav)
		}
	}

	// Without JavaScript: the same page, examples included.
	run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(srv.URL+"/api/v1/docs"), chromedp.WaitVisible(chromedp.CSS("#curl-listWebsites")))

	mu.Lock()
	defer mu.Unlock()
	if len(requested) == 0 {
		t.Fatal("no request recorded: the recorder is broken")
	}
	for _, raw := range requested {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "data" && u.Host != origin.Host) {
			t.Errorf("the page requested %s (only %s may be asked)", raw, origin.Host)
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
