package reports_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// The HTML part as a mail program with a browser engine shows it, at a desktop reading pane's
// width and a phone's: no horizontal scrolling, the numbers and the stranger's page visible as
// text. Screenshots go to REPORT_SCREENSHOTS (a directory) when set, else to a temporary one;
// look at them after changing the template.
func TestHTMLPartInChromium(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	long := "/blog/2026/10/a-very-long-article-title-that-goes-on-and-on-without-any-break-at-all?utm_source=newsletter&utm_medium=email&utm_campaign=autumn"
	e.pageview(f.a, "2026-10-05", long, "a-very-long-referrer-host-name.subdomain.example-news-site.example", 50)
	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(dueOctober)
	tick(t, r)
	m := decode(t, e.smtp.WaitFor(t, 1, 10*time.Second)[0])

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(m.html))
	}))
	t.Cleanup(srv.Close)
	dir := os.Getenv("REPORT_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	browser := webtest.NewBrowser(t)
	webtest.WatchProblems(t, browser)
	for _, width := range []int64{600, 375} {
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 800), chromedp.Navigate(srv.URL)); err != nil {
			t.Fatal(err)
		}
		overflow, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if overflow > 0 {
			t.Errorf("at %dpx the message is %dpx too wide (horizontal scrolling)", width, overflow)
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"a.example", "1,303", "/<b>x</b>", long, "Stop all of them"} {
			if !strings.Contains(text, want) {
				t.Errorf("at %dpx the text shown lacks %q", width, want)
			}
		}
		bold, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.querySelectorAll("td b").length`))
		if err != nil || bold != 0 {
			t.Errorf("the page value became markup (%d <b> elements, %v)", bold, err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "report-"+map[int64]string{600: "600", 375: "375"}[width]+".png")
		if err := os.WriteFile(name, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", name)
	}
}

// The unsubscribe page in a browser: its button posts to the same address, under the page's
// Content-Security-Policy, with no console error, and the website's reports stop.
func TestUnsubscribeButtonInChromium(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	_, siteA := sentOctober(t, e)
	srv := httptest.NewServer(e.App.Handler)
	t.Cleanup(srv.Close)

	browser := webtest.NewBrowser(t)
	webtest.WatchProblems(t, browser)
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 700), chromedp.Navigate(srv.URL+siteA),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`), chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	for heading := ""; heading != "Unsubscribed"; {
		if ctx.Err() != nil {
			t.Fatalf("no confirmation after the button; the heading is %q", heading)
		}
		time.Sleep(50 * time.Millisecond)
		// Fails while the page is navigating; then it is tried again.
		heading, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("h1") ? document.querySelector("h1").textContent : ""`))
	}
	if dir := os.Getenv("REPORT_SCREENSHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "unsubscribed-375.png"), png, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := e.website(f.owner, f.a)["email"]; got != float64(0) {
		t.Fatalf("email %v after the button", got)
	}
}
