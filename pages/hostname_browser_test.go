package pages_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/web/webtest"
)

// With PUBLIC_URL set, a page opened by another name (the service's address, an internal name)
// loads its stylesheet, script and icon from where it was opened, under the prefix: in
// Chromium, signing in, the home page and a dashboard load every resource with no console
// error (the Content-Security-Policy allows 'self' only) and stay at that name.
func TestPagesByAnotherNameInChromium(t *testing.T) {
	pub, err := url.Parse("http://stats.example.test/analytics") // never reached by the browser
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *app.Config) { o.PublicURL = pub })
	proxy := httptest.NewServer(e.prefixHandler("/analytics"))
	t.Cleanup(proxy.Close)
	opened := proxy.URL + "/analytics" // http://127.0.0.1:PORT/analytics
	owner := e.UserWithPassword("owner@example.com")
	e.seedMonth(e.Site(owner.Key, "example.com"))

	ctx := webtest.NewBrowser(t)
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	resources := func(what string) {
		t.Helper()
		var loaded []string
		eval(`[location.href, document.querySelector("link[rel=icon]").href,
			...performance.getEntriesByType("resource").map(r => r.name + " " + r.responseStatus)]`, &loaded)
		if len(loaded) < 4 { // the page, its icon, stylesheet and script
			t.Errorf("%s loaded only %q", what, loaded)
		}
		for _, l := range loaded {
			if !strings.HasPrefix(l, opened+"/") || (strings.Contains(l, " ") && !strings.HasSuffix(l, " 200")) {
				t.Errorf("%s: %q is not under %s, where the page was opened, or failed", what, l, opened)
			}
		}
		var styled bool // the stylesheet applies: the page is not left unstyled
		eval(`[...document.styleSheets].some(s => s.href && s.cssRules.length > 0)`, &styled)
		if !styled {
			t.Errorf("%s: no stylesheet applies", what)
		}
	}
	do(chromedp.Navigate(opened+"/"), chromedp.WaitVisible(chromedp.CSS("#email")))
	resources("the sign-in page")
	do(chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")))
	resources("the home page")
	do(chromedp.Click(chromedp.CSS("a.site-domain")), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	resources("the dashboard")
}
