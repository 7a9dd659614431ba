package pages_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/testkit/oidcop"
)

// ssoEnv is the service with single sign-on at a real OpenID provider (testkit/oidcop),
// served at an address known before it starts, which the provider has as the redirect URI.
type ssoEnv struct {
	*env
	op     *oidcop.Provider
	public string
	// skew moves the clock the ID tokens' expiry is checked against.
	skew *atomic.Int64
}

var ssoUsers = []oidcop.User{
	{Username: "alice", Email: "Alice@Example.com", EmailVerified: true},
	{Username: "bob", Email: "bob@example.com", EmailVerified: false},
	{Username: "carol", Email: "carol@elsewhere.example", EmailVerified: true},
	{Username: "dave", Email: "dave@example.com", EmailVerified: true},
}

func newSSOEnv(t *testing.T, change func(*sso.Config)) *ssoEnv {
	t.Helper()
	front := httptest.NewUnstartedServer(nil)
	public := "http://" + front.Listener.Addr().String()
	op := oidcop.Start(t, ssoUsers, []oidcop.Client{{ID: "analytics", Secret: "s3cret", RedirectURI: public + "/login/sso/callback"}})
	skew := &atomic.Int64{}
	pub, _ := url.Parse(public)
	cfg := sso.Config{Issuer: op.Issuer, ClientID: "analytics", ClientSecret: "s3cret",
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}
	if change != nil {
		change(&cfg)
	}
	e := newEnv(t, func(c *app.Config) { c.PublicURL = pub; c.OIDC = cfg })
	front.Config.Handler = e.App.Handler
	front.Start()
	t.Cleanup(front.Close)
	return &ssoEnv{env: e, op: op, public: public, skew: skew}
}

// start begins a sign-in with SSO in the browser and signs in at the provider as username;
// it returns the callback address the provider sends the browser back to.
func (s *ssoEnv) start(t *testing.T, b *browser, username string) string {
	t.Helper()
	p := b.get("/login/sso?next=/account")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), s.op.Issuer+"/auth?") {
		t.Fatalf("start: %d %s", p.status, p.header.Get("Location"))
	}
	for _, want := range []string{"code_challenge_method=S256", "code_challenge=", "state=", "nonce=", "client_id=analytics"} {
		if !strings.Contains(p.header.Get("Location"), want) {
			t.Errorf("the authorization request lacks %s: %s", want, p.header.Get("Location"))
		}
	}
	callback := s.op.SignIn(b.client, p.header.Get("Location"), username)
	if !strings.HasPrefix(callback, s.public+"/login/sso/callback?") {
		t.Fatalf("the provider sent the browser to %s", callback)
	}
	return strings.TrimPrefix(callback, s.public)
}

func wantSSORefused(t *testing.T, what string, p page, status int, words string) {
	t.Helper()
	wantStatus(t, what, p, status)
	if !strings.Contains(p.body, "Single sign-on failed") || !strings.Contains(p.body, words) {
		t.Errorf("%s: not the page that says so (%q):\n%.3000s", what, words, p.body)
	}
	if p.header.Get("Set-Cookie") != "" && strings.Contains(p.header.Get("Set-Cookie"), "session=") && !strings.Contains(p.header.Get("Set-Cookie"), "session=;") {
		t.Errorf("%s: a session was made", what)
	}
}

// Signing in with a verified e-mail address of an account, and every refusal: a wrong state,
// a replayed code, an expired token, an unverified address, an address without an account.
func TestSingleSignOn(t *testing.T) {
	s := newSSOEnv(t, nil)
	alice := s.UserWithPassword("alice@example.com")
	s.UserWithPassword("bob@example.com")

	login := s.browserAt(s.public).get("/login")
	if !strings.Contains(login.body, "Sign in with SSO") {
		t.Error("the sign-in page offers no SSO")
	}

	b := s.browserAt(s.public)
	callback := s.start(t, b, "alice")
	p := b.get(callback)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/account" {
		t.Fatalf("signing in: %d %s\n%s", p.status, p.header.Get("Location"), p.body)
	}
	acct := b.get("/account")
	wantStatus(t, "the account page after SSO", acct, http.StatusOK)
	if !strings.Contains(acct.body, alice.Email) {
		t.Error("signed in to another account")
	}

	// An account with two-factor sign-in on is asked for its code after the provider.
	secret := account.NewTOTPSecret()
	if err := s.Repo.SetPendingTOTP(t.Context(), alice.ID, secret); err != nil {
		t.Fatal(err)
	}
	if err := s.Repo.EnableTOTP(t.Context(), alice.ID, secret, 1, nil); err != nil {
		t.Fatal(err)
	}
	twoStep := s.browserAt(s.public)
	p = twoStep.get(s.start(t, twoStep, "alice"))
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login/code") {
		t.Errorf("SSO with two-factor sign-in on: %d %s", p.status, p.header.Get("Location"))
	}
	if c := twoStep.cookie("/", "session"); c != nil && c.Value != "" {
		t.Error("signed in before the code")
	}
	if err := s.Repo.DisableTOTP(t.Context(), alice.ID); err != nil {
		t.Fatal(err)
	}

	// The same answer again: its state was used (the cookie is gone).
	wantSSORefused(t, "the answer again", b.get(callback), http.StatusBadRequest, "state does not match")
	// The code again, with a fresh sign-in's state: the provider refuses it.
	fresh := s.browserAt(s.public)
	start := fresh.get("/login/sso")
	state, _ := url.Parse(start.header.Get("Location"))
	replayed, _ := url.Parse(callback)
	q := replayed.Query()
	q.Set("state", state.Query().Get("state"))
	wantSSORefused(t, "a replayed code", fresh.get("/login/sso/callback?"+q.Encode()), http.StatusBadRequest, "refused this answer&#39;s code")

	// A wrong state; no state; an answer without a sign-in started here.
	other := s.browserAt(s.public)
	callback = s.start(t, other, "alice")
	wrong, _ := url.Parse(callback)
	q = wrong.Query()
	q.Set("state", "not-the-state")
	wantSSORefused(t, "a wrong state", other.get("/login/sso/callback?"+q.Encode()), http.StatusBadRequest, "state does not match")
	wantSSORefused(t, "no cookie", s.browserAt(s.public).get(callback), http.StatusBadRequest, "state does not match")
	wantSSORefused(t, "the provider's error", s.browserAt(s.public).get("/login/sso/callback?error=access_denied&state=x"), http.StatusBadRequest, "state does not match")

	// An expired ID token: the clock it is checked against is two hours on (they last one).
	b = s.browserAt(s.public)
	callback = s.start(t, b, "alice")
	s.skew.Store(int64(2 * time.Hour))
	wantSSORefused(t, "an expired token", b.get(callback), http.StatusBadRequest, "has expired")
	s.skew.Store(0)

	// An address the provider has not verified; one without an account here.
	b = s.browserAt(s.public)
	wantSSORefused(t, "an unverified address", b.get(s.start(t, b, "bob")), http.StatusForbidden, "not verified your e-mail address")
	b = s.browserAt(s.public)
	wantSSORefused(t, "no account", b.get(s.start(t, b, "dave")), http.StatusForbidden, "There is no account for dave@example.com")
	if _, err := s.Repo.UserByEmail(t.Context(), "dave@example.com"); err == nil {
		t.Error("an account was made without OIDC_AUTO_CREATE")
	}
	if strings.Contains(s.Logs.String(), callback) || strings.Contains(s.Logs.String(), "code=") {
		t.Error("a code reached the log")
	}
}

// OIDC_AUTO_CREATE makes accounts for new verified addresses, of the allowed domains only.
func TestSingleSignOnMakesAccounts(t *testing.T) {
	s := newSSOEnv(t, func(c *sso.Config) { c.AutoCreate, c.AllowedDomains = true, []string{"Example.com"} })
	b := s.browserAt(s.public)
	p := b.get(s.start(t, b, "dave"))
	wantStatus(t, "a new account", p, http.StatusSeeOther)
	if _, err := s.Repo.UserByEmail(t.Context(), "dave@example.com"); err != nil {
		t.Errorf("no account made: %v", err)
	}
	wantStatus(t, "signed in", b.get("/account"), http.StatusOK)
	b = s.browserAt(s.public)
	wantSSORefused(t, "a domain not allowed", b.get(s.start(t, b, "carol")), http.StatusForbidden, "Addresses of this domain may not sign in")
	if _, err := s.Repo.UserByEmail(t.Context(), "carol@elsewhere.example"); err == nil {
		t.Error("an account was made for a domain not allowed")
	}
	b = s.browserAt(s.public)
	wantSSORefused(t, "an unverified address", b.get(s.start(t, b, "bob")), http.StatusForbidden, "not verified")
}

// Without OIDC_ISSUER there is no single sign-on.
func TestNoSingleSignOn(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	wantStatus(t, "/login/sso", b.get("/login/sso"), http.StatusNotFound)
	wantStatus(t, "/login/sso/callback", b.get("/login/sso/callback?code=x&state=y"), http.StatusNotFound)
	if strings.Contains(b.get("/login").body, "SSO") {
		t.Error("the sign-in page offers SSO")
	}
}
