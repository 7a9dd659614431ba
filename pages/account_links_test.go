package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The one-use links of accounts against an attacker: each case of issue 31 (an admin's links
// outliving their rights, links outliving a new password or address, a second invitation
// making a second account), the list of pending links with its revoke button, and races.

// adminLink makes, as the signed-in admin a, an invitation (to an address) or a set-password
// link (for a user id) through the admin page, and returns its token.
func adminLink(t *testing.T, a *browser, path string, form url.Values) string {
	t.Helper()
	p := a.post(path, form)
	wantStatus(t, "make a link at "+path, p, http.StatusOK)
	m := shownLink.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no link shown after %s:\n%.3000s", path, p.body)
	}
	return strings.TrimPrefix(m[1], "/set-password?token=")
}

func invitation(t *testing.T, a *browser, email string, admin bool) string {
	t.Helper()
	form := url.Values{"email": {email}}
	if admin {
		form.Set("admin", "1")
	}
	return adminLink(t, a, "/admin/users", form)
}

// linkWorks says whether a link's form opens (200) or answers that it no longer works (410).
func linkWorks(t *testing.T, e *env, token string) bool {
	t.Helper()
	p := e.browser().get("/set-password?token=" + token)
	switch p.status {
	case http.StatusOK:
		return true
	case http.StatusGone:
		return false
	}
	t.Fatalf("the link answers %d:\n%.2000s", p.status, p.body)
	return false
}

// useLink sets a password through a link, from a new browser.
func useLink(e *env, token, password string) page {
	return e.browser().post("/set-password", url.Values{"token": {token}, "new_password": {password}, "new_password_again": {password}})
}

// (a) and (b): an admin's invitations (making an admin, say) and set-password links stop
// working when that admin is unmade, or removed; the other admin's links keep working.
func TestAdminsLinksVoidedWithTheirRights(t *testing.T) {
	for _, how := range []string{"unmade", "removed"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			root := e.UserWithPassword("root@example.com") // the first user: an admin
			boss := e.UserWithPassword("boss@example.com")
			victim := e.UserWithPassword("victim@example.com")
			if err := e.Repo.SetAdmin(context.Background(), boss.ID, true); err != nil {
				t.Fatal(err)
			}
			r := e.browser().signIn(root)
			b := e.browser().signIn(boss)
			invite := invitation(t, b, "evil@example.com", true)
			setPassword := adminLink(t, b, fmt.Sprintf("/admin/users/%d/link", victim.ID), nil)
			kept := invitation(t, r, "kept@example.com", false)

			switch how {
			case "unmade":
				wantStatus(t, "unmake", r.post(fmt.Sprintf("/admin/users/%d/admin", boss.ID), url.Values{"admin": {"0"}}), http.StatusSeeOther)
			case "removed":
				wantStatus(t, "remove", r.post(fmt.Sprintf("/admin/users/%d/remove", boss.ID), url.Values{"websites": {"0"}}), http.StatusSeeOther)
			}
			for name, token := range map[string]string{"invitation": invite, "set-password link": setPassword} {
				if linkWorks(t, e, token) {
					t.Errorf("the %s of an admin %s still opens", name, how)
				}
				wantStatus(t, "the "+name+" used", useLink(e, token, "attacker's password"), http.StatusGone)
			}
			if n := e.count(`SELECT count(*) FROM users WHERE email = 'evil@example.com'`); n != 0 {
				t.Errorf("the invitation made %d account(s)", n)
			}
			e.browser().signIn(victim) // the victim's password is theirs still
			if !linkWorks(t, e, kept) {
				t.Error("the other admin's invitation was voided too")
			}
		})
	}
}

// (b) and (c): a user's unused links - an admin's set-password link, a reset mailed to the
// old address, an invitation for their address - stop working when the user's password or
// e-mail address changes, by the account page, a link, or the CLI's `user password`.
func TestUserLinksVoidedByNewPasswordOrAddress(t *testing.T) {
	for _, how := range []string{"account password", "account e-mail", "reset link", "cli password"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			admin := e.UserWithPassword("admin@example.com")
			a := e.browser().signIn(admin)
			user := e.UserWithPassword("user@example.com")
			// An invitation for the address, as one made before the account was (by the CLI).
			invite, err := e.Repo.CreateLink(ctx, repository.Link{Kind: repository.LinkInvite, Email: user.Email,
				MakeAdmin: true, CreatedBy: &admin.ID}, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			setPassword := adminLink(t, a, fmt.Sprintf("/admin/users/%d/link", user.ID), nil)
			reset, _, ok, err := e.Repo.CreateResetLink(ctx, user.Email, time.Hour, 3, time.Hour)
			if err != nil || !ok {
				t.Fatalf("reset link: %v %v", ok, err)
			}
			links := map[string]string{"invitation": invite, "set-password link": setPassword, "reset link": reset}
			for name, token := range links {
				if !linkWorks(t, e, token) {
					t.Fatalf("the %s does not work to begin with", name)
				}
			}

			u := e.browser().signIn(user)
			switch how {
			case "account password":
				wantStatus(t, how, u.post("/account/password", url.Values{"current_password": {user.Password},
					"new_password": {"the user's new pw"}, "new_password_again": {"the user's new pw"}}), http.StatusSeeOther)
			case "account e-mail":
				wantStatus(t, how, u.post("/account/email", url.Values{"email": {"moved@example.com"}, "current_password": {user.Password}}), http.StatusSeeOther)
			case "reset link":
				second, _, ok, err := e.Repo.CreateResetLink(ctx, user.Email, time.Hour, 3, time.Hour)
				if err != nil || !ok {
					t.Fatalf("second reset link: %v %v", ok, err)
				}
				wantStatus(t, how, useLink(e, second, "the user's new pw"), http.StatusSeeOther)
			case "cli password":
				// What `analytics user password` calls.
				if err := e.Repo.SetUserPassword(ctx, user.Email, "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA"); err != nil {
					t.Fatal(err)
				}
			}
			for name, token := range links {
				if linkWorks(t, e, token) {
					t.Errorf("after the %s changed, the %s still opens", how, name)
				}
				wantStatus(t, "the "+name+" used", useLink(e, token, "attacker's password"), http.StatusGone)
			}
			if n := e.count(`SELECT count(*) FROM users`); n != 2 {
				t.Errorf("%d users, want 2", n)
			}
		})
	}
}

// (d): of two invitations for one address, accepting one voids the other, so that no second
// (admin) account is made with it, even once the first account moved to another address; and
// inviting the address again answers as inviting an existing user does.
func TestSecondInvitationMakesNoSecondAccount(t *testing.T) {
	e := newEnv(t)
	admin := e.UserWithPassword("admin@example.com")
	a := e.browser().signIn(admin)
	first := invitation(t, a, "boss@example.com", true)
	second := invitation(t, a, "Boss@Example.com", true)
	wantStatus(t, "accept the first", useLink(e, first, "the boss's password"), http.StatusSeeOther)
	if linkWorks(t, e, second) {
		t.Error("the second invitation still opens after the first was accepted")
	}
	boss := harness.User{Email: "boss@example.com", Password: "the boss's password"}
	wantStatus(t, "move away", e.browser().signIn(boss).post("/account/email",
		url.Values{"email": {"boss@elsewhere.example"}, "current_password": {boss.Password}}), http.StatusSeeOther)
	wantStatus(t, "the second invitation", useLink(e, second, "a second password"), http.StatusGone)
	if n := e.count(`SELECT count(*) FROM users WHERE is_admin`); n != 2 {
		t.Fatalf("%d admins, want 2 (no second account from the second invitation)", n)
	}

	// Invited again, the address that has an account is told so.
	p := a.post("/admin/users", url.Values{"email": {"boss@elsewhere.example"}, "admin": {"1"}})
	wantStatus(t, "invite an existing user", p, http.StatusConflict)
	wantBody(t, "invite an existing user", p, "already has an account")
}

// /admin/users lists the pending links (kind, made by, for, made, expires; never a token) and
// revokes one by a form with the CSRF token; a revoked link answers as an expired one.
func TestPendingLinksListedAndRevoked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	admin := e.UserWithPassword("admin@example.com")
	user := e.UserWithPassword("user@example.com")
	a := e.browser().signIn(admin)
	invite := invitation(t, a, "new@example.com", true)
	e.Clock.Advance(time.Minute)
	setPassword := adminLink(t, a, fmt.Sprintf("/admin/users/%d/link", user.ID), nil)
	reset, _, ok, err := e.Repo.CreateResetLink(ctx, user.Email, time.Hour, 3, time.Hour)
	if err != nil || !ok {
		t.Fatalf("reset link: %v %v", ok, err)
	}
	used := invitation(t, a, "used@example.com", false)
	wantStatus(t, "accept", useLink(e, used, "a good password"), http.StatusSeeOther)

	page := a.get("/admin/users")
	wantStatus(t, "the list", page, http.StatusOK)
	wantBody(t, "the list", page, `id="links"`,
		"Invitation (admin)", "new@example.com", "2026-03-20 12:00", "2026-03-27 12:00",
		"Set-password link", "Password reset", "asked by e-mail", "2026-03-20 13:01")
	if n := strings.Count(page.body, `action="/admin/links/`); n != 3 {
		t.Errorf("%d revoke buttons, want 3 (the used invitation is not pending)", n)
	}
	for _, token := range []string{invite, setPassword, reset, used} {
		if strings.Contains(page.body, token) {
			t.Fatal("the list shows a link's token")
		}
	}
	var id int64
	if err := e.DB.Get(&id, `SELECT id FROM account_links WHERE email = 'new@example.com'`); err != nil {
		t.Fatal(err)
	}
	revoke := fmt.Sprintf("/admin/links/%d/revoke", id)
	wantStatus(t, "revoke without the CSRF token", a.post(revoke, url.Values{"csrf": {"forged"}}), http.StatusForbidden)
	wantStatus(t, "revoke by a non-admin", e.browser().signIn(user).post(revoke, nil), http.StatusForbidden)
	if !linkWorks(t, e, invite) {
		t.Fatal("a refused revocation voided the link")
	}
	done := a.post(revoke, nil)
	wantStatus(t, "revoke", done, http.StatusSeeOther)
	wantBody(t, "after revoking", a.get(done.header.Get("Location")), "The link was revoked")
	gone := e.browser().get("/set-password?token=" + invite)
	wantStatus(t, "a revoked link", gone, http.StatusGone)
	wantBody(t, "a revoked link", gone, "This link no longer works")
	again := a.post(revoke, nil)
	wantStatus(t, "revoke again", again, http.StatusNotFound)
	wantBody(t, "revoke again", again, "No such link")
	if p := a.get("/admin/users"); strings.Contains(p.body, revoke) {
		t.Error("the revoked link is still listed")
	}
	if !linkWorks(t, e, setPassword) || !linkWorks(t, e, reset) {
		t.Error("revoking one link voided others")
	}
	for _, token := range []string{invite, setPassword, reset, used} {
		if strings.Contains(e.Logs.String(), token) {
			t.Fatalf("a link's token is in the log:\n%s", e.Logs)
		}
	}
}

// Accepting one invitation from 20 requests at once (each from its own address, so no limit
// refuses them) makes one account; so does accepting two invitations of one address at once.
func TestInvitationAcceptedOnceUnderRace(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	admin := e.UserWithPassword("admin@example.com")
	a := e.browser().signIn(admin)
	one := invitation(t, a, "one@example.com", true)
	twins := []string{invitation(t, a, "two@example.com", true), invitation(t, a, "TWO@example.com", true)}

	race := func(tokens []string, n int) map[int]int {
		browsers := make([]*browser, n)
		forms := make([]url.Values, n)
		for i := range browsers {
			browsers[i] = e.browser()
			browsers[i].header.Set("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1))
			forms[i] = url.Values{"csrf": {browsers[i].token()}, "token": {tokens[i%len(tokens)]},
				"new_password": {fmt.Sprintf("password %d", i)}, "new_password_again": {fmt.Sprintf("password %d", i)}}
		}
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for i, b := range browsers {
			wg.Go(func() {
				p := b.postRaw("/set-password", forms[i])
				mu.Lock()
				statuses[p.status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		return statuses
	}
	statuses := race([]string{one}, 20)
	if statuses[http.StatusSeeOther] != 1 || statuses[http.StatusGone] != 19 {
		t.Errorf("20 acceptances of one invitation answered %v, want one 303 and 19 410", statuses)
	}
	statuses = race(twins, 20)
	if statuses[http.StatusSeeOther] != 1 || statuses[http.StatusSeeOther]+statuses[http.StatusGone]+statuses[http.StatusConflict] != 20 {
		t.Errorf("20 acceptances of two invitations of one address answered %v, want one 303 and the others 410 or 409", statuses)
	}
	for _, email := range []string{"one@example.com", "two@example.com"} {
		if n := e.count(`SELECT count(*) FROM users WHERE lower(email) = $1`, email); n != 1 {
			t.Errorf("%d accounts for %s, want 1", n, email)
		}
	}
	if n := e.count(`SELECT count(*) FROM account_links WHERE used_at IS NULL AND expires_at > $1`, e.Clock.Now()); n != 0 {
		t.Errorf("%d links still pending", n)
	}
}
