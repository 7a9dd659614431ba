package pages

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// The shared links' settings page: editors, admins and the owner make, rename and delete a
// website's shared links. A link's address holds its token, which only its SHA-256 keeps, so
// the address (and the iframe code of a link without a password) is shown once, when the link
// is made.

// maxSharedLinkName bounds a shared link's name (the table checks it too).
const maxSharedLinkName = 120

// sharedLinksPage is the data of shared_links.html.
type sharedLinksPage struct {
	Website repository.Website
	Links   []sharedLinkRow
	Form    sharedLinkForm
	Notice  string
	// New is the link just made, shown this once.
	New *newSharedLink
}

type sharedLinkRow struct {
	repository.SharedLink
	Created string
}

type sharedLinkForm struct {
	Name       string
	Theme      string
	Background string
	Manual     bool
	Errors     stats.FieldErrors
}

// newSharedLink is a link just made: its address, and for a link without a password the
// address of its embed view and the iframe code that shows it.
type newSharedLink struct {
	Name        string
	URL         string
	EmbedURL    string
	IframeCode  string
	HasPassword bool
}

var sharedLinkNotices = map[string]string{
	"renamed": "The link was renamed.",
	"deleted": "The link was deleted: its address no longer works.",
}

func sharedLinksPath(site repository.Website) string {
	return "/websites/" + strconv.FormatInt(site.ID, 10) + "/shared"
}

func (p *Pages) sharedLinksPage(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil {
		return
	}
	site, ok := p.openSite(w, r, user, repository.RoleEditor)
	if !ok {
		return
	}
	p.renderSharedLinks(w, r, http.StatusOK, site, sharedLinksPage{Notice: sharedLinkNotices[r.URL.Query().Get("notice")]})
}

func (p *Pages) renderSharedLinks(w http.ResponseWriter, r *http.Request, status int, site repository.Website, data sharedLinksPage) {
	links, err := p.base.Repo.SharedLinks(r.Context(), site.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	for _, l := range links {
		data.Links = append(data.Links, sharedLinkRow{SharedLink: l, Created: p.minute(l.CreatedAt)})
	}
	data.Website = site
	p.render(w, r, status, "shared_links.html", "Shared links of "+site.Domain, data)
}

// checkSharedLinkName is the refusal of a link's name, "" when it is fine.
func checkSharedLinkName(name string) string {
	if n := utf8.RuneCountInString(name); n < 1 || n > maxSharedLinkName {
		return fmt.Sprintf("must be 1 to %d characters", maxSharedLinkName)
	}
	return ""
}

// createSharedLink makes a link and shows its address (and iframe code) this once: no redirect,
// so the token is in no address, history or log.
func (p *Pages) createSharedLink(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	f := r.PostForm
	form := sharedLinkForm{Name: strings.TrimSpace(f.Get("name")), Theme: f.Get("theme"), Background: strings.TrimSpace(f.Get("background")),
		Manual: f.Get("width") == "manual", Errors: stats.FieldErrors{}}
	if msg := checkSharedLinkName(form.Name); msg != "" {
		form.Errors.Add("name", msg)
	}
	password := f.Get("password")
	if utf8.RuneCountInString(password) > 128 {
		form.Errors.Add("password", "must be at most 128 characters")
	}
	embed := url.Values{"embed": {"true"}}
	if form.Theme != "" && form.Theme != "system" {
		embed.Set("theme", form.Theme)
	}
	if form.Background != "" {
		embed.Set("background", form.Background)
	}
	if form.Manual {
		embed.Set("width", "manual")
	}
	parseEmbed(embed, form.Errors) // the options checked as the view checks them
	if len(form.Errors) > 0 {
		p.renderSharedLinks(w, r, http.StatusUnprocessableEntity, site, sharedLinksPage{Form: form})
		return
	}
	var hash *string
	if password != "" {
		h, err := website.HashPassword(password)
		if err != nil {
			p.serverError(w, r, err)
			return
		}
		hash = &h
	}
	token, _, err := p.base.Repo.CreateSharedLink(r.Context(), site.ID, user.ID, form.Name, hash)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	address := p.base.Links.Base(r, web.Absolute) + sharePath(site.Domain) + "?" + url.Values{"auth": {token}}.Encode()
	made := &newSharedLink{Name: form.Name, URL: address, HasPassword: hash != nil}
	if hash == nil {
		made.EmbedURL = address + "&" + embed.Encode()
		made.IframeCode = iframeCode(made.EmbedURL, site.Domain)
	}
	p.renderSharedLinks(w, r, http.StatusOK, site, sharedLinksPage{New: made})
}

// iframeCode is the HTML that shows an embed view in another site's page.
func iframeCode(src, domain string) string {
	return `<iframe src="` + template.HTMLEscapeString(src) + `" title="Stats of ` + template.HTMLEscapeString(domain) +
		`" loading="lazy" style="width: 1px; min-width: 100%; height: 1600px; border: 0;"></iframe>`
}

// sharedLinkParam reads {link} of the URL.
func sharedLinkParam(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("link"), 10, 64)
	return id, err == nil && id > 0
}

func (p *Pages) sharedLinkDone(w http.ResponseWriter, r *http.Request, site repository.Website, err error, notice string) {
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.fail(w, r, http.StatusNotFound, "No such link", "This website has no shared link with this number: it was deleted, or never was.")
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, sharedLinksPath(site)+"?notice="+notice, http.StatusSeeOther)
	}
}

func (p *Pages) renameSharedLink(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	id, ok := sharedLinkParam(r)
	if !ok {
		p.sharedLinkDone(w, r, site, repository.ErrNotFound, "")
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	if msg := checkSharedLinkName(name); msg != "" {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid form", "name "+msg+".")
		return
	}
	p.sharedLinkDone(w, r, site, p.base.Repo.RenameSharedLink(r.Context(), site.ID, id, name), "renamed")
}

func (p *Pages) deleteSharedLink(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	id, ok := sharedLinkParam(r)
	if !ok {
		p.sharedLinkDone(w, r, site, repository.ErrNotFound, "")
		return
	}
	p.sharedLinkDone(w, r, site, p.base.Repo.DeleteSharedLink(r.Context(), site.ID, id), "deleted")
}
