package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/testkit/harness"
	"github.com/analytics-service/analytics/web/webtest"
)

// pageChecker looks at pages in a tab: nothing wider than the screen, no serious or critical
// axe-core violation, and a screenshot to look at.
type pageChecker struct {
	t     *testing.T
	axe   []byte
	shots string
}

func newPageChecker(t *testing.T) pageChecker {
	t.Helper()
	axePath := os.Getenv("AXE_JS")
	if axePath == "" {
		t.Fatal("AXE_JS is not set: run the tests with `make test`, which fetches axe-core from npm")
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("read axe-core: %v", err)
	}
	shots := os.Getenv("SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return pageChecker{t: t, axe: axe, shots: shots}
}

func viewportOf(width int64) chromedp.Action[chromedp.Void] {
	if width < 600 {
		return chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile)
	}
	return chromedp.EmulateViewport(width, 900)
}

// look checks the page the tab shows now at each width, under name.
func (c pageChecker) look(ctx context.Context, name string, widths ...int64) {
	t := c.t
	t.Helper()
	for _, width := range widths {
		tabDo(t, ctx, viewportOf(width), chromedp.WaitReady(chromedp.CSS("main")))
		auditPage(t, ctx, c.axe, c.shots, name, width)
	}
	tabDo(t, ctx, viewportOf(1280))
}

// The accounts' main flows as a person does them, in Chromium, with mail going to the SMTP
// test server: changing the password, making an API key (used against the API, then
// revoked), inviting a user who accepts by the mailed link, and resetting a password by mail.
// Every new page is checked at 1280 and 375 px, with no console error.
func TestAccountsInChromium(t *testing.T) {
	check := newPageChecker(t)
	smtp := smtptest.Start(t, smtptest.Options{})
	mailer, err := reports.NewMailer(smtp.URL(), "Analytics <accounts@example.test>")
	if err != nil {
		t.Fatal(err)
	}
	mailer.TLSConfig = smtp.ClientTLS
	// PUBLIC_URL is the address the browser uses: a server started once the service exists.
	front := httptest.NewUnstartedServer(nil)
	public := "http://" + front.Listener.Addr().String()
	pub, _ := url.Parse(public)
	e := newEnv(t, func(c *app.Config) { c.Mailer = mailer; c.PublicURL = pub })
	front.Config.Handler = e.App.Handler
	front.Start()
	t.Cleanup(front.Close)
	admin := e.UserWithPassword("admin@example.com")
	e.Site(admin.Key, "example.com")
	colleague := e.UserWithPassword("colleague@example.com")
	e.Site(colleague.Key, "colleague.example")
	// A long address with every badge it can have: /admin/users must still fit 375 px.
	if _, err := e.Repo.CreateUser(context.Background(), "a.rather.long.name-of-a-colleague@accounts.subsidiary-company.example"); err != nil {
		t.Fatal(err)
	}

	ctx := webtest.NewBrowser(t)
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	text := func(sel string) string {
		t.Helper()
		var s string
		eval(`document.querySelector(`+jsString(sel)+`).textContent`, &s)
		return s
	}

	do(chromedp.Navigate(public+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), "Admin@Example.com"), // any case
		chromedp.SendKeys(chromedp.CSS("#password"), admin.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS("table.sites")),
		chromedp.Click(chromedp.CSS(`a[href$="/account"]`)),
		chromedp.WaitVisible(chromedp.CSS("#keys")))
	check.look(ctx, "account", 1280, 375)

	// Change the password.
	do(chromedp.SendKeys(chromedp.CSS("#current_password"), admin.Password),
		chromedp.SendKeys(chromedp.CSS("#new_password"), "a brand new password"),
		chromedp.SendKeys(chromedp.CSS("#new_password_again"), "a brand new password"),
		chromedp.Click(chromedp.CSS(`#password button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if n := text(".notice"); !strings.Contains(n, "Your password was changed") {
		t.Fatalf("after changing the password: %q", n)
	}
	e.browser().signIn(harness.User{Email: admin.Email, Password: "a brand new password"})

	// Make a key, use it, revoke it.
	do(chromedp.SendKeys(chromedp.CSS("#key-name"), "deploy script"),
		chromedp.Click(chromedp.CSS(`#keys form.toolbar button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#new-key")))
	check.look(ctx, "account-new-key", 1280, 375)
	key := strings.TrimSpace(text("#new-key"))
	do(chromedp.Click(chromedp.CSS(`button[data-copy="new-key"]`)))
	if status, body := e.api("GET", "/api/v1/websites", key, nil); status != http.StatusOK || !strings.Contains(body, "example.com") {
		t.Fatalf("the key made in the browser: %d %s", status, body)
	}
	do(chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)), chromedp.WaitNotPresent(chromedp.CSS("#new-key")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if n := text(".notice"); !strings.Contains(n, "revoked") {
		t.Fatalf("after revoking: %q", n)
	}
	if status, _ := e.api("GET", "/api/v1/websites", key, nil); status != http.StatusUnauthorized {
		t.Fatalf("the revoked key answers %d", status)
	}

	// Users: a set-password link shown once, the removal's confirmation, an invitation by mail.
	do(chromedp.Click(chromedp.CSS(`a[href$="/admin/users"]`)), chromedp.WaitVisible(chromedp.CSS("table.users")))
	check.look(ctx, "admin-users", 1280, 375)
	do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`form[action$="/admin/users/%d/link"] button`, colleague.ID))),
		chromedp.WaitVisible(chromedp.CSS("#link")))
	check.look(ctx, "admin-users-link", 1280, 375)
	do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href$="/admin/users/%d/remove"]`, colleague.ID))),
		chromedp.WaitVisible(chromedp.CSS("button.danger")))
	if s := text("main"); !strings.Contains(s, "1 website") {
		t.Fatalf("the confirmation does not name the websites: %q", s)
	}
	check.look(ctx, "remove-user", 1280, 375)
	do(chromedp.Click(chromedp.CSS(`a[href$="/admin/users"]`)), chromedp.WaitVisible(chromedp.CSS("#invite-email")),
		chromedp.SendKeys(chromedp.CSS("#invite-email"), "new@example.com"),
		chromedp.Click(chromedp.CSS(`#invite button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if n := text(".notice"); !strings.Contains(n, "A link was sent to new@example.com") {
		t.Fatalf("after inviting: %q", n)
	}
	// The pending links: the invitation and the set-password link made above; revoke the latter.
	check.look(ctx, "admin-users-pending", 1280, 375)
	var pending int64
	if err := e.DB.Get(&pending, `SELECT id FROM account_links WHERE kind = 'set_password' AND used_at IS NULL`); err != nil {
		t.Fatal(err)
	}
	revoke := fmt.Sprintf(`form[action$="/admin/links/%d/revoke"] button`, pending)
	do(chromedp.Click(chromedp.CSS(revoke)), chromedp.WaitNotPresent(chromedp.CSS(revoke)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if n := text(".notice"); !strings.Contains(n, "The link was revoked") || strings.Contains(text("#links"), "Set-password link") {
		t.Fatalf("after revoking: %q; pending links %q", n, text("#links"))
	}
	invitation := linkIn(t, smtp.WaitFor(t, 1, 10*time.Second)[0])
	do(chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.Navigate(public+invitation), chromedp.WaitVisible(chromedp.CSS("#new_password")))
	check.look(ctx, "invitation", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#new_password"), "my own password"),
		chromedp.SendKeys(chromedp.CSS("#new_password_again"), "my own password"),
		chromedp.Submit(chromedp.CSS("#new_password")),
		chromedp.WaitVisible(chromedp.CSS("#keys")))
	if s := text(".topbar"); !strings.Contains(s, "new@example.com") || strings.Contains(s, "Users") {
		t.Fatalf("after accepting, the top bar says %q (want the new user, not an admin)", s)
	}

	// Reset a password by mail, from the sign-in page.
	do(chromedp.Click(chromedp.CSS(`.topbar form button`)), chromedp.WaitVisible(chromedp.CSS("#email")))
	do(chromedp.Click(chromedp.CSS(`a[href$="/password-reset"]`)), chromedp.WaitVisible(chromedp.CSS("#email")))
	check.look(ctx, "password-reset", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#email"), colleague.Email),
		chromedp.Submit(chromedp.CSS("#email")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	check.look(ctx, "password-reset-sent", 1280, 375)
	reset := linkIn(t, smtp.WaitFor(t, 2, 10*time.Second)[1])
	do(chromedp.Navigate(public+reset), chromedp.WaitVisible(chromedp.CSS("#new_password")))
	check.look(ctx, "set-password", 1280, 375)
	do(chromedp.SendKeys(chromedp.CSS("#new_password"), "colleague's new pw"),
		chromedp.SendKeys(chromedp.CSS("#new_password_again"), "colleague's new pw"),
		chromedp.Submit(chromedp.CSS("#new_password")),
		chromedp.WaitVisible(chromedp.CSS("#keys")))
	e.browser().signIn(harness.User{Email: colleague.Email, Password: "colleague's new pw"})

	// Change the address: a link to the new one, a notice to the old one; confirmed in the tab.
	do(chromedp.SetValue(chromedp.CSS("input#email"), "colleague@new.example"),
		chromedp.SendKeys(chromedp.CSS("#email_current_password"), "colleague's new pw"),
		chromedp.Click(chromedp.CSS(`#email button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#pending-email")))
	check.look(ctx, "account-email-pending", 1280, 375)
	var confirm string
	for _, m := range smtp.WaitFor(t, 4, 10*time.Second)[2:] {
		if found := mailedConfirmation.FindStringSubmatch(mailText(m)); found != nil && m.To[0] == "colleague@new.example" {
			confirm = "/account/email/confirm?token=" + found[1]
		}
	}
	if confirm == "" {
		t.Fatal("no confirmation link went to the new address")
	}
	do(chromedp.Navigate(public+confirm), chromedp.WaitVisible(chromedp.CSS("main form button")))
	check.look(ctx, "confirm-email", 1280, 375)
	do(chromedp.Click(chromedp.CSS("main form button")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if n := text(".notice"); !strings.Contains(n, "is now colleague@new.example") {
		t.Fatalf("after confirming: %q", n)
	}
	colleague.Email = "colleague@new.example"
	e.browser().signIn(harness.User{Email: colleague.Email, Password: "colleague's new pw"})

	// Without JavaScript the forms work too: a key is made and shown.
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(public+"/account"), chromedp.WaitVisible(chromedp.CSS("#key-name")),
		chromedp.Click(chromedp.CSS(`#keys form.toolbar button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#new-key")))
	if k := text("#new-key"); !strings.HasPrefix(k, "pa_") {
		t.Fatalf("without JavaScript the new key is %q", k)
	}
	// Without mail, the reset page says to ask an admin (last: the browser's cookies for
	// 127.0.0.1 are shared with this other service, which forgets a session it does not know).
	plain := newEnv(t)
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		return err
	}), chromedp.Navigate(plain.Server.URL+"/password-reset"), chromedp.WaitVisible(chromedp.CSS("main .card")))
	if s := text("main"); !strings.Contains(s, "Ask an admin") {
		t.Fatalf("the reset page without mail says %q", s)
	}
	check.look(ctx, "password-reset-no-mail", 1280, 375)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
