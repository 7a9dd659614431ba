package pages_test

import (
	"bytes"
	"context"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/testkit/harness"
)

var mailedConfirmation = regexp.MustCompile(`https?://[^/\s"]+/account/email/confirm\?token=([A-Za-z0-9_-]+)`)

// mailText is a mail's text, its quoted-printable undone.
func mailText(m smtptest.Received) string {
	text, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(m.Data)))
	return string(text)
}

// changeMails waits for the two mails of an e-mail change request (the link to the new address
// and the notice to the old one) and returns the link's token and the notice's text.
func changeMails(t *testing.T, smtp *smtptest.Server, before int, to, old string) (token, notice string) {
	t.Helper()
	msgs := smtp.WaitFor(t, before+2, 10*time.Second)[before:]
	for _, m := range msgs {
		text := mailText(m)
		switch m.To[0] {
		case to:
			found := mailedConfirmation.FindStringSubmatch(text)
			if found == nil {
				t.Fatalf("no confirmation link in the mail to %s:\n%s", to, text)
			}
			token = found[1]
		case old:
			notice = text
		default:
			t.Fatalf("a mail to %v", m.To)
		}
	}
	if token == "" || notice == "" {
		t.Fatalf("the mails went to %v and %v, want %s and %s", msgs[0].To, msgs[1].To, to, old)
	}
	return token, notice
}

func (e *env) emailOf(id int64) string {
	e.T.Helper()
	var email string
	if err := e.DB.Get(&email, `SELECT email FROM users WHERE id = $1`, id); err != nil {
		e.T.Fatal(err)
	}
	return email
}

// With mail, a new address is taken only once the link mailed to it is opened: until then the
// old address signs in, and it is told of the request. The change then ends the user's other
// sessions and voids the links mailed to the old address. A link used, replaced or expired,
// and an address another account took meanwhile, change nothing and say so.
func TestEmailChangeConfirmedByLink(t *testing.T) {
	e, smtp := resetEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)
	other := e.browser().signIn(owner)
	reset, _, _, err := e.Repo.CreateResetLink(context.Background(), owner.Email, time.Hour, 3, time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	// A first request, replaced by a second: only the newest link works.
	p := b.post("/account/email", url.Values{"email": {"first@example.com"}, "current_password": {owner.Password}})
	wantStatus(t, "request", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); !strings.HasSuffix(loc, "/account?notice=email-sent") {
		t.Fatalf("after the request: %s", loc)
	}
	replaced, notice := changeMails(t, smtp, 0, "first@example.com", "owner@example.com")
	if !strings.Contains(notice, "from owner@example.com to first@example.com") {
		t.Fatalf("the old address is not told of the change:\n%s", notice)
	}
	p = b.post("/account/email", url.Values{"email": {"New@Example.com"}, "current_password": {owner.Password}})
	wantStatus(t, "second request", p, http.StatusSeeOther)
	token, _ := changeMails(t, smtp, 2, "New@Example.com", "owner@example.com")

	// Until the link is opened the address is the old one, which signs in.
	if got := e.emailOf(owner.ID); got != "owner@example.com" {
		t.Fatalf("the address changed before the link was opened: %s", got)
	}
	e.browser().signIn(owner)
	wantBody(t, "the account page", b.get("/account"), "A link to confirm <strong>New@Example.com</strong> was sent")
	form := e.browser().get("/account/email/confirm?token=" + token)
	wantStatus(t, "the link", form, http.StatusOK)
	wantBody(t, "the link", form, "Confirm the new address", "New@Example.com")
	if e.emailOf(owner.ID) != "owner@example.com" {
		t.Fatal("opening the link (GET) changed the address")
	}
	gone := e.browser().post("/account/email/confirm", url.Values{"token": {replaced}})
	wantStatus(t, "a replaced link", gone, http.StatusGone)
	wantBody(t, "a replaced link", gone, "This link no longer works")

	forged := b.post("/account/email/confirm", url.Values{"csrf": {"forged"}, "token": {token}})
	wantStatus(t, "a forged form", forged, http.StatusForbidden)
	if e.emailOf(owner.ID) != "owner@example.com" {
		t.Fatal("a form with a bad CSRF token changed the address")
	}

	// Confirmed in the browser that asked: it stays signed in, the other is signed out.
	done := b.post("/account/email/confirm", url.Values{"token": {token}})
	wantStatus(t, "confirm", done, http.StatusOK)
	wantBody(t, "confirm", done, "The address of your account is now <strong>New@Example.com</strong>")
	if got := e.emailOf(owner.ID); got != "New@Example.com" {
		t.Fatalf("the address is %s after the confirmation", got)
	}
	wantStatus(t, "this browser, still signed in", b.get("/account"), http.StatusOK)
	if p := other.get("/account"); p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Location"), "/login") {
		t.Fatalf("the other browser is still signed in: %d %s", p.status, p.header.Get("Location"))
	}
	wantStatus(t, "the reset link mailed to the old address", e.browser().get("/set-password?token="+reset), http.StatusGone)
	wantStatus(t, "the link again", e.browser().post("/account/email/confirm", url.Values{"token": {token}}), http.StatusGone)
	e.browser().signIn(harness.User{Email: "new@example.com", Password: owner.Password})
	if p := e.browser().post("/login", url.Values{"email": {"owner@example.com"}, "password": {owner.Password}}); p.status == http.StatusSeeOther {
		t.Fatal("the old address still signs in")
	}

	// An address another account took after the request is refused at confirmation.
	sent := len(smtp.Messages())
	wantStatus(t, "request", b.post("/account/email", url.Values{"email": {"later@example.com"}, "current_password": {owner.Password}}), http.StatusSeeOther)
	taken, _ := changeMails(t, smtp, sent, "later@example.com", "New@Example.com")
	if _, err := e.Repo.CreateUser(context.Background(), "LATER@example.com"); err != nil {
		t.Fatal(err)
	}
	refused := b.post("/account/email/confirm", url.Values{"token": {taken}})
	wantStatus(t, "a taken address", refused, http.StatusConflict)
	wantBody(t, "a taken address", refused, "Another account has had the address later@example.com")
	if e.emailOf(owner.ID) != "New@Example.com" {
		t.Fatal("a taken address was given to a second account")
	}

	// A link older than 24 hours changes nothing (an hour on: three requests an hour).
	e.Clock.Advance(time.Hour)
	sent = len(smtp.Messages())
	wantStatus(t, "request", b.post("/account/email", url.Values{"email": {"late@example.com"}, "current_password": {owner.Password}}), http.StatusSeeOther)
	late, _ := changeMails(t, smtp, sent, "late@example.com", "New@Example.com")
	e.Clock.Advance(24*time.Hour + time.Minute)
	wantStatus(t, "an expired link", e.browser().post("/account/email/confirm", url.Values{"token": {late}}), http.StatusGone)
	if e.emailOf(owner.ID) != "New@Example.com" {
		t.Fatal("an expired link changed the address")
	}

	// Only hashes are stored, and no token reaches the log.
	if n := e.count(`SELECT count(*) FROM email_changes WHERE token_hash = sha256(convert_to($1, 'UTF8'))`, token); n != 1 {
		t.Fatalf("%d changes stored under the token's SHA-256, want 1", n)
	}
	for _, tok := range []string{token, replaced, taken, late} {
		if strings.Contains(e.Logs.String(), tok) {
			t.Fatalf("a token is in the log:\n%s", e.Logs)
		}
	}
}

// An address another account has is answered exactly as a free one (the same redirect, the
// same account page) and counts under the limit of 3 requests an hour, so that a signed-in
// user cannot test which addresses have accounts: only the mail to that address says that
// nothing changes, and it carries no link.
func TestEmailChangeTakenAddressAnswersAsAFreeOne(t *testing.T) {
	e, smtp := resetEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.UserWithPassword("taken@example.com")
	b := e.browser().signIn(owner)
	request := func(email string) page {
		t.Helper()
		return b.post("/account/email", url.Values{"email": {email}, "current_password": {owner.Password}})
	}
	taken, free := request("TAKEN@example.com"), request("free@example.com")
	for name, p := range map[string]page{"a taken address": taken, "a free address": free} {
		wantStatus(t, name, p, http.StatusSeeOther)
		if loc := p.header.Get("Location"); !strings.HasSuffix(loc, "/account?notice=email-sent") {
			t.Errorf("%s: answered with %s", name, loc)
		}
	}
	msgs := smtp.WaitFor(t, 4, 10*time.Second)
	to := map[string]string{}
	for _, m := range msgs {
		to[m.To[0]] += mailText(m)
	}
	if mail := to["TAKEN@example.com"]; !strings.Contains(mail, "already belongs to an account") || mailedConfirmation.MatchString(mail) {
		t.Errorf("the mail to the taken address:\n%s", mail)
	}
	if !mailedConfirmation.MatchString(to["free@example.com"]) {
		t.Errorf("no link in the mail to the free address:\n%s", to["free@example.com"])
	}
	if notice := to["owner@example.com"]; !strings.Contains(notice, "to TAKEN@example.com.") || !strings.Contains(notice, "to free@example.com.") {
		t.Errorf("the old address is not told of both requests:\n%s", notice)
	}
	if got := e.emailOf(owner.ID); got != "owner@example.com" {
		t.Fatalf("the address changed: %s", got)
	}
	same := request("owner@example.com")
	wantStatus(t, "the same address", same, http.StatusUnprocessableEntity)
	wantBody(t, "the same address", same, "is your address already")

	// The taken address counted: a third request is the last of the hour.
	wantStatus(t, "a third request", request("third@example.com"), http.StatusSeeOther)
	p := request("one-more@example.com")
	wantStatus(t, "a fourth request within the hour", p, http.StatusTooManyRequests)
	wantBody(t, "a fourth request within the hour", p, "you asked for 3 changes within the hour")
	smtp.WaitFor(t, 6, 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	if n := len(smtp.Messages()); n != 6 {
		t.Fatalf("%d mails for 3 requests and a refused one, want 6", n)
	}
	e.Clock.Advance(time.Hour + time.Second)
	wantStatus(t, "an hour later", request("one-more@example.com"), http.StatusSeeOther)
}
