package pages_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit"
)

// The limits on password guesses (pages/htmlpage/limit.go), as the tests see them.
const (
	clientAttempts = 10  // per client address, in 15 minutes (sign-ins and site passwords apart)
	freeAttempts   = 5   // per account or website, before the delays start
	maxDelay       = 900 // seconds: the longest any account or website waits
)

// behindProxy makes the test server its own trusted proxy, so that X-Forwarded-For gives each
// browser its own client address.
func behindProxy(o *app.Config) {
	o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
}

// from is a new browser at a client address.
func (e *env) from(addr string) *browser {
	b := e.browser()
	b.header.Set("X-Forwarded-For", addr)
	return b
}

// address is the i-th of many client addresses.
func address(i int) string { return fmt.Sprintf("10.%d.%d.%d", i/65536%256, i/256%256, i%256) }

// guesses sorts the answers of a burst of password attempts: a wrong password's answer (401)
// means it was checked, a 429 that it was refused before.
type guesses struct {
	sent, evaluated, refused, right int
	wall                            time.Duration
}

func (g guesses) String() string {
	return fmt.Sprintf("sent %d, evaluated %d, refused %d, wall time %v", g.sent, g.evaluated, g.refused, g.wall.Round(time.Millisecond))
}

// burst prepares n attempts (each browser loads its form first), sends them all at once and
// sorts the answers.
func burst(t *testing.T, n int, prepare func(i int) func() page) guesses {
	t.Helper()
	sends := make([]func() page, n)
	for i := range n {
		sends[i] = prepare(i)
	}
	answers := make([]page, n)
	g := guesses{sent: n, wall: testkit.AtOnce(n, func(i int) { answers[i] = sends[i]() })}
	for _, p := range answers {
		switch p.status {
		case http.StatusUnauthorized:
			g.evaluated++
		case http.StatusSeeOther:
			g.right++
		case http.StatusTooManyRequests:
			g.refused++
			if wait := retryAfter(t, p); wait < 1 || wait > maxDelay || !strings.Contains(p.body, "Too many") {
				t.Fatalf("a refusal waits %ds (want 1..%d), or does not explain itself:\n%.1500s", wait, maxDelay, p.body)
			}
		default:
			t.Fatalf("an attempt answered %d:\n%.1500s", p.status, p.body)
		}
	}
	return g
}

func retryAfter(t testing.TB, p page) int {
	t.Helper()
	s, err := strconv.Atoi(p.header.Get("Retry-After"))
	if err != nil {
		t.Fatalf("%d without a Retry-After in seconds: %q", p.status, p.header.Get("Retry-After"))
	}
	return s
}

// guessesOf sends one burst and checks what the metrics say of it: each evaluated attempt is
// one password check, each refused one is counted by the limit that refused it.
func (e *env) guessesOf(t *testing.T, kind string, n int, prepare func(i int) func() page) guesses {
	t.Helper()
	checked, refused := e.Metric("analytics_password_checks_total", "kind", kind), e.Metric("analytics_rate_limited_total")
	g := burst(t, n, prepare)
	t.Logf("%s: %s", t.Name(), g)
	if g.evaluated+g.refused+g.right != g.sent {
		t.Fatalf("%d answers of %d attempts", g.evaluated+g.refused+g.right, g.sent)
	}
	if got := e.Metric("analytics_password_checks_total", "kind", kind) - checked; int(got) != g.evaluated+g.right {
		t.Errorf("%v password checks counted, %d answers of one", got, g.evaluated+g.right)
	}
	if got := e.Metric("analytics_rate_limited_total") - refused; int(got) != g.refused {
		t.Errorf("%v refusals counted, %d answered", got, g.refused)
	}
	return g
}

// wrongPassword prepares a wrong password for a website from a browser.
func wrongPassword(b *browser, domain string, i int) func() page {
	form := url.Values{"password": {fmt.Sprintf("guess %d", i)}, "csrf": {b.token()}}
	return func() page { return b.post("/stats/"+domain, form) }
}

// signInAs prepares a sign-in from a browser.
func signInAs(b *browser, email, password string) func() page {
	form := url.Values{"email": {email}, "password": {password}, "csrf": {b.token()}}
	return func() page { return b.post("/login", form) }
}

// Hundreds of wrong site passwords at once: no more are checked than the limits allow, from
// one address (the client's limit) or from as many addresses (the website's); a browser
// granted the password before keeps reading, and a new one gets in within 15 minutes.
func TestSitePasswordGuessesInParallel(t *testing.T) {
	e := newEnv(t, behindProxy)
	owner := e.UserWithPassword("owner@example.com")
	const websites = 20
	for i := range websites {
		e.Site(owner.Key, fmt.Sprintf("site%d.example", i), "privacy", "2", "password", "right one")
	}
	id := e.Site(owner.Key, "target.example", "privacy", "2", "password", "right one")
	e.Count(id, "2026-03-19", "page", map[string]int64{"/secret-page": 3})
	reader := e.from("192.0.2.1")
	wantStatus(t, "the reader's right password", reader.post("/stats/target.example", url.Values{"password": {"right one"}}), http.StatusSeeOther)

	t.Run("one address", func(t *testing.T) {
		guesser := e.from("203.0.113.1")
		g := e.guessesOf(t, "website_password", 400, func(i int) func() page {
			return wrongPassword(guesser, fmt.Sprintf("site%d.example", i%websites), i)
		})
		if g.evaluated > clientAttempts {
			t.Fatalf("%d wrong passwords of one address checked, the limit is %d", g.evaluated, clientAttempts)
		}
	})
	t.Run("many addresses", func(t *testing.T) {
		g := e.guessesOf(t, "website_password", 400, func(i int) func() page {
			return wrongPassword(e.from(address(i)), "target.example", i)
		})
		if g.evaluated > freeAttempts {
			t.Fatalf("%d wrong passwords of one website checked, the limit is %d", g.evaluated, freeAttempts)
		}
	})
	wantAccess(t, reader, "a reader granted before", "target.example", shown)
	newcomer := e.from("192.0.2.2")
	p := newcomer.post("/stats/target.example", url.Values{"password": {"right one"}})
	wantStatus(t, "a new reader during the guessing", p, http.StatusTooManyRequests)
	e.Clock.Advance(time.Duration(retryAfter(t, p)) * time.Second)
	wantStatus(t, "the new reader after Retry-After", newcomer.post("/stats/target.example", url.Values{"password": {"right one"}}), http.StatusSeeOther)
	wantAccess(t, newcomer, "the new reader", "target.example", shown)
}

// Hundreds of wrong sign-ins at once: no more are checked than the limits allow, from one
// address over many accounts, or from many addresses at one account.
func TestSignInGuessesInParallel(t *testing.T) {
	e := newEnv(t, behindProxy)
	owner := e.UserWithPassword("owner@example.com")

	t.Run("one address", func(t *testing.T) {
		guesser := e.from("203.0.113.1")
		g := e.guessesOf(t, "signin", 400, func(i int) func() page {
			email := fmt.Sprintf("user%d@example.com", i%40) // unknown ones are limited alike
			if i%40 == 0 {
				email = owner.Email
			}
			return signInAs(guesser, email, fmt.Sprintf("guess %d", i))
		})
		if g.evaluated > clientAttempts {
			t.Fatalf("%d wrong sign-ins of one address checked, the limit is %d", g.evaluated, clientAttempts)
		}
	})
	t.Run("many addresses", func(t *testing.T) {
		g := e.guessesOf(t, "signin", 400, func(i int) func() page {
			return signInAs(e.from(address(i)), owner.Email, fmt.Sprintf("guess %d", i))
		})
		if g.evaluated > freeAttempts {
			t.Fatalf("%d wrong sign-ins of one account checked, the limit is %d", g.evaluated, freeAttempts)
		}
	})
	// The owner, in a browser never used here, still gets in within 15 minutes.
	b := e.from("192.0.2.2")
	p := b.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}})
	wantStatus(t, "the owner in a new browser", p, http.StatusTooManyRequests)
	e.Clock.Advance(time.Duration(retryAfter(t, p)) * time.Second)
	b.signIn(owner)
}

// Behind a load balancer, the limits per account and per website are the service's, not each
// node's: guesses spread over two nodes get no more checks than one node would give.
func TestGuessLimitsHoldAcrossNodes(t *testing.T) {
	e := newEnv(t, behindProxy)
	nodes := []*env{e, e.node()}
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "target.example", "privacy", "2", "password", "right one")

	sum := func(a, b guesses) guesses {
		return guesses{sent: a.sent + b.sent, evaluated: a.evaluated + b.evaluated, refused: a.refused + b.refused,
			right: a.right + b.right, wall: max(a.wall, b.wall)}
	}
	// Each node gets half of the attempts, at the same time as the other.
	spread := func(t *testing.T, kind string, attempt func(n *env, i int) func() page) guesses {
		var results [2]guesses
		var wg sync.WaitGroup
		for k, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = n.guessesOf(t, kind, 150, func(i int) func() page { return attempt(n, 2*i+k) })
			}()
		}
		wg.Wait()
		g := sum(results[0], results[1])
		t.Logf("%s, both nodes: %s", t.Name(), g)
		return g
	}
	t.Run("site password", func(t *testing.T) {
		g := spread(t, "website_password", func(n *env, i int) func() page {
			return wrongPassword(n.from(address(i)), "target.example", i)
		})
		if g.evaluated > freeAttempts {
			t.Fatalf("%d wrong passwords of one website checked on two nodes, the limit is %d", g.evaluated, freeAttempts)
		}
	})
	t.Run("sign-in", func(t *testing.T) {
		g := spread(t, "signin", func(n *env, i int) func() page {
			return signInAs(n.from(address(i)), owner.Email, fmt.Sprintf("guess %d", i))
		})
		if g.evaluated > freeAttempts {
			t.Fatalf("%d wrong sign-ins of one account checked on two nodes, the limit is %d", g.evaluated, freeAttempts)
		}
	})
}

// An account or website that keeps being guessed at waits longer and longer between attempts,
// but never more than 15 minutes; its failures are forgiven with time.
func TestGrowingDelaysNeverPassFifteenMinutes(t *testing.T) {
	e := newEnv(t, behindProxy)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "slow.example", "privacy", "2", "password", "right one")
	n := 0
	attempt := func(password string) page { // each from an address of its own
		n++
		return e.from(address(n)).post("/stats/slow.example", url.Values{"password": {password}})
	}
	for i := range freeAttempts {
		wantStatus(t, fmt.Sprintf("wrong password %d", i+1), attempt("wrong"), http.StatusUnauthorized)
	}
	var waits []int
	for range 14 {
		p := attempt("wrong")
		wantStatus(t, "an attempt before the delay is over", p, http.StatusTooManyRequests)
		waits = append(waits, retryAfter(t, p))
		e.Clock.Advance(time.Duration(waits[len(waits)-1]) * time.Second)
		wantStatus(t, "an attempt once the delay is over", attempt("wrong"), http.StatusUnauthorized)
	}
	t.Logf("delays between attempts, in seconds: %v", waits)
	want := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, maxDelay, maxDelay, maxDelay, maxDelay}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("delays %v, want %v", waits, want)
	}
	// Even now the right password gets in within 15 minutes.
	p := attempt("right one")
	wantStatus(t, "the right password during the delay", p, http.StatusTooManyRequests)
	if wait := retryAfter(t, p); wait > maxDelay {
		t.Fatalf("the right password waits %ds", wait)
	}
	e.Clock.Advance(time.Duration(retryAfter(t, p)) * time.Second)
	wantStatus(t, "the right password after the delay", attempt("right one"), http.StatusSeeOther)
	// One failure is forgiven every 15 minutes: after a quiet day the website is as new.
	e.Clock.Advance(24 * time.Hour)
	for i := range freeAttempts {
		wantStatus(t, fmt.Sprintf("a day later, wrong password %d", i+1), attempt("wrong"), http.StatusUnauthorized)
	}
	if p := attempt("wrong"); p.status != http.StatusTooManyRequests || retryAfter(t, p) != 1 {
		t.Fatalf("a day later, past the free attempts: %d, Retry-After %q; want 429, 1", p.status, p.header.Get("Retry-After"))
	}
}

// A browser that signed in to an account before carries a signed device cookie, and is not
// slowed down by guesses at that account from elsewhere; no other cookie exempts.
func TestDeviceCookieExemptsTheOwnersBrowser(t *testing.T) {
	e := newEnv(t, behindProxy)
	owner, other := e.UserWithPassword("owner@example.com"), e.UserWithPassword("other@example.com")
	right := url.Values{"email": {owner.Email}, "password": {owner.Password}}
	wrong := url.Values{"email": {owner.Email}, "password": {"not it"}}

	// The attackers' address is the owner's too (one office, one NAT).
	const office = "203.0.113.1"
	known := e.from(office)
	p := known.post("/login", right)
	wantStatus(t, "sign in", p, http.StatusSeeOther)
	device := setCookie(t, p, "device")
	if device == nil || !device.HttpOnly || device.SameSite != http.SameSiteLaxMode || device.Secure ||
		device.MaxAge < 180*24*3600 || device.Path != "/login" {
		t.Fatalf("device cookie: %+v", device)
	}
	wantStatus(t, "sign out", known.post("/logout", nil), http.StatusSeeOther)
	otherB := e.from(office).signIn(other)
	wantStatus(t, "the other signs out", otherB.post("/logout", nil), http.StatusSeeOther)

	g := e.guessesOf(t, "signin", 300, func(i int) func() page {
		return signInAs(e.from(address(i)), owner.Email, fmt.Sprintf("guess %d", i))
	})
	if g.evaluated > freeAttempts {
		t.Fatalf("%d wrong sign-ins checked, the limit is %d", g.evaluated, freeAttempts)
	}
	wantStatus(t, "a new browser", e.from("192.0.2.2").post("/login", right), http.StatusTooManyRequests)
	for i := range clientAttempts { // and the office's address is past its own limit
		e.from(office).post("/login", url.Values{"email": {fmt.Sprintf("x%d@example.com", i)}, "password": {"x"}})
	}
	wantStatus(t, "a new browser at the office", e.from(office).post("/login", right), http.StatusTooManyRequests)
	wantStatus(t, "the owner's browser, mistyping", known.post("/login", wrong), http.StatusUnauthorized)
	wantStatus(t, "the owner's browser", known.post("/login", right), http.StatusSeeOther)
	wantStatus(t, "the owner's browser signs out", known.post("/logout", nil), http.StatusSeeOther)

	// Another account's device cookie exempts nothing here, nor does a forged or tampered one.
	otherB.header.Set("X-Forwarded-For", "192.0.2.3")
	wantStatus(t, "another account's browser", otherB.post("/login", right), http.StatusTooManyRequests)
	otherDevice := otherB.cookie("/login", "device")
	if otherDevice == nil {
		t.Fatal("the other account's browser has no device cookie")
	}
	_, rest, _ := strings.Cut(otherDevice.Value, ".")
	u, _ := url.Parse(e.Server.URL + "/login")
	for what, value := range map[string]string{
		"a forged device cookie":   fmt.Sprint(owner.ID) + "." + rest,
		"a tampered device cookie": tamper(device.Value),
	} {
		b := e.from("192.0.2.4")
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: "device", Value: value, Path: "/login"}})
		wantStatus(t, what, b.post("/login", right), http.StatusTooManyRequests)
	}

	// The device has a limit of its own: a stolen device cookie is no way to guess fast.
	for i := range clientAttempts - 1 {
		wantStatus(t, fmt.Sprintf("the owner's browser, wrong %d", i+2), known.post("/login", wrong), http.StatusUnauthorized)
	}
	wantStatus(t, "the owner's browser past its own limit", known.post("/login", wrong), http.StatusTooManyRequests)
}

// tamper changes the last character of a signed value.
func tamper(s string) string {
	last := "A"
	if strings.HasSuffix(s, last) {
		last = "B"
	}
	return s[:len(s)-1] + last
}
