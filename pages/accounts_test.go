package pages_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// passwordHash is the stored hash of a user's sign-in password, to check that a refusal
// changed nothing.
func (e *env) passwordHash(id int64) string {
	e.T.Helper()
	var h string
	if err := e.DB.Get(&h, `SELECT coalesce(password_hash, '') FROM users WHERE id = $1`, id); err != nil {
		e.T.Fatal(err)
	}
	return h
}

func (e *env) count(query string, args ...any) int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, query, args...); err != nil {
		e.T.Fatalf("%s: %v", query, err)
	}
	return n
}

func wantBody(t *testing.T, what string, p page, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("%s: the page does not say %q\n%.3000s", what, w, p.body)
		}
	}
}

// The account page: a wrong current password, a short or mistyped new one, and a bad CSRF
// token change nothing and say why; a right change ends the user's other sessions and keeps
// this one.
func TestAccountPassword(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	other := e.browser().signIn(owner)
	before := e.passwordHash(owner.ID)

	for _, c := range []struct {
		name string
		form url.Values
		want string
	}{
		{"wrong current password", url.Values{"current_password": {"wrong password"}, "new_password": {"a new password"}, "new_password_again": {"a new password"}}, "is not your current password"},
		{"short new password", url.Values{"current_password": {owner.Password}, "new_password": {"short"}, "new_password_again": {"short"}}, "must be 8 to 128 characters (this one has 5)"},
		{"mistyped repetition", url.Values{"current_password": {owner.Password}, "new_password": {"a new password"}, "new_password_again": {"a new passw0rd"}}, "does not match the new password"},
		{"no current password", url.Values{"new_password": {"a new password"}, "new_password_again": {"a new password"}}, "is required"},
	} {
		p := b.post("/account/password", c.form)
		wantStatus(t, c.name, p, http.StatusUnprocessableEntity)
		wantBody(t, c.name, p, c.want, "The password was not changed")
		if e.passwordHash(owner.ID) != before {
			t.Fatalf("%s: the password changed", c.name)
		}
	}
	bad := b.post("/account/password", url.Values{"csrf": {"forged"}, "current_password": {owner.Password}, "new_password": {"a new password"}, "new_password_again": {"a new password"}})
	wantStatus(t, "bad CSRF", bad, http.StatusForbidden)
	if e.passwordHash(owner.ID) != before || e.count(`SELECT count(*) FROM sessions WHERE user_id = $1`, owner.ID) != 2 {
		t.Fatal("a form with a bad CSRF token changed something")
	}

	ok := b.post("/account/password", url.Values{"current_password": {owner.Password}, "new_password": {"a new password"}, "new_password_again": {"a new password"}})
	wantStatus(t, "change", ok, http.StatusSeeOther)
	if ok.header.Get("Location") != "/account?notice=password" {
		t.Fatalf("after the change: %s", ok.header.Get("Location"))
	}
	wantStatus(t, "this browser, still signed in", b.get("/account"), http.StatusOK)
	if p := other.get("/account"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("the other browser is still signed in: %d %s", p.status, p.header.Get("Location"))
	}
	owner.Password = "a new password"
	e.browser().signIn(owner)
}

// E-mail addresses compare without regard to case: sign-in, and the account page's change,
// which refuses another account's address in any case and a wrong current password. Without
// mail the change is made at once; it ends the user's other sessions, keeps this one, and
// voids the user's links.
func TestAccountEmail(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.UserWithPassword("taken@example.com")
	b := e.browser().signIn(harness.User{Email: "Owner@Example.COM", Password: owner.Password})
	other := e.browser().signIn(owner)
	link, err := e.Repo.CreateLink(context.Background(), repositoryLink(owner.ID, owner.Email, owner.ID), time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"another account's address", url.Values{"email": {"TAKEN@example.com"}, "current_password": {owner.Password}}, http.StatusConflict, "belongs to another account"},
		{"not an address", url.Values{"email": {"owner at example"}, "current_password": {owner.Password}}, http.StatusUnprocessableEntity, "must be an e-mail address"},
		{"wrong current password", url.Values{"email": {"new@example.com"}, "current_password": {"wrong password"}}, http.StatusUnprocessableEntity, "is not your current password"},
	} {
		p := b.post("/account/email", c.form)
		wantStatus(t, c.name, p, c.status)
		wantBody(t, c.name, p, c.want, "The e-mail address was not changed")
		if n := e.count(`SELECT count(*) FROM users WHERE email = 'owner@example.com'`); n != 1 {
			t.Fatalf("%s: the address changed", c.name)
		}
	}
	p := b.post("/account/email", url.Values{"email": {"New@Example.com"}, "current_password": {owner.Password}})
	wantStatus(t, "change", p, http.StatusSeeOther)
	wantBody(t, "after the change", b.get("/account?notice=email"), "Your e-mail address was changed. Every other browser")
	if p := other.get("/account"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("the other browser is still signed in: %d %s", p.status, p.header.Get("Location"))
	}
	wantStatus(t, "a link of the old address", e.browser().get("/set-password?token="+link), http.StatusGone)
	e.browser().signIn(harness.User{Email: "new@example.com", Password: owner.Password})
	// Without mail the answer cannot hide that an address is taken, so every request counts:
	// the taken address, the change, and one more make 3 within the hour.
	wantStatus(t, "a third request", b.post("/account/email", url.Values{"email": {"taken@example.com"}, "current_password": {owner.Password}}), http.StatusConflict)
	p = b.post("/account/email", url.Values{"email": {"free@example.com"}, "current_password": {owner.Password}})
	wantStatus(t, "a fourth request within the hour", p, http.StatusTooManyRequests)
	wantBody(t, "a fourth request within the hour", p, "you asked for 3 changes within the hour")
	// A new account cannot take an address that differs only by case.
	if _, err := e.Repo.CreateUser(context.Background(), "NEW@example.com"); err == nil {
		t.Fatal("a second account with the same address in another case was created")
	}
}

var newKey = regexp.MustCompile(`id="new-key">(pa_[A-Za-z0-9_-]+)<`)

// API keys on the account page: made with a name and shown once, listed with their last use
// (written by the job at most once a minute), revoked; another user's key and a key revoked
// already cannot be revoked; a revoked key answers 401 at once on this node and on another.
func TestAccountKeys(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	stranger := e.UserWithPassword("stranger@example.com")
	b := e.browser().signIn(owner)
	other := e.node()

	made := b.post("/account/keys", url.Values{"name": {"CI <deploy>"}})
	wantStatus(t, "create", made, http.StatusOK)
	m := newKey.FindStringSubmatch(made.body)
	if m == nil {
		t.Fatalf("the new key is not shown:\n%s", made.body)
	}
	key := m[1]
	wantBody(t, "create", made, "CI &lt;deploy&gt;", "shown only this once")
	if p := b.get("/account"); strings.Contains(p.body, key) || !strings.Contains(p.body, "never") {
		t.Fatalf("the key is shown again, or its last use is not 'never':\n%s", p.body)
	}
	long := b.post("/account/keys", url.Values{"name": {strings.Repeat("x", 101)}})
	wantStatus(t, "a long name", long, http.StatusUnprocessableEntity)
	wantBody(t, "a long name", long, "must be at most 100 characters")
	for _, bad := range []string{"a\x00b", "a\xffb"} {
		p := b.post("/account/keys", url.Values{"name": {bad}})
		wantStatus(t, "a name PostgreSQL cannot hold", p, http.StatusUnprocessableEntity)
		wantBody(t, "a name PostgreSQL cannot hold", p, "must be UTF-8 text without NUL characters")
	}

	if status, body := e.api("GET", "/api/v1/websites", key, nil); status != http.StatusOK {
		t.Fatalf("the new key: %d %s", status, body)
	}
	if err := e.App.KeyUses.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := b.get("/account"); !strings.Contains(p.body, "2026-03-20 12:00") || strings.Count(p.body, "never") != 1 {
		t.Fatalf("the last use is not shown to the minute:\n%s", p.body)
	}
	// Used again within the minute: nothing to write. A minute later: written again.
	e.Clock.Advance(30 * time.Second)
	e.api("GET", "/api/v1/websites", key, nil)
	if err := e.App.KeyUses.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var lastUsed time.Time
	if err := e.DB.Get(&lastUsed, `SELECT last_used_at FROM api_keys WHERE name = 'CI <deploy>'`); err != nil || !lastUsed.Equal(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("last use %v (%v), want it unchanged within the minute", lastUsed, err)
	}

	var keyID, strangerKey int64
	if err := e.DB.Get(&keyID, `SELECT id FROM api_keys WHERE name = 'CI <deploy>'`); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&strangerKey, `SELECT id FROM api_keys WHERE user_id = $1`, stranger.ID); err != nil {
		t.Fatal(err)
	}
	foreign := b.post(fmt.Sprintf("/account/keys/%d/revoke", strangerKey), nil)
	wantStatus(t, "another user's key", foreign, http.StatusNotFound)
	if status, _ := e.api("GET", "/api/v1/websites", stranger.Key, nil); status != http.StatusOK {
		t.Fatal("another user's key stopped working")
	}
	bad := b.post(fmt.Sprintf("/account/keys/%d/revoke", keyID), url.Values{"csrf": {"forged"}})
	wantStatus(t, "bad CSRF", bad, http.StatusForbidden)
	// Both nodes have seen the key work (each keeps its own note of keys right before).
	for _, n := range []*env{e, other} {
		if status, _ := n.api("GET", "/api/v1/websites", key, nil); status != http.StatusOK {
			t.Fatal("the key does not work before it is revoked")
		}
	}
	revoked := b.post(fmt.Sprintf("/account/keys/%d/revoke", keyID), nil)
	wantStatus(t, "revoke", revoked, http.StatusSeeOther)
	for i, n := range []*env{e, other} {
		if status, _ := n.api("GET", "/api/v1/websites", key, nil); status != http.StatusUnauthorized {
			t.Fatalf("node %d: the revoked key answers %d, want 401 at once", i, status)
		}
	}
	twice := b.post(fmt.Sprintf("/account/keys/%d/revoke", keyID), nil)
	wantStatus(t, "revoke twice", twice, http.StatusNotFound)
	wantBody(t, "revoke twice", twice, "revoked already")
}

var shownLink = regexp.MustCompile(`id="link">[^<]*(/set-password\?token=[A-Za-z0-9_-]+)<`)

// /admin/users without mail: an invitation link shown to the admin creates the account when
// accepted (once, within 7 days); a non-admin is refused; the last admin can be neither
// unmade nor removed; a user goes with their websites after a confirmation naming them.
func TestAdminUsers(t *testing.T) {
	e := newEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	user := e.UserWithPassword("user@example.com")
	site := e.Site(user.Key, "user.example")
	e.Count(site, "2026-03-19", "page", map[string]int64{"/": 3})
	a := e.browser().signIn(admin)
	u := e.browser().signIn(user)

	for _, path := range []string{"/admin/users", fmt.Sprintf("/admin/users/%d/remove", admin.ID)} {
		p := u.get(path)
		wantStatus(t, "a non-admin on "+path, p, http.StatusForbidden)
		wantBody(t, "a non-admin", p, "Only an admin")
	}
	for _, path := range []string{"/admin/users", fmt.Sprintf("/admin/users/%d/admin", user.ID), fmt.Sprintf("/admin/users/%d/remove", admin.ID)} {
		p := u.post(path, url.Values{"email": {"x@example.com"}, "admin": {"1"}, "websites": {"0"}})
		wantStatus(t, "a non-admin posting to "+path, p, http.StatusForbidden)
	}
	if e.count(`SELECT count(*) FROM users WHERE is_admin`) != 1 || e.count(`SELECT count(*) FROM account_links`) != 0 {
		t.Fatal("a non-admin changed something")
	}

	refused := a.post("/admin/users", url.Values{"email": {"not an address"}})
	wantStatus(t, "a bad address", refused, http.StatusUnprocessableEntity)
	exists := a.post("/admin/users", url.Values{"email": {"USER@example.com"}})
	wantStatus(t, "an existing user", exists, http.StatusConflict)
	wantBody(t, "an existing user", exists, "already has an account")

	invited := a.post("/admin/users", url.Values{"email": {"new@example.com"}})
	wantStatus(t, "invite", invited, http.StatusOK)
	m := shownLink.FindStringSubmatch(invited.body)
	if m == nil {
		t.Fatalf("no invitation link shown:\n%s", invited.body)
	}
	link := m[1]
	if e.count(`SELECT count(*) FROM users WHERE email = 'new@example.com'`) != 0 {
		t.Fatal("the user exists before the invitation is accepted")
	}
	guest := e.browser()
	form := guest.get(link)
	wantStatus(t, "the invitation", form, http.StatusOK)
	wantBody(t, "the invitation", form, "Create your account", "new@example.com")
	token := strings.TrimPrefix(link, "/set-password?token=")
	short := guest.post("/set-password", url.Values{"token": {token}, "new_password": {"1234567"}, "new_password_again": {"1234567"}})
	wantStatus(t, "a short password", short, http.StatusUnprocessableEntity)
	wantBody(t, "a short password", short, "must be 8 to 128 characters")
	badCSRF := guest.post("/set-password", url.Values{"csrf": {"forged"}, "token": {token}, "new_password": {"a good password"}, "new_password_again": {"a good password"}})
	wantStatus(t, "bad CSRF", badCSRF, http.StatusForbidden)
	if e.count(`SELECT count(*) FROM users WHERE email = 'new@example.com'`) != 0 {
		t.Fatal("a refused form created the user")
	}
	accepted := guest.post("/set-password", url.Values{"token": {token}, "new_password": {"a good password"}, "new_password_again": {"a good password"}})
	wantStatus(t, "accept", accepted, http.StatusSeeOther)
	wantStatus(t, "the new user, signed in", guest.get("/account"), http.StatusOK)
	again := e.browser().post("/set-password", url.Values{"token": {token}, "new_password": {"another password"}, "new_password_again": {"another password"}})
	wantStatus(t, "the link used again", again, http.StatusGone)
	wantBody(t, "the link used again", again, "This link no longer works")
	if e.count(`SELECT count(*) FROM users WHERE email = 'new@example.com'`) != 1 {
		t.Fatal("the invitation did not make exactly one user")
	}

	// An expired invitation.
	late := shownLink.FindStringSubmatch(a.post("/admin/users", url.Values{"email": {"late@example.com"}}).body)[1]
	e.Clock.Advance(7*24*time.Hour + time.Second)
	a = e.browser().signIn(admin) // the clock moved past nothing of the session's 30 days
	expired := e.browser().get(late)
	wantStatus(t, "an expired invitation", expired, http.StatusGone)
	if e.count(`SELECT count(*) FROM users WHERE email = 'late@example.com'`) != 0 {
		t.Fatal("an expired invitation made a user")
	}

	// The last admin: the list offers neither unmaking nor removing them, and says why; the
	// address of the removal, typed, says why too; posted anyway, both are refused.
	unmakeForm := fmt.Sprintf(`action="/admin/users/%d/admin"`, admin.ID)
	removeLink := fmt.Sprintf(`href="/admin/users/%d/remove"`, admin.ID)
	list := a.get("/admin/users")
	wantBody(t, "the list", list, "The only admin: make another user an admin before unmaking or removing this one.",
		fmt.Sprintf(`action="/admin/users/%d/admin"`, user.ID), fmt.Sprintf(`href="/admin/users/%d/remove"`, user.ID))
	if strings.Contains(list.body, unmakeForm) || strings.Contains(list.body, removeLink) {
		t.Error("the list offers to unmake or remove the last admin")
	}
	typed := a.get(fmt.Sprintf("/admin/users/%d/remove", admin.ID))
	wantStatus(t, "the removal page of the last admin", typed, http.StatusConflict)
	wantBody(t, "the removal page of the last admin", typed, "only admin")
	unmake := a.post(fmt.Sprintf("/admin/users/%d/admin", admin.ID), url.Values{"admin": {"0"}})
	wantStatus(t, "unmake the last admin", unmake, http.StatusConflict)
	wantBody(t, "unmake the last admin", unmake, "only admin")
	remove := a.post(fmt.Sprintf("/admin/users/%d/remove", admin.ID), url.Values{"websites": {"0"}})
	wantStatus(t, "remove the last admin", remove, http.StatusConflict)
	if e.count(`SELECT count(*) FROM users WHERE is_admin AND id = $1`, admin.ID) != 1 {
		t.Fatal("the last admin was changed")
	}
	wantStatus(t, "make an admin", a.post(fmt.Sprintf("/admin/users/%d/admin", user.ID), url.Values{"admin": {"1"}}), http.StatusSeeOther)
	// With two admins, each can be unmade or removed.
	if list := a.get("/admin/users"); !strings.Contains(list.body, unmakeForm) || !strings.Contains(list.body, removeLink) ||
		strings.Contains(list.body, "The only admin") {
		t.Error("with two admins, the list does not offer to unmake or remove the first")
	}
	wantStatus(t, "unmake one of two admins", a.post(fmt.Sprintf("/admin/users/%d/admin", user.ID), url.Values{"admin": {"0"}}), http.StatusSeeOther)

	// Admins see only their own websites.
	if p := a.get("/"); strings.Contains(p.body, "user.example") {
		t.Fatal("an admin sees another user's website")
	}

	// Removing a user: the confirmation names the websites; a stale count asks again.
	confirm := a.get(fmt.Sprintf("/admin/users/%d/remove", user.ID))
	wantBody(t, "confirmation", confirm, "1 website", "user@example.com")
	stale := a.post(fmt.Sprintf("/admin/users/%d/remove", user.ID), url.Values{"websites": {"0"}})
	wantStatus(t, "a stale confirmation", stale, http.StatusConflict)
	if e.count(`SELECT count(*) FROM users WHERE id = $1`, user.ID) != 1 {
		t.Fatal("a stale confirmation removed the user")
	}
	gone := a.post(fmt.Sprintf("/admin/users/%d/remove", user.ID), url.Values{"websites": {"1"}})
	wantStatus(t, "remove", gone, http.StatusSeeOther)
	for _, q := range []string{`SELECT count(*) FROM users WHERE id = $1`, `SELECT count(*) FROM websites WHERE user_id = $1`,
		`SELECT count(*) FROM sessions WHERE user_id = $1`, `SELECT count(*) FROM api_keys WHERE user_id = $1`} {
		if n := e.count(q, user.ID); n != 0 {
			t.Errorf("%s: %d left", q, n)
		}
	}
	if n := e.count(`SELECT count(*) FROM stats WHERE website_id = $1`, site); n != 0 {
		t.Errorf("%d stats rows of the removed user's website left", n)
	}
	if status, _ := e.api("GET", "/api/v1/websites", user.Key, nil); status != http.StatusUnauthorized {
		t.Errorf("the removed user's key answers %d", status)
	}
}

// An admin's set-password link for any user, and an invitation of a user without a password,
// which becomes a set-password link.
func TestSetPasswordLinks(t *testing.T) {
	e := newEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	nopass, err := e.Repo.CreateUser(context.Background(), "nopass@example.com")
	if err != nil {
		t.Fatal(err)
	}
	a := e.browser().signIn(admin)
	p := a.post("/admin/users", url.Values{"email": {"NoPass@example.com"}})
	wantStatus(t, "invite a user without a password", p, http.StatusOK)
	wantBody(t, "invite a user without a password", p, "Link for nopass@example.com to set a password")
	if e.count(`SELECT count(*) FROM account_links WHERE kind = 'set_password' AND user_id = $1`, nopass.ID) != 1 {
		t.Fatal("no set-password link was made")
	}
	link := shownLink.FindStringSubmatch(a.post(fmt.Sprintf("/admin/users/%d/link", admin.ID), nil).body)[1]
	other := e.browser().signIn(admin)
	guest := e.browser()
	wantBody(t, "the link", guest.get(link), "Set your password", "admin@example.com")
	token := strings.TrimPrefix(link, "/set-password?token=")
	wantStatus(t, "set", guest.post("/set-password", url.Values{"token": {token}, "new_password": {"brand new pw"}, "new_password_again": {"brand new pw"}}), http.StatusSeeOther)
	if p := other.get("/account"); p.status != http.StatusSeeOther {
		t.Fatal("a set-password link did not end the user's other sessions")
	}
	e.browser().signIn(harness.User{Email: admin.Email, Password: "brand new pw"})
}

// resetEnv is a service with mail: PUBLIC_URL and the SMTP test server.
func resetEnv(t *testing.T, opts ...envOption) (*env, *smtptest.Server) {
	t.Helper()
	smtp := smtptest.Start(t, smtptest.Options{})
	mailer, err := reports.NewMailer(smtp.URL(), "Analytics <accounts@example.test>")
	if err != nil {
		t.Fatal(err)
	}
	mailer.TLSConfig = smtp.ClientTLS
	pub, _ := url.Parse("https://stats.example.test")
	e := newEnv(t, append([]envOption{func(c *app.Config) { c.Mailer = mailer; c.PublicURL = pub }}, opts...)...)
	return e, smtp
}

var mailedLink = regexp.MustCompile(`https?://[^/\s"]+(/set-password\?token=[A-Za-z0-9_-]+)`)

// linkIn finds the link in a mail (its parts are quoted-printable: lines broken, = escaped).
func linkIn(t *testing.T, m smtptest.Received) string {
	t.Helper()
	text, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(m.Data)))
	found := mailedLink.FindStringSubmatch(string(text))
	if found == nil {
		t.Fatalf("no link in the mail to %v:\n%s", m.To, text)
	}
	return found[1]
}

// A password reset by mail: the same answer for a known and an unknown address, at most 3
// mails an address an hour, a link that works once within the hour, ends every session and
// voids the older links; no token in the logs.
func TestPasswordReset(t *testing.T) {
	e, smtp := resetEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	session, err := e.Repo.CreateSession(context.Background(), owner.ID, time.Hour, "test")
	if err != nil {
		t.Fatal(err)
	}

	b := e.browser()
	form := b.get("/password-reset")
	wantBody(t, "the form", form, "Send the link")
	known := b.post("/password-reset", url.Values{"email": {"Owner@Example.com"}})
	unknown := b.post("/password-reset", url.Values{"email": {"nobody@example.com"}})
	wantStatus(t, "known", known, http.StatusOK)
	wantStatus(t, "unknown", unknown, http.StatusOK)
	if strings.ReplaceAll(known.body, "Owner@Example.com", "X") != strings.ReplaceAll(unknown.body, "nobody@example.com", "X") {
		t.Fatalf("the answers differ:\n%s\n---\n%s", known.body, unknown.body)
	}
	msgs := smtp.WaitFor(t, 1, 10*time.Second)
	first := linkIn(t, msgs[0])
	if msgs[0].To[0] != "owner@example.com" {
		t.Fatalf("the reset mail went to %v", msgs[0].To)
	}
	for range 3 {
		b.post("/password-reset", url.Values{"email": {"owner@example.com"}})
	}
	// The queue is done when a last, known mail for another address arrived after them.
	e.UserWithPassword("probe@example.com")
	b.post("/password-reset", url.Values{"email": {"probe@example.com"}})
	msgs = smtp.WaitFor(t, 4, 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	toOwner := 0
	for _, m := range smtp.Messages() {
		if m.To[0] == "owner@example.com" {
			toOwner++
		}
	}
	if toOwner != 3 {
		t.Fatalf("%d reset mails to one address within the hour, want 3", toOwner)
	}
	second := linkIn(t, msgs[1])

	// The first link works; the other is void after it; every session ended.
	token := strings.TrimPrefix(first, "/set-password?token=")
	used := b.post("/set-password", url.Values{"token": {token}, "new_password": {"reset password"}, "new_password_again": {"reset password"}})
	wantStatus(t, "reset", used, http.StatusSeeOther)
	if e.count(`SELECT count(*) FROM sessions WHERE token_hash = sha256($1::bytea)`, session) != 0 {
		t.Fatal("the reset left an older session")
	}
	wantStatus(t, "an older link after a reset", e.browser().get(second), http.StatusGone)
	wantStatus(t, "the link used again", e.browser().get(first), http.StatusGone)
	e.browser().signIn(harness.User{Email: owner.Email, Password: "reset password"})

	// An expired link (an hour) changes nothing.
	e.Clock.Advance(time.Hour + time.Minute)
	sent := len(smtp.Messages())
	b.post("/password-reset", url.Values{"email": {"probe@example.com"}})
	msgs = smtp.WaitFor(t, sent+1, 10*time.Second)
	late := linkIn(t, msgs[len(msgs)-1])
	e.Clock.Advance(time.Hour + time.Second)
	before := e.count(`SELECT count(*) FROM users WHERE password_hash IS NOT NULL AND email = 'probe@example.com'`)
	expired := e.browser().post("/set-password", url.Values{"token": {strings.TrimPrefix(late, "/set-password?token=")}, "new_password": {"too late pw"}, "new_password_again": {"too late pw"}})
	wantStatus(t, "an expired reset link", expired, http.StatusGone)
	if e.count(`SELECT count(*) FROM users WHERE password_hash IS NOT NULL AND email = 'probe@example.com'`) != before {
		t.Fatal("an expired link changed the password")
	}

	for _, m := range []string{token, strings.TrimPrefix(second, "/set-password?token=")} {
		if strings.Contains(e.Logs.String(), m) {
			t.Fatalf("a token is in the log:\n%s", e.Logs)
		}
	}
}

// Without mail the reset page says to ask an admin, and sends nothing.
func TestPasswordResetWithoutMail(t *testing.T) {
	e := newEnv(t)
	e.UserWithPassword("owner@example.com")
	b := e.browser()
	wantBody(t, "the page", b.get("/password-reset"), "Ask an admin")
	p := b.post("/password-reset", url.Values{"email": {"owner@example.com"}})
	wantStatus(t, "post", p, http.StatusOK)
	wantBody(t, "post", p, "Ask an admin")
	if e.count(`SELECT count(*) FROM account_links`) != 0 {
		t.Fatal("a link was made without mail")
	}
	wantBody(t, "the sign-in page", b.get("/login"), `href="/password-reset"`)
}

// A reset is answered in the same time whether or not the address has an account: the
// request only queues the work. Measured here, over alternating requests.
func TestPasswordResetTakesTheSameTime(t *testing.T) {
	// Each request from another client address, as the per-address limit would refuse most.
	e, _ := resetEnv(t, func(c *app.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	e.UserWithPassword("owner@example.com")
	b := e.browser()
	token := b.token()
	// A leak shows in every round, the same way; a busy machine (the race detector, parallel
	// packages) shifts one round either way. So up to three rounds, and the test fails only when
	// each of them says the known address is slower, or each says it is faster.
	var slower, faster int
	for round := range 3 {
		k, u := resetTimes(t, b, token, round)
		t.Logf("round %d, median answer: known address %v, unknown %v (30 each)", round+1, k, u)
		switch diff := k - u; {
		case diff > 5*time.Millisecond:
			slower++
		case diff < -5*time.Millisecond:
			faster++
		default:
			return
		}
	}
	t.Fatalf("known and unknown addresses differ by more than 5 ms in every round (%d slower, %d faster)", slower, faster)
}

// resetTimes asks for 30 resets of a known and 30 of unknown addresses, alternating, each from
// another client address, and answers the median time of each.
func resetTimes(t *testing.T, b *browser, token string, round int) (known, unknown time.Duration) {
	t.Helper()
	var k, u []time.Duration
	for i := range 60 {
		email := "owner@example.com"
		if i%2 == 1 {
			email = fmt.Sprintf("nobody%d-%d@example.com", round, i)
		}
		b.header.Set("X-Forwarded-For", fmt.Sprintf("192.0.%d.%d", 2+round, i+1))
		began := time.Now()
		p := b.post("/password-reset", url.Values{"csrf": {token}, "email": {email}})
		took := time.Since(began)
		wantStatus(t, email, p, http.StatusOK)
		if i%2 == 1 {
			u = append(u, took)
		} else {
			k = append(k, took)
		}
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	return median(k), median(u)
}

// snapshot is everything the account forms can change, to check that a refusal changed none.
func (e *env) snapshot() string {
	e.T.Helper()
	// The API keys' uses noted in memory first: the job that writes them every 10 seconds
	// would otherwise show as a change when the test is slow.
	if err := e.App.KeyUses.Flush(context.Background()); err != nil {
		e.T.Fatal(err)
	}
	var s string
	err := e.DB.Get(&s, `SELECT concat_ws('|',
		(SELECT string_agg(concat_ws(',', id, email, is_admin, password_hash), ';' ORDER BY id) FROM users),
		(SELECT string_agg(concat_ws(',', id, name, last_used_at), ';' ORDER BY id) FROM api_keys),
		(SELECT string_agg(concat_ws(',', id, used_at), ';' ORDER BY id) FROM account_links),
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM websites))`)
	if err != nil {
		e.T.Fatal(err)
	}
	return s
}

// Every form of the accounts refuses a missing or forged CSRF token, and changes nothing.
func TestAccountFormsNeedCSRF(t *testing.T) {
	e := newEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	user := e.UserWithPassword("user@example.com")
	e.Site(user.Key, "user.example")
	link, err := e.Repo.CreateLink(context.Background(), repositoryLink(user.ID, user.Email, admin.ID), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	a := e.browser().signIn(admin)
	var keyID int64
	if err := e.DB.Get(&keyID, `SELECT id FROM api_keys WHERE user_id = $1`, admin.ID); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot()
	for _, f := range []struct {
		path string
		form url.Values
	}{
		{"/account/email", url.Values{"email": {"new@example.com"}, "current_password": {admin.Password}}},
		{"/account/password", url.Values{"current_password": {admin.Password}, "new_password": {"a new password"}, "new_password_again": {"a new password"}}},
		{"/account/keys", url.Values{"name": {"x"}}},
		{fmt.Sprintf("/account/keys/%d/revoke", keyID), nil},
		{"/admin/users", url.Values{"email": {"invited@example.com"}}},
		{fmt.Sprintf("/admin/users/%d/admin", user.ID), url.Values{"admin": {"1"}}},
		{fmt.Sprintf("/admin/users/%d/link", user.ID), nil},
		{fmt.Sprintf("/admin/users/%d/remove", user.ID), url.Values{"websites": {"1"}}},
		{"/password-reset", url.Values{"email": {user.Email}}},
		{"/set-password", url.Values{"token": {link}, "new_password": {"a new password"}, "new_password_again": {"a new password"}}},
	} {
		for _, token := range []string{"forged", ""} {
			form := url.Values{"csrf": {token}}
			for k, v := range f.form {
				form[k] = v
			}
			p := a.post(f.path, form)
			wantStatus(t, f.path+" with CSRF token "+strconv.Quote(token), p, http.StatusForbidden)
			wantBody(t, f.path, p, "This form has expired or was not sent from this site")
		}
	}
	if after := e.snapshot(); after != before {
		t.Fatalf("a refused form changed something:\n%s\n%s", before, after)
	}
}

func repositoryLink(userID int64, email string, adminID int64) repository.Link {
	return repository.Link{Kind: repository.LinkSetPassword, Email: email, UserID: &userID, CreatedBy: &adminID}
}

// An invitation may make an admin; a client asking for reset links too often is refused
// (per address), whatever the address it asks for.
func TestInviteAdminAndResetLimit(t *testing.T) {
	e, _ := resetEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	a := e.browser().signIn(admin)
	wantStatus(t, "invite", a.post("/admin/users", url.Values{"email": {"boss@example.com"}, "admin": {"1"}}), http.StatusOK)
	var makeAdmin bool
	if err := e.DB.QueryRow(`SELECT make_admin FROM account_links WHERE email = 'boss@example.com'`).Scan(&makeAdmin); err != nil || !makeAdmin {
		t.Fatalf("the invitation does not make an admin (%v)", err)
	}
	b := e.browser()
	for i := range 12 {
		p := b.post("/password-reset", url.Values{"email": {fmt.Sprintf("someone%d@example.com", i)}})
		if i < 10 {
			wantStatus(t, "a reset", p, http.StatusOK)
		} else {
			wantStatus(t, "one reset too many", p, http.StatusTooManyRequests)
			wantBody(t, "one reset too many", p, "too many requests for reset links")
		}
	}
}

// An admin who is not the last may remove themselves: they are signed out, and gone.
func TestAdminRemovesThemselves(t *testing.T) {
	e := newEnv(t)
	e.UserWithPassword("first@example.com") // the first user: an admin
	second := e.UserWithPassword("second@example.com")
	if err := e.Repo.SetAdmin(context.Background(), second.ID, true); err != nil {
		t.Fatal(err)
	}
	b := e.browser().signIn(second)
	p := b.post(fmt.Sprintf("/admin/users/%d/remove", second.ID), url.Values{"websites": {"0"}})
	wantStatus(t, "remove oneself", p, http.StatusSeeOther)
	if p.header.Get("Location") != "/login" || e.count(`SELECT count(*) FROM users WHERE id = $1`, second.ID) != 0 {
		t.Fatalf("after removing oneself: %s, user rows %d", p.header.Get("Location"), e.count(`SELECT count(*) FROM users WHERE id = $1`, second.ID))
	}
	if c := b.cookie("/", "session"); c != nil {
		t.Fatalf("still holding a session cookie: %+v", c)
	}
}
