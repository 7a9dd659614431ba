package signin

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/pages/htmlpage"
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

func (p *Handlers) resetPage(w http.ResponseWriter, r *http.Request) {
	p.Render(w, r, http.StatusOK, "password_reset.html", "Reset your password", resetPage{MailOn: p.MailOn()})
}

// requestReset answers every well-formed address alike, at once: the lookup, the limit of
// ResetsPerHour mails per address and the mail itself run in the background, so neither the
// answer nor its time tells whether the address has an account.
func (p *Handlers) requestReset(w http.ResponseWriter, r *http.Request) {
	if !p.ParseForm(w, r) {
		return
	}
	data := resetPage{MailOn: p.MailOn(), Email: strings.TrimSpace(r.PostForm.Get("email")), Errors: stats.FieldErrors{}}
	if !data.MailOn {
		p.Render(w, r, http.StatusOK, "password_reset.html", "Reset your password", data)
		return
	}
	email, err := account.NormaliseEmail(data.Email)
	if err != nil {
		data.Errors.Add("email", err.Error())
		p.Render(w, r, http.StatusUnprocessableEntity, "password_reset.html", "Reset your password", data)
		return
	}
	// One client cannot fill the queue that everyone's mail waits in.
	if !p.AllowResetRequest(w, r) {
		return
	}
	p.Outbox.Enqueue(func(ctx context.Context) error {
		token, user, ok, err := p.Repo.CreateResetLink(ctx, email, account.ResetTTL, account.ResetsPerHour, resetWindow)
		if err != nil || !ok {
			return err // unknown address or over the limit: no mail, nothing said
		}
		p.MailLink(user.Email, repository.LinkReset, token)
		return nil
	})
	data.Sent = true
	p.Render(w, r, http.StatusOK, "password_reset.html", "Reset your password", data)
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

// openLink finds the link of the request's token under the per-client limit on guesses: a
// failed lookup is counted (before it is made), a good one is not. ok false: answered.
func (p *Handlers) openLink(w http.ResponseWriter, r *http.Request, token string) (repository.Link, bool) {
	var link repository.Link
	ok := p.LookUpToken(w, r, func() (err error) {
		link, err = p.Repo.LinkByToken(r.Context(), token)
		return err
	})
	return link, ok
}

func (p *Handlers) setPasswordForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	link, ok := p.openLink(w, r, token)
	if !ok {
		return
	}
	p.Render(w, r, http.StatusOK, "set_password.html", setPasswordTitle(link.Kind),
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
func (p *Handlers) setPassword(w http.ResponseWriter, r *http.Request) {
	if !p.ParseForm(w, r) {
		return
	}
	token := r.PostForm.Get("token")
	link, ok := p.openLink(w, r, token)
	if !ok {
		return
	}
	data := setPasswordPage{Token: token, Kind: link.Kind, Email: link.Email, Errors: stats.FieldErrors{}}
	password := htmlpage.PasswordFields(r, data.Errors)
	if len(data.Errors) > 0 {
		p.Render(w, r, http.StatusUnprocessableEntity, "set_password.html", setPasswordTitle(link.Kind), data)
		return
	}
	hash, err := website.HashPassword(password)
	if err != nil {
		p.ServerError(w, r, err)
		return
	}
	user, err := p.Repo.UseLink(r.Context(), token, hash)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.LinkGone(w, r) // used at the same moment by another request
		return
	case errors.Is(err, repository.ErrConflict):
		p.Fail(w, r, http.StatusConflict, "The account exists",
			"An account with the address "+link.Email+" was made since this invitation: sign in, or reset its password.")
		return
	case err != nil:
		p.ServerError(w, r, err)
		return
	}
	if !p.StartSession(w, r, user.ID) {
		return
	}
	p.Redirect(w, r, "/account?notice=password", http.StatusSeeOther)
}

// mailOn says whether the accounts' mail is sent: a mail server, and PUBLIC_URL for the links
// it carries.
func (p *Handlers) mailOn() bool { return p.Outbox.Enabled() && p.Links.Public != nil }
