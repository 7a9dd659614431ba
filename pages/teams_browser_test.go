package pages_test

import (
	"context"
	"encoding/base32"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web/webtest"
)

// The new pages of sharing, teams and sign-in as a person uses them, in Chromium, each checked
// at 1280 and 375 px (nothing wider than the screen, no serious axe-core violation, a
// screenshot): members and an invitation, shared links with a link made and its iframe code,
// the shared dashboard and its dark embed view, the account's sessions and two-factor
// sign-in's setup, recovery codes and code page, a member's home page and a 403 page.
func TestTeamsInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	site := e.Site(owner.Key, "example.com", "privacy", "1")
	e.seedMonth(site)
	viewer := e.UserWithPassword("viewer.with.a.rather.long.address@subsidiary-company.example")
	e.Member(site, owner, viewer, repository.RoleViewer)
	e.Member(site, owner, e.UserWithPassword("editor@example.com"), repository.RoleEditor)

	browser := webtest.NewBrowser(t)
	// 401 and 403 pages go in a tab of their own: Chromium logs each such answer as an error.
	errorTab, closeErrorTab := chromedp.NewContext(browser)
	t.Cleanup(closeErrorTab)
	ctx, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	for _, tab := range []context.Context{errorTab, ctx} {
		if err := chromedp.Do(tab); err != nil {
			t.Fatal(err)
		}
	}
	webtest.WatchProblems(t, ctx)
	base := e.Server.URL
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	text := func(sel string) string {
		t.Helper()
		var s string
		tabEval(t, ctx, `document.querySelector(`+jsString(sel)+`).textContent`, &s)
		return s
	}
	signIn := func(tab context.Context, email, password string) {
		t.Helper()
		tabDo(t, tab, chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
			chromedp.SendKeys(chromedp.CSS("#email"), email), chromedp.SendKeys(chromedp.CSS("#password"), password),
			chromedp.Submit(chromedp.CSS("#password")), chromedp.WaitVisible(chromedp.CSS(".topbar form button")))
	}

	signIn(ctx, owner.Email, owner.Password)
	members := fmt.Sprintf("%s/websites/%d/members", base, site)
	do(chromedp.Navigate(members), chromedp.WaitVisible(chromedp.CSS("#member-email")))
	check.look(ctx, "members", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#member-email"), "client@example.net"),
		chromedp.Click(chromedp.CSS(`input[name=role][value=editor]`)),
		chromedp.Click(chromedp.CSS(`#invite button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#link")))
	check.look(ctx, "members-invited", 1280, 375)
	invitation := strings.TrimPrefix(strings.TrimSpace(text("#link")), base)

	do(chromedp.Navigate(fmt.Sprintf("%s/websites/%d/shared", base, site)), chromedp.WaitVisible(chromedp.CSS("#link-name")))
	check.look(ctx, "shared-links-empty", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#link-name"), "For the client's board"),
		chromedp.SetValue(chromedp.CSS("#link-theme"), "dark"),
		chromedp.SendKeys(chromedp.CSS("#link-background"), "#1b2029"),
		chromedp.Click(chromedp.CSS(`#new button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#new-link-iframe")))
	check.look(ctx, "shared-links-new", 1280, 375)
	shared := strings.TrimSpace(text("#new-link-url"))
	iframe := text("#new-link-iframe")
	if !strings.Contains(iframe, shared+"&amp;background=%231b2029&amp;embed=true&amp;theme=dark") {
		t.Fatalf("the iframe code %q is not of %s", iframe, shared)
	}
	do(chromedp.Navigate(shared), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	check.look(ctx, "share-dashboard", 1280, 375)
	do(chromedp.Navigate(shared+"&embed=true&theme=dark&background=%231b2029"), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
	var chrome int
	tabEval(t, ctx, `document.querySelectorAll(".topbar").length`, &chrome)
	if chrome != 0 {
		t.Error("the embed view has the site's top bar")
	}
	check.look(ctx, "share-embed-dark", 1280, 375)
	// A link with a password asks for it.
	do(chromedp.Navigate(fmt.Sprintf("%s/websites/%d/shared", base, site)), chromedp.WaitVisible(chromedp.CSS("#link-name")),
		chromedp.SendKeys(chromedp.CSS("#link-name"), "Board"), chromedp.SendKeys(chromedp.CSS("#link-password"), "open sesame"),
		chromedp.Click(chromedp.CSS(`#new button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#new-link-url")))
	locked := strings.TrimSpace(text("#new-link-url"))
	check.look(ctx, "shared-links-password", 1280, 375)
	tabDo(t, errorTab, chromedp.Navigate(locked), chromedp.WaitVisible(chromedp.CSS("#password")))
	check.look(errorTab, "share-password", 1280, 375)

	// The account: its sessions, and two-factor sign-in set up.
	do(chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#sessions")))
	check.look(ctx, "account-sessions", 1280, 375)
	do(chromedp.Click(chromedp.CSS(`#two-factor a.button`)), chromedp.WaitVisible(chromedp.CSS("svg.qr")))
	check.look(ctx, "totp-setup", 1280, 375)
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ReplaceAll(text("#secret"), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	do(chromedp.SendKeys(chromedp.CSS("#code"), account.TOTPCode(secret, account.TOTPStepAt(e.Clock.Now()))),
		chromedp.Submit(chromedp.CSS("#code")), chromedp.WaitVisible(chromedp.CSS("#codes")))
	check.look(ctx, "totp-recovery-codes", 1280, 375)
	do(chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#two-factor")))
	check.look(ctx, "account-two-factor-on", 1280, 375)
	do(chromedp.Navigate(base+"/admin/users"), chromedp.WaitVisible(chromedp.CSS("#require-totp")))
	check.look(ctx, "admin-users-totp", 1280, 375)
	do(chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email), chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")), chromedp.WaitVisible(chromedp.CSS("#code")))
	check.look(ctx, "login-code", 1280, 375)
	e.Clock.Advance(account.TOTPStep)
	do(chromedp.SendKeys(chromedp.CSS("#code"), account.TOTPCode(secret, account.TOTPStepAt(e.Clock.Now()))),
		chromedp.Submit(chromedp.CSS("#code")), chromedp.WaitVisible(chromedp.CSS("table.sites")))

	// A member's view: the shared website marked with the role, and a settings page refused.
	// (The tabs share their cookies: the error tab is signed in as the viewer too.)
	do(chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS("#email")))
	signIn(ctx, viewer.Email, viewer.Password)
	do(chromedp.WaitVisible(chromedp.CSS("table.sites")))
	if s := text("table.sites"); !strings.Contains(s, "Shared with you: Viewer") || !strings.Contains(s, "Read only") {
		t.Errorf("the viewer's home page: %q", s)
	}
	check.look(ctx, "home-shared", 1280, 375)
	tabDo(t, errorTab, chromedp.Navigate(fmt.Sprintf("%s/websites/%d/edit", base, site)), chromedp.WaitVisible(chromedp.CSS("main h1")))
	check.look(errorTab, "forbidden", 1280, 375)

	// The invitation, opened signed out: a new address chooses a password.
	do(chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.Navigate(base+invitation), chromedp.WaitVisible(chromedp.CSS("#new_password")))
	check.look(ctx, "invitation-member", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#new_password"), "the client's password"),
		chromedp.SendKeys(chromedp.CSS("#new_password_again"), "the client's password"),
		chromedp.Submit(chromedp.CSS("#new_password")), chromedp.WaitVisible(chromedp.CSS("svg.chart-wide")))
}
