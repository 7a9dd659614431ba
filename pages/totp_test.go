package pages_test

import (
	"encoding/base32"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/testkit/harness"
)

var (
	secretText    = regexp.MustCompile(`<code class="secret" id="secret">([A-Z2-7 ]+)</code>`)
	recoveryCodes = regexp.MustCompile(`[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}`)
)

// setUpTOTP turns two-factor sign-in on for the browser's user as a person does: the setup
// page's secret typed into an app, its code confirmed. It returns the secret and the recovery
// codes shown.
func setUpTOTP(t *testing.T, e *env, b *browser) ([]byte, []string) {
	t.Helper()
	setup := b.get("/account/totp")
	wantStatus(t, "the setup page", setup, http.StatusOK)
	m := secretText.FindStringSubmatch(setup.body)
	if m == nil || !strings.Contains(setup.body, `<svg class="qr"`) || setup.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the setup page has no secret or QR code:\n%s", setup.body)
	}
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ReplaceAll(m[1], " ", ""))
	if err != nil || len(secret) != 20 {
		t.Fatalf("secret %q: %v", m[1], err)
	}
	// The form's own token: opening a page for another one would show a new secret.
	csrf := csrfField.FindStringSubmatch(setup.body)[1]
	wrong := b.post("/account/totp", url.Values{"code": {"000000"}, "csrf": {csrf}})
	if account.TOTPCode(secret, account.TOTPStepAt(e.Clock.Now())) != "000000" {
		wantStatus(t, "a wrong first code", wrong, http.StatusUnprocessableEntity)
	}
	done := b.post("/account/totp", url.Values{"code": {account.TOTPCode(secret, account.TOTPStepAt(e.Clock.Now()))}, "csrf": {csrf}})
	wantStatus(t, "the first code", done, http.StatusOK)
	codes := recoveryCodes.FindAllString(done.body, -1)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes shown:\n%s", len(codes), done.body)
	}
	return secret, codes
}

func codeAt(e *env, secret []byte) string {
	return account.TOTPCode(secret, account.TOTPStepAt(e.Clock.Now()))
}

// signInToCode signs a browser in with the password; with two-factor sign-in on it is sent to
// the code page, and not signed in yet.
func signInToCode(t *testing.T, b *browser, u harness.User) {
	t.Helper()
	p := b.post("/login", url.Values{"email": {u.Email}, "password": {u.Password}, "next": {"/account"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/login/code?next=%2Faccount" {
		t.Fatalf("the password: %d %s", p.status, p.header.Get("Location"))
	}
	if c := b.cookie("/", "session"); c != nil && c.Value != "" {
		t.Fatal("signed in before the code")
	}
	wantStatus(t, "the code page", b.get("/login/code?next=%2Faccount"), http.StatusOK)
}

// Setting two-factor sign-in up, signing in with it (a code is good once, a recovery code
// too), and turning it off with the password and a code. The secret is shown only before it
// is confirmed and never reaches the log.
func TestTwoFactorSignIn(t *testing.T) {
	e := newEnv(t)
	u := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(u)
	secret, codes := setUpTOTP(t, e, b)
	text := account.TOTPText(secret)
	if p := b.get("/account/totp"); p.status != http.StatusSeeOther || strings.Contains(p.body, text) {
		t.Errorf("the setup page once on: %d", p.status)
	}
	acct := b.get("/account")
	if strings.Contains(acct.body, text) || !strings.Contains(acct.body, "10 of your recovery codes are left") {
		t.Errorf("the account page:\n%s", acct.body)
	}
	compact := strings.ReplaceAll(text, " ", "")
	if strings.Contains(e.Logs.String(), compact) || strings.Contains(e.Logs.String(), text) {
		t.Error("the secret reached the log")
	}

	// The code used to confirm is spent: the same step's code is refused, the next one is good.
	fresh := e.browser()
	signInToCode(t, fresh, u)
	wantStatus(t, "the confirmation's code again", fresh.post("/login/code", url.Values{"code": {codeAt(e, secret)}, "next": {"/account"}}), http.StatusUnauthorized)
	e.Clock.Advance(account.TOTPStep)
	p := fresh.post("/login/code", url.Values{"code": {codeAt(e, secret)}, "next": {"/account"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/account" {
		t.Fatalf("the next code: %d %s\n%s", p.status, p.header.Get("Location"), p.body)
	}
	wantStatus(t, "signed in", fresh.get("/account"), http.StatusOK)
	// ... and good once, on any node.
	again := e.browser()
	signInToCode(t, again, u)
	node := e.node()
	again.base = node.Server.URL
	wantStatus(t, "a used code on another node", again.post("/login/code", url.Values{"code": {codeAt(e, secret)}}), http.StatusUnauthorized)
	// A recovery code, typed in lower case without its dashes; good once.
	typed := strings.ToLower(strings.ReplaceAll(codes[3], "-", ""))
	wantStatus(t, "a recovery code", again.post("/login/code", url.Values{"code": {typed}}), http.StatusSeeOther)
	other := e.browser()
	signInToCode(t, other, u)
	wantStatus(t, "the recovery code again", other.post("/login/code", url.Values{"code": {codes[3]}}), http.StatusUnauthorized)
	// Without the password's step, the code page sends the browser to sign in.
	if p := e.browser().get("/login/code"); p.status != http.StatusSeeOther {
		t.Errorf("the code page without a password: %d", p.status)
	}
	wantStatus(t, "a code without a password", e.browser().post("/login/code", url.Values{"code": {codeAt(e, secret)}}), http.StatusUnauthorized)

	// Off: the password and a code, each checked.
	e.Clock.Advance(account.TOTPStep)
	wantStatus(t, "off with a wrong password", fresh.post("/account/totp/disable", url.Values{"current_password": {"wrong"}, "code": {codeAt(e, secret)}}), http.StatusUnprocessableEntity)
	wantStatus(t, "off with a wrong code", fresh.post("/account/totp/disable", url.Values{"current_password": {u.Password}, "code": {"123456"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "off", fresh.post("/account/totp/disable", url.Values{"current_password": {u.Password}, "code": {codeAt(e, secret)}}), http.StatusSeeOther)
	e.browser().signIn(u) // the password alone again
}

// Guesses at the code are counted per account in PostgreSQL before they are checked: of 30
// wrong codes sent at once from one browser, no more than the free attempts are checked, and
// a right code after them waits too, on another node as well.
func TestTwoFactorGuessesAreLimited(t *testing.T) {
	e := newEnv(t)
	u := e.UserWithPassword("owner@example.com")
	secret, _ := setUpTOTP(t, e, e.browser().signIn(u))
	e.Clock.Advance(account.TOTPStep)
	b := e.browser()
	signInToCode(t, b, u)
	token := b.token()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			p := b.post("/login/code", url.Values{"code": {"000001"}, "csrf": {token}})
			mu.Lock()
			statuses[p.status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("30 wrong codes at once: %v", statuses)
	if statuses[http.StatusUnauthorized] > 5 || statuses[http.StatusUnauthorized]+statuses[http.StatusTooManyRequests] != 30 {
		t.Errorf("30 wrong codes at once: %v (at most 5 checked)", statuses)
	}
	b.base = e.node().Server.URL
	wantStatus(t, "a right code after the guesses, on another node", b.post("/login/code", url.Values{"code": {codeAt(e, secret)}}), http.StatusTooManyRequests)
}

// An admin requires two-factor sign-in of everyone: a user without it is sent to set it up
// before anything else, and can then go on.
func TestTwoFactorRequired(t *testing.T) {
	e := newEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	user := e.UserWithPassword("user@example.com")
	ab := e.browser().signIn(admin)
	ub := e.browser().signIn(user)
	wantStatus(t, "a user requires it", ub.post("/admin/settings/totp", url.Values{"required": {"1"}}), http.StatusForbidden)
	wantStatus(t, "a bad value", ab.post("/admin/settings/totp", url.Values{"required": {"yes"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "the admin requires it", ab.post("/admin/settings/totp", url.Values{"required": {"1"}}), http.StatusSeeOther)
	for _, path := range []string{"/", "/account", "/admin/users", "/stats/example.com"} {
		if p := ub.get(path); p.status != http.StatusSeeOther || p.header.Get("Location") != "/account/totp" {
			t.Errorf("%s without two-factor sign-in: %d %s", path, p.status, p.header.Get("Location"))
		}
	}
	if p := ub.post("/websites", url.Values{"domain": {"example.com"}}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/account/totp" {
		t.Errorf("a form without two-factor sign-in: %d %s", p.status, p.header.Get("Location"))
	}
	setUpTOTP(t, e, ub)
	wantStatus(t, "home with it", ub.get("/"), http.StatusOK)
	if strings.Contains(ub.get("/account").body, "/account/totp/disable") {
		t.Error("it can be turned off while required")
	}
	wantStatus(t, "the admin without it", ab.get("/"), http.StatusSeeOther)
	wantStatus(t, "signing out without it", ab.post("/logout", nil), http.StatusSeeOther)
}

// The account page lists the browsers signed in, by device, and signs any of them out.
func TestSessionsOnTheAccountPage(t *testing.T) {
	e := newEnv(t)
	u := e.UserWithPassword("owner@example.com")
	firefox := e.browser()
	firefox.header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	firefox.signIn(u)
	phone := e.browser()
	phone.header.Set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
	phone.signIn(u)
	third := e.browser().signIn(u)
	page := firefox.get("/account")
	for _, want := range []string{"Firefox on Linux (desktop)", "Safari on iOS (mobile)", "This browser", "Sign out every other browser"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the account page lacks %q", want)
		}
	}
	if strings.Contains(page.body, "Gecko/20100101") {
		t.Error("the user agent is shown")
	}
	var stored int
	if err := e.DB.Get(&stored, `SELECT count(*) FROM sessions WHERE device LIKE '%Gecko%' OR device LIKE '%Mozilla%'`); err != nil || stored != 0 {
		t.Errorf("a user agent is stored: %d %v", stored, err)
	}
	sessions, err := e.Repo.Sessions(t.Context(), u.ID, "")
	if err != nil || len(sessions) != 3 {
		t.Fatalf("sessions %v %v", sessions, err)
	}
	var phoneID int64
	for _, s := range sessions {
		if strings.HasPrefix(s.Device, "Safari") {
			phoneID = s.ID
		}
	}
	// Another user's session is not theirs to end.
	other := e.browser().signIn(e.UserWithPassword("other@example.com"))
	wantStatus(t, "another user's session", other.post("/account/sessions/"+itoa(phoneID)+"/end", nil), http.StatusNotFound)
	wantStatus(t, "end the phone's", firefox.post("/account/sessions/"+itoa(phoneID)+"/end", nil), http.StatusSeeOther)
	wantStatus(t, "the phone", phone.get("/account"), http.StatusSeeOther)
	wantStatus(t, "the third browser", third.get("/account"), http.StatusOK)
	wantStatus(t, "sign out the others", firefox.post("/account/sessions/others/end", nil), http.StatusSeeOther)
	wantStatus(t, "the third browser after", third.get("/account"), http.StatusSeeOther)
	wantStatus(t, "this browser after", firefox.get("/account"), http.StatusOK)
	wantStatus(t, "the other user", other.get("/account"), http.StatusOK)

	// Last seen moves on, at most once a minute.
	before, _ := e.Repo.Sessions(t.Context(), u.ID, "")
	e.Clock.Advance(2 * time.Minute)
	firefox.get("/account")
	after, _ := e.Repo.Sessions(t.Context(), u.ID, "")
	if len(before) != 1 || len(after) != 1 || !after[0].LastSeenAt.After(before[0].LastSeenAt) {
		t.Errorf("last seen %v -> %v", before, after)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// New recovery codes take a code of now, checked (a wrong one is the account page with the
// field's error), and replace the old ones: an old code no longer signs in.
func TestNewRecoveryCodes(t *testing.T) {
	e := newEnv(t)
	u := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(u)
	secret, codes := setUpTOTP(t, e, b)
	e.Clock.Advance(account.TOTPStep)
	bad := b.post("/account/totp/codes", url.Values{"code": {"123456"}})
	wantStatus(t, "new codes with a wrong code", bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.body, "is not right, or was used already") {
		t.Errorf("new codes with a wrong code: the page says nothing of the code:\n%s", bad.body)
	}
	renewed := b.post("/account/totp/codes", url.Values{"code": {codeAt(e, secret)}})
	wantStatus(t, "new codes", renewed, http.StatusOK)
	got := recoveryCodes.FindAllString(renewed.body, -1)
	if len(got) != len(codes) || slices.Contains(got, codes[0]) {
		t.Errorf("new codes: %v, want %d codes other than the old ones", got, len(codes))
	}
	old := e.browser()
	signInToCode(t, old, u)
	wantStatus(t, "an old recovery code", old.post("/login/code", url.Values{"code": {codes[0]}}), http.StatusUnauthorized)
	fresh := e.browser()
	signInToCode(t, fresh, u)
	wantStatus(t, "a new recovery code", fresh.post("/login/code", url.Values{"code": {got[0]}}), http.StatusSeeOther)
}
