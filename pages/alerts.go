package pages

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// The viewer's traffic alerts of a website on its settings page (docs/alerts.md): the rules
// are the API's (website.CheckAlerts); a refusal shows the page again with the messages beside
// the fields, and writes nothing.

// alertsForm is the alerts form: as stored, or as sent (refused), with the addresses' states.
type alertsForm struct {
	Spike, Drop, Addresses string
	Stored                 []repository.AlertAddress
	Errors                 stats.FieldErrors
	MailOn                 bool // SMTP_URL and PUBLIC_URL are set: alerts can be mailed
}

// MaxAddresses is the bound of the addresses, for the form's hint.
func (alertsForm) MaxAddresses() int { return website.MaxAlertAddresses }

func alertsFormOf(a repository.AlertSettings, mailOn bool) alertsForm {
	f := alertsForm{Stored: a.Addresses, MailOn: mailOn}
	if a.Spike > 0 {
		f.Spike = strconv.Itoa(a.Spike)
	}
	if a.Drop > 0 {
		f.Drop = strconv.Itoa(a.Drop)
	}
	emails := make([]string, len(a.Addresses))
	for i, addr := range a.Addresses {
		emails[i] = addr.Email
	}
	f.Addresses = strings.Join(emails, "\n")
	return f
}

// alertNotices are the notices the form comes back with.
var alertNotices = map[string]string{
	"alerts-saved": "The alerts were saved. Each new address was mailed a link to confirm it; alerts go to confirmed addresses only.",
}

// setAlerts takes the alerts form of the settings page: an empty threshold switches its alert
// off, as leaving the field out of the API's form does.
func (p *Pages) setAlerts(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	f := r.PostForm
	form := alertsForm{Spike: strings.TrimSpace(f.Get("spike_threshold")), Drop: strings.TrimSpace(f.Get("drop_threshold")),
		Addresses: f.Get("addresses"), Errors: stats.FieldErrors{}, MailOn: p.base.Outbox.Enabled()}
	in := website.AlertInput{Addresses: &form.Addresses}
	for field, t := range map[string]struct {
		text string
		dst  **int
	}{"spike_threshold": {form.Spike, &in.Spike}, "drop_threshold": {form.Drop, &in.Drop}} {
		if t.text == "" {
			continue
		}
		n, err := strconv.Atoi(t.text)
		if err != nil {
			form.Errors.Add(field, "must be a whole number of visitors (leave it empty to switch the alert off)")
			continue
		}
		*t.dst = &n
	}
	if len(form.Errors) == 0 {
		_, errs, err := p.websites.SetAlerts(r.Context(), user.ID, site.ID, in)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.notFound(w, r)
			return
		case err != nil:
			p.serverError(w, r, err)
			return
		case errs == nil:
			p.redirect(w, r, editURL(site.ID)+"?notice=alerts-saved#alerts", http.StatusSeeOther)
			return
		}
		form.Errors = errs
	}
	stored, err := p.base.Repo.Alerts(r.Context(), site.ID, user.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	form.Stored = stored.Addresses
	p.renderEditPage(w, r, http.StatusUnprocessableEntity, site, p.formOf(site), goalForm{Kind: stats.GoalPageview}, funnelForm{},
		func(page *editWebsitePage) { page.Alerts = form })
}
