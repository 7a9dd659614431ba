package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/web/webtest"
)

// The settings page's shields, alerts and delete-stats forms in Chromium, at a desktop's and
// a phone's width: each refusal (a country code that is none, a threshold of 0, the wrong
// domain typed to confirm) comes back beside its field, marked for screen readers, with
// nothing saved or deleted; then the forms filled right save. Each state passes axe-core and
// is saved as a screenshot (SCREENSHOT_DIR).
func TestSettingsFormsInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	browser := webtest.NewBrowser(t)
	// The refusals (422s) go in a tab of their own: Chromium logs every such answer as a
	// console error. The other tab must log none.
	errorTab, closeErrorTab := chromedp.NewContext(browser)
	t.Cleanup(closeErrorTab)
	tab, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	for _, ctx := range []context.Context{errorTab, tab} {
		if err := chromedp.Do(ctx); err != nil {
			t.Fatal(err)
		}
	}
	webtest.WatchProblems(t, tab)
	tabDo(t, tab, chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)))
	text := func(ctx context.Context, selector string) string {
		t.Helper()
		var s string
		tabEval(t, ctx, fmt.Sprintf(`document.querySelector(%q).innerText`, selector), &s)
		return s
	}
	invalid := func(ctx context.Context, id string) {
		t.Helper()
		var v string
		tabEval(t, ctx, fmt.Sprintf(`document.getElementById(%q).getAttribute("aria-invalid") + " " + document.getElementById(%q).getAttribute("aria-describedby")`, id, id), &v)
		if !strings.HasPrefix(v, "true ") || !strings.Contains(v, id+"-error") {
			t.Errorf("#%s is not marked invalid and described by its error: %q", id, v)
		}
	}
	for i, width := range []int64{1280, 375} {
		domain := fmt.Sprintf("settings%d.test", i)
		id := e.Site(owner.Key, domain)
		edit := fmt.Sprintf("%s/websites/%d/edit", e.Server.URL, id)
		e.DB.MustExec(`INSERT INTO stats (website_id, name, date, value, count) VALUES ($1, 'pageview', '2026-03-01', '2026-03-01', 7)`, id)

		// Shields: a line that is no country code.
		tabDo(t, errorTab, viewportOf(width), chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#block_countries")),
			chromedp.SetValue(chromedp.CSS("#block_countries"), "DE\nXX"),
			chromedp.Click(chromedp.CSS(`form[action$="/edit"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#block_countries-error")))
		if got := text(errorTab, "#block_countries-names"); got != "Not saved: the list names Germany." {
			t.Errorf("the hint of the refused list says %q", got)
		}
		if got := text(errorTab, "#block_countries-error"); !strings.Contains(got, `line 2 ("XX") is not a country code`) {
			t.Errorf("the shields' refusal says %q", got)
		}
		invalid(errorTab, "block_countries")
		auditPage(t, errorTab, check.axe, check.shots, "shields-refused", width)

		// Alerts: a threshold of 0, past the browser's own check (min="1").
		tabDo(t, errorTab, chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#spike_threshold")))
		tabEval(t, errorTab, `document.querySelector('form[action*="/alerts"]').noValidate = true`, nil)
		tabDo(t, errorTab, chromedp.SetValue(chromedp.CSS("#spike_threshold"), "0"),
			chromedp.Click(chromedp.CSS(`form[action*="/alerts"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#spike_threshold-error")))
		if got := text(errorTab, "#spike_threshold-error"); !strings.Contains(got, "must be a whole number of visitors from 1 to") {
			t.Errorf("the alerts' refusal says %q", got)
		}
		invalid(errorTab, "spike_threshold")
		auditPage(t, errorTab, check.axe, check.shots, "alerts-refused", width)

		// Delete stats: the wrong domain typed.
		tabDo(t, errorTab, chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#reset-confirm")),
			chromedp.SetValue(chromedp.CSS("#reset-confirm"), "other.test"),
			chromedp.Click(chromedp.CSS(`form[action*="/reset"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#reset-confirm-error")))
		if got := text(errorTab, "#reset-confirm-error"); !strings.Contains(got, "must be the website's domain, "+domain) {
			t.Errorf("the deletion's refusal says %q", got)
		}
		invalid(errorTab, "reset-confirm")
		auditPage(t, errorTab, check.axe, check.shots, "reset-refused", width)
		var kept int
		if err := e.DB.Get(&kept, `SELECT count(*) FROM stats WHERE website_id = $1`, id); err != nil || kept != 1 {
			t.Fatalf("after the refused deletion: %d rows (%v)", kept, err)
		}
		var shields *string
		if err := e.DB.Get(&shields, `SELECT block_countries FROM websites WHERE id = $1`, id); err != nil || shields != nil {
			t.Fatalf("after the refused shields: %v (%v)", shields, err)
		}

		// Filled right: the shields and alerts saved, the stats deleted.
		tabDo(t, tab, viewportOf(width), chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#block_countries")),
			chromedp.SetValue(chromedp.CSS("#block_countries"), "de\nFR"),
			chromedp.SetValue(chromedp.CSS("#block_pages"), "/admin/*"),
			chromedp.SetValue(chromedp.CSS("#allowed_hostnames"), "*."+domain),
			chromedp.Click(chromedp.CSS(`form[action$="/edit"] button[type=submit]`)),
			chromedp.WaitNotPresent(chromedp.CSS("#block_countries")))
		tabDo(t, tab, chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#block_countries-names")))
		if got := text(tab, "#block_countries-names"); got != "Blocked now: Germany, France." {
			t.Errorf("after saving the shields the page says %q", got)
		}
		tabDo(t, tab, chromedp.SetValue(chromedp.CSS("#spike_threshold"), "50"),
			chromedp.SetValue(chromedp.CSS("#alert-addresses"), "me@example.com"),
			chromedp.Click(chromedp.CSS(`form[action*="/alerts"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("ul.alert-addresses")))
		if got := text(tab, "#alerts + .notice"); !strings.Contains(got, "The alerts were saved") {
			t.Errorf("after saving the alerts the notice says %q", got)
		}
		auditPage(t, tab, check.axe, check.shots, "settings-saved", width)
		tabDo(t, tab, chromedp.SetValue(chromedp.CSS("#reset-confirm"), domain),
			chromedp.Click(chromedp.CSS(`form[action*="/reset"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#delete-stats + .notice")))
		if err := e.DB.Get(&kept, `SELECT count(*) FROM stats WHERE website_id = $1`, id); err != nil || kept != 0 {
			t.Fatalf("after the deletion: %d rows (%v)", kept, err)
		}
		auditPage(t, tab, check.axe, check.shots, "stats-deleted", width)
	}
}
