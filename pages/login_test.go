package pages_test

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
)

func TestSignInAndOut(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser()

	home := b.get("/")
	wantStatus(t, "home before signing in", home, http.StatusSeeOther)
	if loc := home.header.Get("Location"); loc != "/login?next=%2F" {
		t.Fatalf("home sends to %q", loc)
	}
	form := b.get("/login")
	wantStatus(t, "sign-in page", form, http.StatusOK)
	for _, input := range []string{`name="email"`, `name="password"`, `name="csrf"`} {
		if !strings.Contains(form.body, input) {
			t.Fatalf("sign-in page has no %s", input)
		}
	}
	csrf := b.cookie("/", "csrf")
	if csrf == nil {
		t.Fatal("no csrf cookie")
	}

	p := b.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}, "next": {"/stats/x.example?from=2026-01-01"}})
	wantStatus(t, "sign in", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/stats/x.example?from=2026-01-01" {
		t.Fatalf("after signing in: Location %q", loc)
	}
	session := setCookie(t, p, "session")
	if !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure || session.Path != "/" {
		t.Fatalf("session cookie flags: %+v", session)
	}
	// Only a SHA-256 of the token is stored.
	sum := sha256.Sum256([]byte(session.Value))
	var stored int
	if err := e.DB.Get(&stored, `SELECT count(*) FROM sessions WHERE token_hash = $1`, sum[:]); err != nil || stored != 1 {
		t.Fatalf("sessions with the token's SHA-256: %d (%v)", stored, err)
	}
	var leaked int
	e.DB.Get(&leaked, `SELECT count(*) FROM sessions WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'`, session.Value)
	if leaked != 0 {
		t.Fatal("the session token itself is stored")
	}
	home = b.get("/")
	wantStatus(t, "home signed in", home, http.StatusOK)
	if !strings.Contains(home.body, owner.Email) {
		t.Fatal("home does not say who is signed in")
	}

	wantStatus(t, "sign out without a token", b.postRaw("/logout", url.Values{}), http.StatusForbidden)
	wantStatus(t, "still signed in", b.get("/"), http.StatusOK)
	out := b.post("/logout", nil)
	wantStatus(t, "sign out", out, http.StatusSeeOther)
	if out.header.Get("Location") != "/login" {
		t.Fatalf("after signing out: %q", out.header.Get("Location"))
	}
	wantStatus(t, "home after signing out", b.get("/"), http.StatusSeeOther)
	// The old cookie no longer signs anyone in, even sent again.
	replay := e.browser()
	u, _ := url.Parse(e.Server.URL)
	replay.client.Jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: session.Value}})
	wantStatus(t, "replayed session cookie", replay.get("/"), http.StatusSeeOther)
}

func TestSignInRefusals(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser()

	cases := []struct {
		name   string
		form   url.Values
		status int
		text   string
	}{
		{"wrong password", url.Values{"email": {owner.Email}, "password": {"nope nope"}}, http.StatusUnauthorized, "do not match"},
		{"unknown e-mail", url.Values{"email": {"nobody@example.com"}, "password": {owner.Password}}, http.StatusUnauthorized, "do not match"},
		{"empty form", url.Values{"email": {""}, "password": {""}}, http.StatusUnprocessableEntity, "Enter your e-mail"},
		// Text PostgreSQL cannot hold is refused before it is looked up.
		{"NUL in the e-mail", url.Values{"email": {"owner\x00@example.com"}, "password": {owner.Password}}, http.StatusUnprocessableEntity, "UTF-8 text without NUL"},
		{"e-mail not UTF-8", url.Values{"email": {"owner\xff@example.com"}, "password": {owner.Password}}, http.StatusUnprocessableEntity, "UTF-8 text without NUL"},
	}
	for _, c := range cases {
		began := time.Now()
		p := b.post("/login", c.form)
		wantStatus(t, c.name, p, c.status)
		if !strings.Contains(p.body, c.text) || setCookie(t, p, "session") != nil {
			t.Fatalf("%s: no message %q, or a session was given:\n%s", c.name, c.text, p.body)
		}
		if c.status == http.StatusUnauthorized && time.Since(began) < failureDelay {
			t.Fatalf("%s answered in %v, before the %v floor", c.name, time.Since(began), failureDelay)
		}
	}
	if p := b.post("/login", url.Values{"email": {"nobody@example.com"}, "password": {"x"}}); strings.Contains(p.body, "nobody@example.com") == false {
		t.Fatal("the e-mail typed is not kept in the form")
	}

	// CSRF: no token, a forged token, another browser's token, a cross-site post.
	good := url.Values{"email": {owner.Email}, "password": {owner.Password}}
	with := func(k, v string) url.Values {
		f := url.Values{}
		for key, vals := range good {
			f[key] = vals
		}
		f.Set(k, v)
		return f
	}
	wantStatus(t, "no token", b.postRaw("/login", good), http.StatusForbidden)
	wantStatus(t, "forged token", b.postRaw("/login", with("csrf", "AAAA")), http.StatusForbidden)
	wantStatus(t, "another browser's token", b.postRaw("/login", with("csrf", e.browser().token())), http.StatusForbidden)
	b.header.Set("Sec-Fetch-Site", "cross-site")
	wantStatus(t, "cross-site post", b.post("/login", good), http.StatusForbidden)
	b.header.Del("Sec-Fetch-Site")
	// A token in the query does not count: forms are read from the body only.
	wantStatus(t, "token in the query", b.postRaw("/login?csrf="+url.QueryEscape(b.token()), good), http.StatusForbidden)

	// next never leaves the site.
	for _, next := range []string{"//evil.example/x", "https://evil.example/", `/\evil.example`, "javascript:alert(1)"} {
		p := e.browser().post("/login", with("next", next))
		wantStatus(t, "sign in with next "+next, p, http.StatusSeeOther)
		if loc := p.header.Get("Location"); loc != "/" {
			t.Fatalf("next %q sent the browser to %q", next, loc)
		}
	}

	// Too many failures from one client, over many accounts: refused before the password is
	// looked at.
	guesser := e.browser()
	for i := 0; i < 10; i++ {
		guesser.post("/login", url.Values{"email": {fmt.Sprintf("guess%d@example.com", i)}, "password": {"guess"}})
	}
	p := guesser.post("/login", good)
	wantStatus(t, "right password past the limit", p, http.StatusTooManyRequests)
	if p.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

func TestCookiesAreSecureBehindHTTPS(t *testing.T) {
	public, _ := url.Parse("https://stats.example.com")
	e := newEnv(t, func(o *app.Config) { o.PublicURL = public })
	p := e.browser().get("/login")
	c := setCookie(t, p, "csrf")
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("csrf cookie behind https: %+v", c)
	}
	if p.header.Get("Strict-Transport-Security") == "" {
		t.Fatal("no HSTS behind https")
	}
	// The device cookie of a sign-in too. (The jar keeps Secure cookies from http: sent by hand.)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser()
	b.header.Set("Cookie", "csrf="+c.Value)
	token := csrfField.FindStringSubmatch(p.body)[1]
	in := b.postRaw("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}, "csrf": {token}})
	wantStatus(t, "sign in behind https", in, http.StatusSeeOther)
	if d := setCookie(t, in, "device"); d == nil || !d.Secure || !d.HttpOnly || d.SameSite != http.SameSiteLaxMode {
		t.Fatalf("device cookie behind https: %+v", d)
	}
}

// setCookie is the cookie of that name the response sets, or nil.
func setCookie(t testing.TB, p page, name string) *http.Cookie {
	t.Helper()
	res := http.Response{Header: p.header}
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}
