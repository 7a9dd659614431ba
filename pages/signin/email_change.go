package signin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
)

// emailChangeTTL is how long the link that proves a new address works.
const emailChangeTTL = 24 * time.Hour

// emailChangeLimit is how many changes a user may ask for in an hour (each mails an address
// the user picks), as many as reset mails an address gets.
var emailChangeLimit = repository.EmailChangeLimit{Max: 3, Window: time.Hour}

// confirmEmailPage is the data of confirm_email.html.
type confirmEmailPage struct {
	Token, Email, OldEmail string
	Done                   bool // the change is made
}

// moveEmail applies a checked request to change the user's address. With mail on, the new
// address must prove it is the user's: a one-use link goes to it and the address stays as it
// is until the link is opened, while a notice goes to the old address (whose owner learns of
// the request even if it was not theirs). An address another account has is answered, and
// counted, exactly as a free one (only the mail to it differs, and says so): the page must
// not tell a signed-in user which addresses have accounts (docs/hardening.md). Without mail
// nothing can be proved, and the change is made at once, or refused as taken: that answer
// cannot be hidden, so every request counts under the limit. Either way, a change that is
// made ends the user's other sessions and voids their links, as a new password does
// (repository.ChangeEmailNow). It answers the request.
func (p *Handlers) moveEmail(w http.ResponseWriter, r *http.Request, user *repository.User, data accountPage, email string) {
	var req repository.EmailChangeRequest
	var err error
	if p.MailOn() {
		req, err = p.Repo.RequestEmailChange(r.Context(), user.ID, email, emailChangeTTL, emailChangeLimit)
	} else {
		err = p.Repo.ChangeEmailNow(r.Context(), user.ID, email, htmlpage.SessionToken(r), emailChangeLimit)
	}
	switch {
	case errors.Is(err, repository.ErrConflict): // without mail only
		data.EmailErrors.Add("email", "belongs to another account")
		p.renderAccount(w, r, user, http.StatusConflict, data)
		return
	case errors.Is(err, repository.ErrTooManyChanges):
		outcome := "was not sent a link"
		if !p.MailOn() {
			outcome = "was not changed"
		}
		data.EmailErrors.Add("email", outcome+": you asked for 3 changes within the hour; try again later")
		p.renderAccount(w, r, user, http.StatusTooManyRequests, data)
		return
	case err != nil:
		p.ServerError(w, r, err)
		return
	}
	if !p.MailOn() {
		p.Redirect(w, r, "/account?notice=email", http.StatusSeeOther)
		return
	}
	p.mailEmailChange(user.Email, email, req)
	p.Redirect(w, r, "/account?notice=email-sent", http.StatusSeeOther)
}

// mailEmailChange queues the link to the new address (or, when another account has it, a
// mail saying that nothing changes) and the notice to the old one.
func (p *Handlers) mailEmailChange(old, email string, req repository.EmailChangeRequest) {
	host := p.Links.Public.Host
	toNew := func(ctx context.Context) error {
		return p.mailConfirmation(ctx, old, email, req.Token)
	}
	if req.Taken {
		toNew = func(ctx context.Context) error {
			text := fmt.Sprintf("Someone signed in to another account of Analytics at %s asked to make this address that account's.\n\n"+
				"This address already belongs to an account there, so nothing changes: no account was moved to it, and yours stays as it is.\n\n"+
				"If it was you, sign in with this address instead, or use another one.\n", host)
			html := fmt.Sprintf(`<p>Someone signed in to another account of Analytics at %s asked to make this address that account's.</p>`+
				`<p>This address already belongs to an account there, so nothing changes: no account was moved to it, and yours stays as it is.</p>`+
				`<p>If it was you, sign in with this address instead, or use another one.</p>`, htmlEscape(host))
			return p.Outbox.Send(ctx, email, "Someone tried to move an Analytics account to this address", text, html)
		}
	}
	noticeText := fmt.Sprintf("Someone signed in to your account of Analytics at %s, with its password, asked to change its address from %s to %s.\n\n"+
		"Your address stays %s until the link sent to the new address is opened.\n\n"+
		"If this was not you, sign in and change your password now: that signs every other browser out and voids the link.\n", host, old, email, old)
	noticeHTML := fmt.Sprintf(`<p>Someone signed in to your account of Analytics at %s, with its password, asked to change its address from %s to %s.</p>`+
		`<p>Your address stays %s until the link sent to the new address is opened.</p>`+
		`<p>If this was not you, sign in and change your password now: that signs every other browser out and voids the link.</p>`,
		htmlEscape(host), htmlEscape(old), htmlEscape(email), htmlEscape(old))
	p.Outbox.Enqueue(func(ctx context.Context) error {
		return errors.Join(toNew(ctx),
			p.Outbox.Send(ctx, old, "A change of your Analytics address was asked for", noticeText, noticeHTML))
	})
}

// mailConfirmation sends the new address the link that confirms it.
func (p *Handlers) mailConfirmation(ctx context.Context, old, email, token string) error {
	url := p.Links.Public.String() + "/account/email/confirm?token=" + token
	host := p.Links.Public.Host
	confirmText := fmt.Sprintf("Someone, probably you, asked to make this address the one of the account %s of Analytics at %s.\n\n"+
		"Open this link to confirm it (it works once, for 24 hours):\n%s\n\n"+
		"If you did not expect this mail, ignore it: nothing changes.\n", old, host, url)
	confirmHTML := fmt.Sprintf(`<p>Someone, probably you, asked to make this address the one of the account %s of Analytics at %s.</p>`+
		`<p><a href="%s">Confirm the new address</a> (the link works once, for 24 hours).</p>`+
		`<p>If you did not expect this mail, ignore it: nothing changes.</p>`, htmlEscape(old), htmlEscape(host), htmlEscape(url))
	return p.Outbox.Send(ctx, email, "Confirm your new address for Analytics", confirmText, confirmHTML)
}

// openEmailChange finds the change of the request's token under the per-client limit on
// guesses of every one-use link (htmlpage.Base.LookUpTokenOr). ok false: answered.
func (p *Handlers) openEmailChange(w http.ResponseWriter, r *http.Request, token string) (repository.EmailChange, bool) {
	var c repository.EmailChange
	ok := p.LookUpTokenOr(w, r, p.emailLinkGone, func() (err error) {
		c, err = p.Repo.EmailChangeByToken(r.Context(), token)
		return err
	})
	return c, ok
}

// emailLinkGone is the answer to a confirmation link that cannot be used.
func (p *Handlers) emailLinkGone(w http.ResponseWriter, r *http.Request) {
	p.Render(w, r, http.StatusGone, "error.html", "Link expired", htmlpage.ErrorPage{Status: http.StatusGone,
		Heading: "This link no longer works",
		Message: "It has expired (after 24 hours), was used already, or a newer request, a new password " +
			"or another change of address replaced it. The address of the account was not changed by it: " +
			"ask again on your account page.",
		Back: "/account#email", BackLabel: "Your account"})
}

// confirmEmailForm shows what the link would change, with a button: a mail scanner that
// fetches the link changes nothing.
func (p *Handlers) confirmEmailForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	c, ok := p.openEmailChange(w, r, token)
	if !ok {
		return
	}
	p.Render(w, r, http.StatusOK, "confirm_email.html", "Confirm your new address",
		confirmEmailPage{Token: token, Email: c.Email, OldEmail: c.OldEmail})
}

// confirmEmail makes the change, in any browser (the link is the proof); the browser's own
// session is kept if it is the user's, every other one ends.
func (p *Handlers) confirmEmail(w http.ResponseWriter, r *http.Request) {
	if !p.ParseForm(w, r) {
		return
	}
	token := r.PostForm.Get("token")
	c, ok := p.openEmailChange(w, r, token)
	if !ok {
		return
	}
	_, err := p.Repo.ConfirmEmailChange(r.Context(), token, htmlpage.SessionToken(r))
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.emailLinkGone(w, r) // used at the same moment by another request
		return
	case errors.Is(err, repository.ErrConflict):
		p.Fail(w, r, http.StatusConflict, "The address is taken",
			"Another account has had the address "+c.Email+" since you asked for it: the address of your account was not changed.")
		return
	case err != nil:
		p.ServerError(w, r, err)
		return
	}
	p.Render(w, r, http.StatusOK, "confirm_email.html", "Your new address", confirmEmailPage{Email: c.Email, Done: true})
}
