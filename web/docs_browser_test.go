package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// TestDocsPageIsSelfContained opens the documentation page in Chromium with every other host
// unreachable (a proxy that does not exist; loopback goes direct) and the page's own
// Content-Security-Policy in force. It must render (Redoc hydrates and shows the operations),
// request nothing from any other host, and log no error (a CSP violation is a console error).
func TestDocsPageIsSelfContained(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/api/v1/docs", DocsHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	origin, _ := url.Parse(srv.URL)

	ctx := webtest.NewBrowser(t, chromedp.ProxyServer("http://127.0.0.1:9"))
	ctx, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	webtest.WatchProblems(t, ctx)

	var mu sync.Mutex
	var requested []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/api/v1/docs")); err != nil {
		t.Fatalf("docs page: %v", err)
	}
	// React attaches its root to the container once the bundle has run: proof that the hashed
	// inline scripts were allowed, not only the server-rendered HTML shown.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](
		`Object.keys(document.getElementById("redoc")).some(k => k.startsWith("__reactContainer"))`,
		chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("Redoc never hydrated (its scripts did not run): %v", err)
	}
	// The menu lists the tags; opening one shows its operations.
	err = chromedp.Do(ctx,
		chromedp.Click(`//*[contains(@class, "menu-content")]//*[normalize-space(text())="Websites"]`),
		chromedp.WaitVisible(`//*[contains(@class, "menu-content")]//*[normalize-space(text())="List websites"]`),
	)
	if err != nil {
		t.Fatalf("opening Websites in the menu: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || title != "Analytics API" {
		t.Errorf("title %q (%v)", title, err)
	}
	menu, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".menu-content")))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"List websites", "Add a website", "Delete a website"} {
		if !strings.Contains(menu, op) {
			t.Errorf("menu has no %q:\n%s", op, menu)
		}
	}
	// Let late requests (fonts, workers, lazy chunks) show up before counting them.
	if err := chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(requested) == 0 {
		t.Fatal("no request recorded: the recorder is broken")
	}
	for _, raw := range requested {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "data" && u.Scheme != "blob" && u.Host != origin.Host) {
			t.Errorf("the page requested %s (only %s may be asked)", raw, origin.Host)
		}
	}
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "apidocs.png"), shot, 0o644); err != nil {
			t.Error(err)
		}
	}
}
