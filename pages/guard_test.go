package pages_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The three kinds of stats page go through the same guard.
var statsPages = []struct{ name, path string }{
	{"dashboard", "/stats/%s"},
	{"full list", "/stats/%s/page"},
	{"export", "/stats/%s/export?name=page"},
}

// what a viewer gets on every stats page of a website
const (
	shown   = http.StatusOK
	hidden  = http.StatusNotFound
	askPass = http.StatusUnauthorized
)

// wantAccess checks one viewer on every stats page of a domain. A shown page must hold the
// stats (the page value "/secret-page"); a hidden one must be the unknown-domain page; a locked
// one the password form.
func wantAccess(t *testing.T, b *browser, who, domain string, want int) {
	t.Helper()
	unknown := b.get("/stats/no-such-site.example")
	for _, sp := range statsPages {
		p := b.get(fmt.Sprintf(sp.path, domain))
		what := fmt.Sprintf("%s on the %s of %s", who, sp.name, domain)
		wantStatus(t, what, p, want)
		switch want {
		case shown:
			if !strings.Contains(p.body, "/secret-page") {
				t.Fatalf("%s: the stats are not on the page:\n%.1500s", what, p.body)
			}
		case hidden:
			if p.body != unknown.body {
				t.Fatalf("%s: the 404 differs from an unknown domain's:\n%s\n---\n%s", what, p.body, unknown.body)
			}
		case askPass:
			if !strings.Contains(p.body, `name="password"`) || strings.Contains(p.body, "/secret-page") {
				t.Fatalf("%s: want the password form and no stats:\n%.1500s", what, p.body)
			}
		}
	}
}

func TestPrivacyGuard(t *testing.T) {
	e := newEnv(t)
	owner, other := e.UserWithPassword("owner@example.com"), e.UserWithPassword("other@example.com")
	ids := map[string]int64{
		"public.example":   e.Site(owner.Key, "public.example", "privacy", "0"),
		"private.example":  e.Site(owner.Key, "private.example", "privacy", "1"),
		"password.example": e.Site(owner.Key, "password.example", "privacy", "2", "password", "open sesame"),
		"second.example":   e.Site(owner.Key, "second.example", "privacy", "2", "password", "open sesame"),
	}
	for _, id := range ids {
		e.Count(id, "2026-03-19", "page", map[string]int64{"/secret-page": 3})
	}
	stranger := e.browser()
	ownerB := e.browser().signIn(owner)
	otherB := e.browser().signIn(other)
	holder := e.browser()

	t.Run("before any password", func(t *testing.T) {
		for _, v := range []struct {
			who string
			b   *browser
		}{{"stranger", stranger}, {"another user", otherB}, {"holder", holder}} {
			wantAccess(t, v.b, v.who, "public.example", shown)
			wantAccess(t, v.b, v.who, "private.example", hidden)
			wantAccess(t, v.b, v.who, "password.example", askPass)
		}
		for _, d := range []string{"public.example", "private.example", "password.example"} {
			wantAccess(t, ownerB, "owner", d, shown)
		}
	})

	t.Run("a wrong password", func(t *testing.T) {
		began := time.Now()
		p := holder.post("/stats/password.example", url.Values{"password": {"open sesame!"}})
		wantStatus(t, "wrong password", p, askPass)
		if took := time.Since(began); took < failureDelay {
			t.Fatalf("a wrong password was answered in %v, before the %v floor", took, failureDelay)
		}
		if !strings.Contains(p.body, "not right") || holder.cookie("/stats/password.example", "grant_"+fmt.Sprint(ids["password.example"])) != nil {
			t.Fatalf("wrong password: no error shown, or a grant given:\n%s", p.body)
		}
		wantAccess(t, holder, "holder", "password.example", askPass)
	})

	t.Run("the right password opens that website only", func(t *testing.T) {
		// Entered on the full list: the answer goes back to it.
		p := holder.post("/stats/password.example/page?sort=asc", url.Values{"password": {"open sesame"}})
		wantStatus(t, "right password", p, http.StatusSeeOther)
		if loc := p.header.Get("Location"); loc != "/stats/password.example/page?sort=asc" {
			t.Fatalf("after the password: Location %q", loc)
		}
		grant := holder.cookie("/stats/password.example", fmt.Sprintf("grant_%d", ids["password.example"]))
		if grant == nil {
			t.Fatal("no grant cookie for the website's pages")
		}
		if holder.cookie("/stats/second.example", fmt.Sprintf("grant_%d", ids["password.example"])) != nil {
			t.Fatal("the grant cookie is sent to another website's pages")
		}
		wantAccess(t, holder, "holder", "password.example", shown)
		wantAccess(t, holder, "holder", "second.example", askPass) // same password, other website
		wantAccess(t, stranger, "stranger", "password.example", askPass)
	})

	t.Run("a new password voids the grant", func(t *testing.T) {
		status, body := e.api("PATCH", fmt.Sprintf("/api/v1/websites/%d", ids["password.example"]), owner.Key,
			url.Values{"password": {"new secret"}})
		if status != 200 {
			t.Fatalf("change password: %d %s", status, body)
		}
		wantAccess(t, holder, "holder after a password change", "password.example", askPass)
		wantAccess(t, ownerB, "owner", "password.example", shown)
		holder.post("/stats/password.example", url.Values{"password": {"new secret"}})
		wantAccess(t, holder, "holder with the new password", "password.example", shown)
	})

	t.Run("a privacy change voids the grant, even undone", func(t *testing.T) {
		path := fmt.Sprintf("/api/v1/websites/%d", ids["password.example"])
		for _, privacy := range []string{"0", "2"} {
			if status, body := e.api("PATCH", path, owner.Key, url.Values{"privacy": {privacy}}); status != 200 {
				t.Fatalf("privacy %s: %d %s", privacy, status, body)
			}
		}
		wantAccess(t, holder, "holder after privacy 2 -> 0 -> 2", "password.example", askPass)
		holder.post("/stats/password.example", url.Values{"password": {"new secret"}})
		wantAccess(t, holder, "holder again", "password.example", shown)
		if status, body := e.api("PATCH", path, owner.Key, url.Values{"privacy": {"1"}}); status != 200 {
			t.Fatalf("privacy 1: %d %s", status, body)
		}
		wantAccess(t, holder, "holder after privacy 1", "password.example", hidden)
		wantAccess(t, ownerB, "owner", "password.example", shown)
		// Entering the password of a private website gets the same 404, not a grant.
		p := holder.post("/stats/password.example", url.Values{"password": {"new secret"}})
		wantStatus(t, "password of a private website", p, hidden)
	})

	t.Run("removing the password makes a website with privacy 0 public", func(t *testing.T) {
		path := fmt.Sprintf("/api/v1/websites/%d", ids["password.example"])
		if status, body := e.api("PATCH", path, owner.Key, url.Values{"privacy": {"0"}, "password": {""}}); status != 200 || !strings.Contains(body, `"password":false`) {
			t.Fatalf("remove password: %d %s", status, body)
		}
		wantAccess(t, stranger, "stranger", "password.example", shown)
	})

	t.Run("another user sees nothing of the owner's", func(t *testing.T) {
		for _, id := range ids {
			for _, path := range []string{"/websites/%d/edit", "/websites/%d/delete"} {
				wantStatus(t, "other user on "+path, otherB.get(fmt.Sprintf(path, id)), hidden)
			}
			p := otherB.post(fmt.Sprintf("/websites/%d/delete", id), nil)
			wantStatus(t, "other user deleting", p, hidden)
		}
		home := otherB.get("/")
		wantStatus(t, "other user's home", home, shown)
		for domain := range ids {
			if strings.Contains(home.body, domain) {
				t.Fatalf("another user's home lists %s", domain)
			}
		}
		if _, err := e.Repo.Website(t.Context(), owner.ID, ids["public.example"]); err != nil {
			t.Fatalf("the owner's website is gone after another user's delete: %v", err)
		}
	})
}

// Wrong passwords are limited per client: past the limit even the right password is refused
// until the window ends; another client is not held by the first one's failures; the owner is
// never locked out. (The limit per website: guessing_test.go.)
func TestPasswordAttemptsAreLimited(t *testing.T) {
	e := newEnv(t, behindProxy)
	owner := e.UserWithPassword("owner@example.com")
	// Guesses spread over three websites, so that no website's own limit comes first.
	domains := []string{"a.example", "b.example", "c.example"}
	for _, d := range domains {
		id := e.Site(owner.Key, d, "privacy", "2", "password", "right one")
		e.Count(id, "2026-03-19", "page", map[string]int64{"/secret-page": 3})
	}
	guesser := e.from("203.0.113.1")
	for i := 0; i < 10; i++ {
		wantStatus(t, fmt.Sprintf("wrong password %d", i+1),
			guesser.post("/stats/"+domains[i%3], url.Values{"password": {fmt.Sprintf("guess %d", i)}}), askPass)
	}
	p := guesser.post("/stats/b.example", url.Values{"password": {"right one"}})
	wantStatus(t, "right password past the client's limit", p, http.StatusTooManyRequests)
	if p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Too many") {
		t.Fatalf("429 without Retry-After or explanation: %v\n%s", p.header, p.body)
	}
	// Another client is not held by the first one's failures.
	wantStatus(t, "another client", e.from("203.0.113.2").post("/stats/b.example", url.Values{"password": {"right one"}}), http.StatusSeeOther)
	wantAccess(t, e.from("203.0.113.1").signIn(owner), "owner", "a.example", shown)

	e.Clock.Advance(16 * time.Minute)
	wantStatus(t, "right password after the window", guesser.post("/stats/c.example", url.Values{"password": {"right one"}}), http.StatusSeeOther)
}

// Every page, and above all one shown to a signed-in owner or through a password grant, is
// no-store: after signing out, or once the grant ends, no cache still holds the numbers.
func TestPagesAreNotStored(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "locked.example", "privacy", "2", "password", "letmein")
	e.Site(owner.Key, "private.example", "privacy", "1")

	signedIn := e.browser().signIn(owner)
	granted := e.browser()
	if p := granted.post("/stats/locked.example", url.Values{"password": {"letmein"}}); p.status != http.StatusSeeOther {
		t.Fatalf("grant: %d", p.status)
	}
	for _, c := range []struct {
		name string
		b    *browser
		path string
	}{
		{"owner's websites", signedIn, "/"},
		{"owner's private dashboard", signedIn, "/stats/private.example"},
		{"owner's export", signedIn, "/stats/private.example/export?name=page"},
		{"granted dashboard", granted, "/stats/locked.example"},
		{"granted list", granted, "/stats/locked.example/page"},
		{"sign-in page", e.browser(), "/login"},
	} {
		p := c.b.get(c.path)
		if p.status != http.StatusOK || p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d, Cache-Control %q, want no-store", c.name, p.status, p.header.Get("Cache-Control"))
		}
	}
}
