package pages

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// adminPage is the data of admin_users.html.
type adminPage struct {
	Users []userRow
	// Links are the pending one-use links (the newest maxPendingLinks), of LinksTotal.
	Links      []linkRow
	LinksTotal int
	Me         int64
	Form       inviteForm
	Notice     string
	// Link is a one-use link to show the admin, this once, for LinkFor; LinkKind says what it does.
	Link, LinkFor, LinkKind string
	MailOn                  bool // invitations go by e-mail
	TOTPRequired            bool // every user must have two-factor sign-in on
}

type userRow struct {
	repository.UserRow
	Created string
}

// inviteForm is the invitation form's values and refusals.
type inviteForm struct {
	Email  string
	Admin  bool
	Errors stats.FieldErrors
}

var adminNotices = map[string]string{
	"admin":   "The user is an admin now.",
	"unadmin": "The user is no longer an admin. The links they made no longer work.",
	"removed": "The user was removed, with their websites, stats, sessions and keys. The links they made no longer work.",
	"revoked": "The link was revoked. It no longer works.",
	"totp":    "The requirement of two-factor sign-in was changed.",
}

func (p *Pages) adminUsers(w http.ResponseWriter, r *http.Request) {
	user := p.requireAdmin(w, r)
	if user == nil {
		return
	}
	p.renderAdmin(w, r, user, http.StatusOK, adminPage{Notice: adminNotices[r.URL.Query().Get("notice")]})
}

func (p *Pages) renderAdmin(w http.ResponseWriter, r *http.Request, user *repository.User, status int, data adminPage) {
	users, err := p.base.Repo.ListUsers(r.Context())
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	for _, u := range users {
		data.Users = append(data.Users, userRow{UserRow: u, Created: p.minute(u.CreatedAt)})
	}
	if data.Links, data.LinksTotal, err = p.pendingLinks(r.Context()); err != nil {
		p.serverError(w, r, err)
		return
	}
	data.Me, data.MailOn, data.TOTPRequired = user.ID, p.mailOn(), user.TOTPRequired
	p.render(w, r, status, "admin_users.html", "Users", data)
}

// linkURL is the address of a one-use link: under PUBLIC_URL, else at the request's address
// (shown to the admin who made it, never mailed).
func (p *Pages) linkURL(r *http.Request, token string) string {
	return p.base.Links.Base(r, web.Absolute) + "/set-password?token=" + token
}

// invite makes an invitation link for a new address (an account is created when it is
// accepted), or a set-password link for an existing user who has no password; by e-mail
// when mail is on, else shown to the admin.
func (p *Pages) invite(w http.ResponseWriter, r *http.Request) {
	admin := p.requireAdmin(w, r)
	if admin == nil || !p.parseForm(w, r) {
		return
	}
	form := inviteForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Admin: r.PostForm.Get("admin") == "1", Errors: stats.FieldErrors{}}
	email, err := account.NormaliseEmail(form.Email)
	if err != nil {
		form.Errors.Add("email", err.Error())
		p.renderAdmin(w, r, admin, http.StatusUnprocessableEntity, adminPage{Form: form})
		return
	}
	link := repository.Link{Kind: repository.LinkInvite, Email: email, MakeAdmin: form.Admin, CreatedBy: &admin.ID}
	ttl := account.InviteTTL
	existing, err := p.base.Repo.UserByEmail(r.Context(), email)
	switch {
	case errors.Is(err, repository.ErrNotFound):
	case err != nil:
		p.serverError(w, r, err)
		return
	default:
		hash, err := p.base.Repo.PasswordHashByID(r.Context(), existing.ID)
		if err != nil {
			p.serverError(w, r, err)
			return
		}
		if hash != "" {
			form.Errors.Add("email", "already has an account that can sign in; make it a set-password link from the list below if they lost their password")
			p.renderAdmin(w, r, admin, http.StatusConflict, adminPage{Form: form})
			return
		}
		link = repository.Link{Kind: repository.LinkSetPassword, Email: existing.Email, UserID: &existing.ID, CreatedBy: &admin.ID}
		ttl = account.SetPasswordTTL
	}
	token, ok := p.createLink(w, r, link, ttl)
	if !ok {
		return
	}
	data := adminPage{LinkFor: link.Email, LinkKind: link.Kind}
	if p.mailOn() {
		p.mailLink(link.Email, link.Kind, token)
		data.Notice = "A link was sent to " + link.Email + " (valid 7 days, one use)."
		if link.Kind == repository.LinkSetPassword {
			data.Notice = link.Email + " has an account without a password: a link to set one was sent instead of an invitation (valid 7 days, one use)."
		}
		data.LinkFor = ""
	} else {
		data.Link = p.linkURL(r, token)
	}
	p.renderAdmin(w, r, admin, http.StatusOK, data)
}

// userParam reads {id} of the URL: a user, else the 404 page.
func (p *Pages) userParam(w http.ResponseWriter, r *http.Request) (repository.UserRow, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return repository.UserRow{}, false
	}
	u, err := p.base.Repo.UserRowByID(r.Context(), id)
	if errors.Is(err, repository.ErrNotFound) {
		p.notFound(w, r)
		return repository.UserRow{}, false
	}
	if err != nil {
		p.serverError(w, r, err)
		return repository.UserRow{}, false
	}
	return u, true
}

func (p *Pages) lastAdmin(w http.ResponseWriter, r *http.Request, what string) {
	p.fail(w, r, http.StatusConflict, "The last admin",
		"This is the only admin of the service: it cannot be "+what+". Make another user an admin first.")
}

func (p *Pages) setAdmin(w http.ResponseWriter, r *http.Request) {
	if p.requireAdmin(w, r) == nil || !p.parseForm(w, r) {
		return
	}
	u, ok := p.userParam(w, r)
	if !ok {
		return
	}
	var makeAdmin bool
	switch r.PostForm.Get("admin") {
	case "1":
		makeAdmin = true
	case "0":
	default:
		p.fail(w, r, http.StatusUnprocessableEntity, "Form refused", "The form sent says neither to make nor to unmake an admin.")
		return
	}
	err := p.base.Repo.SetAdmin(r.Context(), u.ID, makeAdmin)
	if errors.Is(err, repository.ErrLastAdmin) {
		p.lastAdmin(w, r, "unmade")
		return
	}
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	notice := "unadmin"
	if makeAdmin {
		notice = "admin"
	}
	p.redirect(w, r, "/admin/users?notice="+notice, http.StatusSeeOther)
}

// passwordLink makes a one-use set-password link for any user and shows it this once: how a
// user without mail gets back in.
func (p *Pages) passwordLink(w http.ResponseWriter, r *http.Request) {
	admin := p.requireAdmin(w, r)
	if admin == nil || !p.parseForm(w, r) {
		return
	}
	u, ok := p.userParam(w, r)
	if !ok {
		return
	}
	token, ok := p.createLink(w, r, repository.Link{Kind: repository.LinkSetPassword, Email: u.Email, UserID: &u.ID, CreatedBy: &admin.ID}, account.SetPasswordTTL)
	if !ok {
		return
	}
	p.renderAdmin(w, r, admin, http.StatusOK, adminPage{Link: p.linkURL(r, token), LinkFor: u.Email, LinkKind: repository.LinkSetPassword})
}

// removePage asks for a confirmation that names how many websites go with the user.
func (p *Pages) removePage(w http.ResponseWriter, r *http.Request) {
	if p.requireAdmin(w, r) == nil {
		return
	}
	u, ok := p.userParam(w, r)
	if !ok {
		return
	}
	if u.LastAdmin {
		// Not offered on the list; an old link or a typed address gets why, not a form.
		p.lastAdmin(w, r, "removed")
		return
	}
	p.render(w, r, http.StatusOK, "remove_user.html", "Remove "+u.Email, u)
}

func (p *Pages) removeUser(w http.ResponseWriter, r *http.Request) {
	admin := p.requireAdmin(w, r)
	if admin == nil || !p.parseForm(w, r) {
		return
	}
	u, ok := p.userParam(w, r)
	if !ok {
		return
	}
	// The confirmation named a number of websites: if it is no longer right, ask again.
	if r.PostForm.Get("websites") != strconv.FormatInt(u.Websites, 10) {
		p.render(w, r, http.StatusConflict, "remove_user.html", "Remove "+u.Email, u)
		return
	}
	sites, err := p.base.Repo.RemoveUser(r.Context(), u.ID)
	if errors.Is(err, repository.ErrLastAdmin) {
		p.lastAdmin(w, r, "removed")
		return
	}
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.websites.Removed(r.Context(), sites)
	if u.ID == admin.ID {
		p.clearCookie(w, sessionCookie, "/")
		p.redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	p.redirect(w, r, "/admin/users?notice=removed", http.StatusSeeOther)
}

// createLink stores an admin's link; ok false: answered (the admin was unmade meanwhile, say).
func (p *Pages) createLink(w http.ResponseWriter, r *http.Request, link repository.Link, ttl time.Duration) (string, bool) {
	token, err := p.base.Repo.CreateLink(r.Context(), link, ttl)
	if errors.Is(err, repository.ErrNotAdmin) {
		p.fail(w, r, http.StatusForbidden, "Admins only", "Only an admin of this service may make links for its users.")
		return "", false
	}
	if err != nil {
		p.serverError(w, r, err)
		return "", false
	}
	return token, true
}

// maxPendingLinks bounds the list of pending links (resets add up to 3 an hour per user).
const maxPendingLinks = 200

// linkRow is a pending link as /admin/users lists it: what it does, for whom, made by whom
// and when, until when; never its token.
type linkRow struct {
	ID                     int64
	What, For, By          string
	Created, Expires       string
	CreatedISO, ExpiresISO string
}

func (p *Pages) pendingLinks(ctx context.Context) ([]linkRow, int, error) {
	links, total, err := p.base.Repo.ListPendingLinks(ctx, maxPendingLinks)
	if err != nil {
		return nil, 0, err
	}
	rows := make([]linkRow, len(links))
	for i, l := range links {
		// An admin's link always has its maker (unless removed, which voids it); any other
		// kind is the user's own doing.
		row := linkRow{ID: l.ID, For: l.Email, By: "the user",
			Created: p.minute(l.CreatedAt), Expires: p.minute(l.ExpiresAt),
			CreatedISO: l.CreatedAt.UTC().Format(time.RFC3339), ExpiresISO: l.ExpiresAt.UTC().Format(time.RFC3339)}
		switch l.Kind {
		case repository.LinkInvite:
			row.What = "Invitation"
			if l.MakeAdmin {
				row.What = "Invitation (admin)"
			}
		case repository.LinkSetPassword:
			row.What = "Set-password link"
		case repository.LinkReset:
			row.What, row.By = "Password reset", "the user (asked by e-mail)"
		default:
			row.What = l.Kind
		}
		if l.MadeBy != nil {
			row.By = *l.MadeBy
		}
		rows[i] = row
	}
	return rows, total, nil
}

// revokeLink voids a pending link; it then answers as an expired one.
func (p *Pages) revokeLink(w http.ResponseWriter, r *http.Request) {
	if p.requireAdmin(w, r) == nil || !p.parseForm(w, r) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err == nil && id > 0 {
		err = p.base.Repo.RevokeLink(r.Context(), id)
	} else {
		err = repository.ErrNotFound
	}
	if errors.Is(err, repository.ErrNotFound) {
		p.fail(w, r, http.StatusNotFound, "No such link",
			"There is no pending link with this number: it was used, revoked or expired already.")
		return
	}
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.redirect(w, r, "/admin/users?notice=revoked#links", http.StatusSeeOther)
}
