package pages

import (
	"errors"
	"net/http"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Deleting a website's stats from its settings page (docs/retention.md): a range of days, or
// all of them, once the owner has typed the website's domain; the rules are the API's
// (website.Service.ResetStats).

// resetForm is the delete-stats form as sent, with its refusals.
type resetForm struct {
	From, To, Confirm string
	Errors            stats.FieldErrors
}

// resetNotices are the notices the form comes back with.
var resetNotices = map[string]string{
	"stats-deleted": "The stats were deleted. The dashboard notes the deletion on every range that holds those days.",
}

// resetStats takes the delete-stats form of the settings page.
func (p *Pages) resetStats(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleAdmin)
	if !ok {
		return
	}
	form := resetForm{From: r.PostForm.Get("from"), To: r.PostForm.Get("to"), Confirm: r.PostForm.Get("confirm")}
	_, errs, err := p.websites.ResetStats(r.Context(), user.ID, site.ID, form.Confirm, form.From, form.To)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.notFound(w, r) // deleted meanwhile
		return
	case err != nil:
		p.serverError(w, r, err)
		return
	case errs == nil:
		p.redirect(w, r, editURL(site.ID)+"?notice=stats-deleted#delete-stats", http.StatusSeeOther)
		return
	}
	form.Errors = errs
	p.renderEditPage(w, r, http.StatusUnprocessableEntity, site, p.formOf(site), goalForm{Kind: stats.GoalPageview}, funnelForm{},
		func(page *editWebsitePage) { page.ResetForm = form })
}
