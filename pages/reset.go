package pages

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

func htmlEscape(s string) string { return template.HTMLEscapeString(s) }

// resetPage is the data of password_reset.html.
type resetPage struct {
	MailOn bool
	Email  string
	Errors stats.FieldErrors
	Sent   bool
}

func (p *Pages) resetPage(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusOK, "password_reset.html", "Reset your password", resetPage{MailOn: p.mailOn()})
}

// requestReset answers every well-formed address alike, at once: the lookup, the limit of
// ResetsPerHour mails per address and the mail itself run in the background, so neither the
// answer nor its time tells whether the address has an account.
func (p *Pages) requestReset(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	data := resetPage{MailOn: p.mailOn(), Email: strings.TrimSpace(r.PostForm.Get("email")), Errors: stats.FieldErrors{}}
	if !data.MailOn {
		p.render(w, r, http.StatusOK, "password_reset.html", "Reset your password", data)
		return
	}
	email, err := account.NormaliseEmail(data.Email)
	if err != nil {
		data.Errors.Add("email", err.Error())
		p.render(w, r, http.StatusUnprocessableEntity, "password_reset.html", "Reset your password", data)
		return
	}
	// Every request counts, known address or not (the answer must not differ): one client
	// cannot fill the queue that everyone's mail waits in.
	limiter := p.limits.resetClients
	if ok, wait := limiter.Allow(limiter.AddrKey(ratelimit.ClientAddr(r, p.trusted))); !ok {
		p.tooManyOf(w, r, wait, "There were too many requests for reset links from your address.")
		return
	}
	p.outbox.Enqueue(func(ctx context.Context) error {
		token, user, ok, err := p.repo.CreateResetLink(ctx, email, account.ResetTTL, account.ResetsPerHour, resetWindow)
		if err != nil || !ok {
			return err // unknown address or over the limit: no mail, nothing said
		}
		p.mailLink(user.Email, repository.LinkReset, token)
		return nil
	})
	data.Sent = true
	p.render(w, r, http.StatusOK, "password_reset.html", "Reset your password", data)
}

// resetWindow is the span in which an address gets at most account.ResetsPerHour mails.
const resetWindow = time.Hour

// setPasswordPage is the data of set_password.html.
type setPasswordPage struct {
	Token  string
	Kind   string
	Email  string
	Errors stats.FieldErrors
}

// linkGone is the answer to a link that cannot be used.
func (p *Pages) linkGone(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusGone, "error.html", "Link expired", errorPage{Status: http.StatusGone,
		Heading: "This link no longer works",
		Message: "It has expired, was used already, or a newer link replaced it. Ask for a new one: " +
			"reset your password, or ask an admin of this service.",
		Back: "/password-reset", BackLabel: "Reset your password"})
}

// openLink finds the link of the request's token under the per-client limit on guesses: a
// failed lookup is counted (before it is made), a good one is not. ok false: answered.
func (p *Pages) openLink(w http.ResponseWriter, r *http.Request, token string) (repository.Link, bool) {
	var link repository.Link
	ok := p.lookUpToken(w, r, func() (err error) {
		link, err = p.repo.LinkByToken(r.Context(), token)
		return err
	})
	return link, ok
}

// lookUpToken runs the lookup of a one-use link's token (lookup's repository.ErrNotFound: no
// such link, or one that cannot be used) under the per-address limit of the links: a failed
// lookup is counted before it is made, a good one is not. ok false: answered (the 410 page for
// a link that does not work).
func (p *Pages) lookUpToken(w http.ResponseWriter, r *http.Request, lookup func() error) bool {
	return p.lookUpTokenOr(w, r, p.linkGone, lookup)
}

// lookUpTokenOr is lookUpToken answering a token that does not work with gone.
func (p *Pages) lookUpTokenOr(w http.ResponseWriter, r *http.Request, gone http.HandlerFunc, lookup func() error) bool {
	// Tokens never reach a log or another site: no error page logs the query, and no
	// Referer leaves this page.
	w.Header().Set("Referrer-Policy", "no-referrer")
	limiter := p.limits.linkClients
	key := limiter.AddrKey(ratelimit.ClientAddr(r, p.trusted))
	if ok, wait := limiter.Allow(key); !ok {
		p.tooManyOf(w, r, wait, "There were too many links that did not work from your address.")
		return false
	}
	err := lookup()
	if errors.Is(err, repository.ErrNotFound) {
		gone(w, r)
		return false
	}
	limiter.Refund(key)
	if err != nil {
		p.serverError(w, r, err)
		return false
	}
	return true
}

func (p *Pages) setPasswordForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	link, ok := p.openLink(w, r, token)
	if !ok {
		return
	}
	p.render(w, r, http.StatusOK, "set_password.html", setPasswordTitle(link.Kind),
		setPasswordPage{Token: token, Kind: link.Kind, Email: link.Email})
}

func setPasswordTitle(kind string) string {
	if kind == repository.LinkInvite {
		return "Create your account"
	}
	return "Set your password"
}

// setPassword uses a link: it sets the password (an invitation creates the account first),
// ends every session of the user, voids the user's other links, and signs this browser in.
func (p *Pages) setPassword(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	token := r.PostForm.Get("token")
	link, ok := p.openLink(w, r, token)
	if !ok {
		return
	}
	data := setPasswordPage{Token: token, Kind: link.Kind, Email: link.Email, Errors: stats.FieldErrors{}}
	password := passwordFields(r, data.Errors)
	if len(data.Errors) > 0 {
		p.render(w, r, http.StatusUnprocessableEntity, "set_password.html", setPasswordTitle(link.Kind), data)
		return
	}
	hash, err := website.HashPassword(password)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	user, err := p.repo.UseLink(r.Context(), token, hash)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.linkGone(w, r) // used at the same moment by another request
		return
	case errors.Is(err, repository.ErrConflict):
		p.fail(w, r, http.StatusConflict, "The account exists",
			"An account with the address "+link.Email+" was made since this invitation: sign in, or reset its password.")
		return
	case err != nil:
		p.serverError(w, r, err)
		return
	}
	if !p.startSession(w, r, user.ID) {
		return
	}
	p.redirect(w, r, "/account?notice=password", http.StatusSeeOther)
}

// mailOn says whether the accounts' mail is sent: a mail server, and PUBLIC_URL for the links
// it carries.
func (p *Pages) mailOn() bool { return p.outbox.Enabled() && p.links.Public != nil }
