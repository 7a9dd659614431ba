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

	embedopt "github.com/analytics-service/analytics/pages/embed"
	"github.com/analytics-service/analytics/query"
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
	// Segments are the form's choices of segment after "None (everything)": the website's
	// segments a link may be given (shareableSegment).
	Segments []segmentOption
	Form     sharedLinkForm
	Notice   string
	// New is the link just made, shown this once.
	New *newSharedLink
}

type sharedLinkRow struct {
	repository.SharedLink
	Created string
	// Segment is the name of the link's segment, "" without one; Unshown: the segment is no
	// longer one a link can apply (made personal, or given filters the dashboard cannot
	// show), so the link answers 404 rather than show more than it was made for.
	Segment string
	Unshown bool
}

type segmentOption struct {
	Value, Name string
	Selected    bool
}

type sharedLinkForm struct {
	Name       string
	Segment    string // the segment's id as sent, "" for none
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
	Segment     string // the name of its segment, "" without one
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
	// The website's own segments (user 0: nobody's personal ones); a link's segment not
	// among them was made personal since, and is not named here.
	segs, err := p.pinned.Segments(r.Context(), site, 0)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	data.Segments = segmentOptions(segs, data.Form.Segment)
	byID := map[int64]repository.Segment{}
	for _, s := range segs {
		byID[s.ID] = s
	}
	for _, l := range links {
		row := sharedLinkRow{SharedLink: l, Created: p.minute(l.CreatedAt)}
		if l.SegmentID != nil {
			s, known := byID[*l.SegmentID]
			_, shown := shareableSegment(s)
			row.Segment, row.Unshown = s.Name, !known || !shown
		}
		data.Links = append(data.Links, row)
	}
	data.Website = site
	p.render(w, r, status, "shared_links.html", "Shared links of "+site.Domain, data)
}

// shareableSegment is a segment as a shared link's view applies it, the one rule of which
// segments a link may be given and show: only the website's own (a personal one is seen by
// its maker only, and a link shows it to anyone), and only one whose filters are all the
// dashboard's kind (query.SegmentDashboard): the view narrows its reads by the dashboard's
// filters, so a segment it could apply only in part would show more than it holds.
func shareableSegment(s repository.Segment) (*lockedSegment, bool) {
	if s.ID == 0 || !s.Site() {
		return nil, false
	}
	f, ok := query.SegmentDashboard(s.Filters)
	if !ok {
		return nil, false
	}
	for i := range f {
		f[i].Locked = true
	}
	return &lockedSegment{Name: s.Name, Filters: f}, true
}

// segmentOptions are the segments of segs a link may be given, as the form offers them, the
// one sent selected.
func segmentOptions(segs []repository.Segment, selected string) []segmentOption {
	var out []segmentOption
	for _, s := range segs {
		if _, ok := shareableSegment(s); ok {
			v := strconv.FormatInt(s.ID, 10)
			out = append(out, segmentOption{Value: v, Name: s.Name, Selected: v == selected})
		}
	}
	return out
}

// sharedLinkSegment reads the segment field of the form: nil for none, or the id of one of
// the segments offered (segmentOptions); any other value is refused on the field.
func sharedLinkSegment(f url.Values, offered []segmentOption, errs stats.FieldErrors) *int64 {
	sent := f["segment"]
	switch {
	case len(sent) > 1:
		errs.Add("segment", "must be sent once")
		return nil
	case len(sent) == 0 || sent[0] == "":
		return nil
	}
	for _, o := range offered {
		if o.Value == sent[0] {
			id, _ := strconv.ParseInt(o.Value, 10, 64)
			return &id
		}
	}
	errs.Add("segment", "must be one of the website's segments offered, or none: a link cannot be given a personal segment, another website's, or one whose filters the dashboard cannot show")
	return nil
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
	form := sharedLinkForm{Name: strings.TrimSpace(f.Get("name")), Segment: f.Get("segment"), Theme: f.Get("theme"),
		Background: strings.TrimSpace(f.Get("background")), Manual: f.Get("width") == "manual", Errors: stats.FieldErrors{}}
	if msg := checkSharedLinkName(form.Name); msg != "" {
		form.Errors.Add("name", msg)
	}
	segs, err := p.pinned.Segments(r.Context(), site, 0) // the website's own: user 0 has none
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	segment := sharedLinkSegment(f, segmentOptions(segs, ""), form.Errors)
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
	embedopt.Parse(embed, form.Errors) // the options checked as the view checks them
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
	token, _, err := p.base.Repo.CreateSharedLink(r.Context(), site.ID, user.ID, form.Name, hash, segment)
	if errors.Is(err, repository.ErrNotFound) { // the segment was deleted after the check above
		form.Errors.Add("segment", "is no longer one of this website's segments")
		p.renderSharedLinks(w, r, http.StatusUnprocessableEntity, site, sharedLinksPage{Form: form})
		return
	}
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	address := p.base.Links.Base(r, web.Absolute) + sharePath(site.Domain) + "?" + url.Values{"auth": {token}}.Encode()
	made := &newSharedLink{Name: form.Name, URL: address, HasPassword: hash != nil}
	for _, s := range segs {
		if segment != nil && s.ID == *segment {
			made.Segment = s.Name
		}
	}
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
