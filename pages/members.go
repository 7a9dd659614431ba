package pages

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// The members of a website (docs/teams.md): its owner and the admins invite people by e-mail
// with a role, change roles and remove members; its owner hands it over to a member.

// membersPage is the data of members.html.
type membersPage struct {
	Website     repository.Website
	Members     []memberRow
	Invitations []invitationRow
	Form        memberForm
	Roles       []roleChoice
	IsOwner     bool
	Notice      string
	// Link is an invitation just made while mail is off, shown this once to be passed on.
	Link, LinkFor string
}

type memberRow struct {
	repository.WebsiteMember
	Since string
	Me    bool
}

type invitationRow struct {
	repository.Invitation
	Expires string
}

type memberForm struct {
	Email  string
	Role   repository.Role
	Errors stats.FieldErrors
}

// roleChoice is a role the forms offer, with what it allows.
type roleChoice struct {
	Role  repository.Role
	Label string
	What  string
}

var roleChoices = []roleChoice{
	{repository.RoleViewer, "Viewer", "reads the dashboard"},
	{repository.RoleEditor, "Editor", "also changes the settings, goals, funnels and shared links"},
	{repository.RoleAdmin, "Admin", "also invites people, changes roles and removes members"},
}

var memberNotices = map[string]string{
	"invited":     "The invitation was sent (valid 7 days, one use).",
	"role":        "The role was changed.",
	"removed":     "The member was removed: they no longer see this website.",
	"revoked":     "The invitation was revoked: its link no longer works.",
	"transferred": "The website was handed over. You are an admin of it now.",
}

func (p *Pages) membersPage(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil {
		return
	}
	site, ok := p.openSite(w, r, user, repository.RoleAdmin)
	if !ok {
		return
	}
	data := membersPage{Form: memberForm{Role: repository.RoleViewer}, Notice: memberNotices[r.URL.Query().Get("notice")]}
	p.renderMembers(w, r, user, http.StatusOK, site, data)
}

func (p *Pages) renderMembers(w http.ResponseWriter, r *http.Request, user *repository.User, status int, site repository.Website, data membersPage) {
	members, err := p.base.Repo.Members(r.Context(), site.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	invitations, err := p.base.Repo.Invitations(r.Context(), site.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	for _, m := range members {
		data.Members = append(data.Members, memberRow{WebsiteMember: m, Since: p.minute(m.CreatedAt), Me: m.UserID == user.ID})
	}
	for _, inv := range invitations {
		data.Invitations = append(data.Invitations, invitationRow{Invitation: inv, Expires: p.minute(inv.ExpiresAt)})
	}
	data.Website, data.Roles, data.IsOwner = site, roleChoices, site.Role == repository.RoleOwner
	p.render(w, r, status, "members.html", "Members of "+site.Domain, data)
}

// membersPath is the members page, where its forms post.
func membersPath(site repository.Website) string {
	return "/websites/" + strconv.FormatInt(site.ID, 10) + "/members"
}

// inviteMember invites an address to the website with a role: by e-mail when mail is on, else
// the link is shown to the inviter to pass on.
func (p *Pages) inviteMember(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleAdmin)
	if !ok {
		return
	}
	form := memberForm{Email: strings.TrimSpace(r.PostForm.Get("email")), Role: repository.Role(r.PostForm.Get("role")), Errors: stats.FieldErrors{}}
	email, err := account.NormaliseEmail(form.Email)
	if err != nil {
		form.Errors.Add("email", err.Error())
	}
	if !form.Role.Valid() {
		form.Errors.Add("role", "must be one of viewer, editor, admin")
	}
	if len(form.Errors) > 0 {
		p.renderMembers(w, r, user, http.StatusUnprocessableEntity, site, membersPage{Form: form})
		return
	}
	token, err := p.base.Repo.InviteMember(r.Context(), site.ID, user.ID, email, form.Role, account.InviteTTL)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	if p.mailOn() {
		p.mailInvitation(email, user.Email, site.Domain, form.Role, token)
		p.redirect(w, r, membersPath(site)+"?notice=invited", http.StatusSeeOther)
		return
	}
	// No redirect: the link is in no address, history or log.
	data := membersPage{Form: memberForm{Role: repository.RoleViewer}, Link: p.invitationURL(r, token), LinkFor: email}
	p.renderMembers(w, r, user, http.StatusOK, site, data)
}

func (p *Pages) invitationURL(r *http.Request, token string) string {
	return p.base.Links.Base(r, web.Absolute) + "/invitation?token=" + token
}

// mailInvitation queues the mail of an invitation to a website.
func (p *Pages) mailInvitation(to, from, domain string, role repository.Role, token string) {
	link := p.base.Links.Public.String() + "/invitation?token=" + token
	subject := "You are invited to the stats of " + domain
	intro := fmt.Sprintf("%s invites you to the stats of %s on Analytics at %s, as %s.", from, domain, p.base.Links.Public.Host, strings.ToLower(roleNames[role]))
	text := fmt.Sprintf("%s\n\nOpen this link to accept (it works once, for 7 days):\n%s\n\nIf you did not expect this mail, ignore it: nothing changes.\n", intro, link)
	html := fmt.Sprintf(`<p>%s</p><p><a href="%s">Accept the invitation</a> (the link works once, for 7 days).</p><p>If you did not expect this mail, ignore it: nothing changes.</p>`,
		template.HTMLEscapeString(intro), template.HTMLEscapeString(link))
	p.base.Outbox.Enqueue(func(ctx context.Context) error {
		return p.base.Outbox.Send(ctx, to, subject, text, html)
	})
}

// memberParam reads {user} of the URL: a user id, else the 404 page (whether the user is a
// member is the change's to find).
func (p *Pages) memberParam(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("user"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return 0, false
	}
	return id, true
}

// memberDone answers a change of a member: back to the members page, or the 404 page when the
// user named is not a member.
func (p *Pages) memberDone(w http.ResponseWriter, r *http.Request, site repository.Website, err error, notice string) {
	switch {
	case errors.Is(err, repository.ErrNotMember), errors.Is(err, repository.ErrNotFound):
		p.fail(w, r, http.StatusNotFound, "No such member", "This user is not a member of "+site.Domain+" (any more).")
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, membersPath(site)+"?notice="+notice, http.StatusSeeOther)
	}
}

func (p *Pages) setMemberRole(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleAdmin)
	if !ok {
		return
	}
	member, ok := p.memberParam(w, r)
	if !ok {
		return
	}
	role := repository.Role(r.PostForm.Get("role"))
	if !role.Valid() {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid form", "role must be one of viewer, editor, admin.")
		return
	}
	p.memberDone(w, r, site, p.base.Repo.SetMemberRole(r.Context(), site.ID, member, role), "role")
}

// removeMember takes a member's access away: an admin's act, or a member's own (leaving).
func (p *Pages) removeMember(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil || !p.parseForm(w, r) {
		return
	}
	member, ok := p.memberParam(w, r)
	if !ok {
		return
	}
	need := repository.RoleAdmin
	if member == user.ID {
		need = repository.RoleViewer // anyone may leave
	}
	site, ok := p.openSite(w, r, user, need)
	if !ok {
		return
	}
	err := p.base.Repo.RemoveMember(r.Context(), site.ID, member)
	if err == nil && member == user.ID {
		p.redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	p.memberDone(w, r, site, err, "removed")
}

func (p *Pages) revokeInvitation(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleAdmin)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("link"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return
	}
	err = p.base.Repo.RevokeInvitation(r.Context(), site.ID, id)
	if errors.Is(err, repository.ErrNotFound) {
		p.fail(w, r, http.StatusNotFound, "No such invitation", "This invitation was used, revoked or has expired.")
		return
	}
	p.memberDone(w, r, site, err, "revoked")
}

// transferWebsite hands the website to a member, who becomes its owner; the owner becomes an
// admin. Only the owner may, and must tick the confirmation.
func (p *Pages) transferWebsite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleOwner)
	if !ok {
		return
	}
	to, err := strconv.ParseInt(r.PostForm.Get("user"), 10, 64)
	if err != nil || to < 1 || r.PostForm.Get("confirm") != "1" {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid form",
			"Choose the member to hand the website to, and tick the box that confirms it.")
		return
	}
	err = p.base.Repo.TransferWebsite(r.Context(), site.ID, user.ID, to)
	p.memberDone(w, r, site, err, "transferred")
}

// invitationPage is the data of invitation.html.
type invitationPage struct {
	Invitation repository.Invitation
	Token      string
	RoleName   string
	// What the page offers: Accept (signed in as the invited address), SignIn (the address
	// has an account: sign in first), Create (a new address: choose a password), Other (signed
	// in as another address).
	Accept, SignIn, Create, Other bool
	SignInURL                     string
	Errors                        stats.FieldErrors
}

// openInvitation finds the invitation of a token under the links' per-address limit.
func (p *Pages) openInvitation(w http.ResponseWriter, r *http.Request, token string) (repository.Invitation, bool) {
	var inv repository.Invitation
	ok := p.lookUpToken(w, r, func() (err error) {
		inv, err = p.base.Repo.InvitationByToken(r.Context(), token)
		return err
	})
	return inv, ok
}

func (p *Pages) invitationForm(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	inv, ok := p.openInvitation(w, r, token)
	if !ok {
		return
	}
	p.renderInvitation(w, r, http.StatusOK, inv, token, nil)
}

func (p *Pages) renderInvitation(w http.ResponseWriter, r *http.Request, status int, inv repository.Invitation, token string, errs stats.FieldErrors) {
	data := invitationPage{Invitation: inv, Token: token, RoleName: strings.ToLower(roleNames[inv.Role]), Errors: errs,
		SignInURL: "/login?next=" + url.QueryEscape("/invitation?token="+token)}
	if u := viewerOf(r); u != nil {
		data.Accept, data.Other = strings.EqualFold(u.Email, inv.Email), !strings.EqualFold(u.Email, inv.Email)
	} else {
		_, err := p.base.Repo.UserByEmail(r.Context(), inv.Email)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			data.Create = true
		case err != nil:
			p.serverError(w, r, err)
			return
		default:
			data.SignIn = true
		}
	}
	p.render(w, r, status, "invitation.html", "Invitation to "+inv.Domain, data)
}

// acceptInvitation uses an invitation: a signed-in user with the invited address becomes a
// member; a new address gets its account, with the password chosen, and is signed in.
func (p *Pages) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	if !p.parseForm(w, r) {
		return
	}
	token := r.PostForm.Get("token")
	inv, ok := p.openInvitation(w, r, token)
	if !ok {
		return
	}
	if u := viewerOf(r); u != nil {
		_, err := p.base.Repo.AcceptInvitation(r.Context(), token, u.ID)
		p.invitationAccepted(w, r, inv, err)
		return
	}
	errs := stats.FieldErrors{}
	password := htmlpage.PasswordFields(r, errs)
	if len(errs) > 0 {
		p.renderInvitation(w, r, http.StatusUnprocessableEntity, inv, token, errs)
		return
	}
	hash, err := website.HashPassword(password)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	_, user, err := p.base.Repo.AcceptInvitationAsNewUser(r.Context(), token, hash)
	if err == nil && !p.startSession(w, r, user.ID) {
		return
	}
	p.invitationAccepted(w, r, inv, err)
}

func (p *Pages) invitationAccepted(w http.ResponseWriter, r *http.Request, inv repository.Invitation, err error) {
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.linkGone(w, r) // used, revoked or its maker's role taken at the same moment
	case errors.Is(err, repository.ErrWrongAddress):
		p.fail(w, r, http.StatusForbidden, "Another address",
			"This invitation is for "+inv.Email+". Sign out, then sign in with that address to accept it.")
	case errors.Is(err, repository.ErrConflict):
		p.fail(w, r, http.StatusConflict, "The account exists",
			"An account with the address "+inv.Email+" was made since this invitation: sign in with it, then open the link again.")
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, statsPath(inv.Domain), http.StatusSeeOther)
	}
}
