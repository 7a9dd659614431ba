package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// homePageSize is how many websites the home page lists at once.
const homePageSize = 50

// homePage is the data of home.html.
type homePage struct {
	Websites []websiteRow
	Search   string
	// SearchError refuses a search the API would refuse (websites' search is at most 255
	// characters of UTF-8 text without NUL); no website is listed then.
	SearchError string
	Prev        string
	Next        string
	Total       int64
	Notice      string
	Form        websiteForm // the add form, refilled after a refusal
	Snippet     trackerSnippet
}

// websiteRow is one of the user's websites, or one shared with them, with its last 30 days.
type websiteRow struct {
	Website   repository.Website
	Visitors  int64
	Pageviews int64
	StatsURL  string
	Privacy   string
}

// Shared is the role of a member, shown on the row; "" for the user's own website.
func (w websiteRow) Shared() string {
	if w.Website.Role == repository.RoleOwner {
		return ""
	}
	return roleNames[w.Website.Role]
}

// Can tells whether the user's role on the row's website allows what needs the role named.
func (w websiteRow) Can(need string) bool { return w.Website.Role.Can(repository.Role(need)) }

// roleNames are the roles as the pages name them.
var roleNames = map[repository.Role]string{repository.RoleViewer: "Viewer", repository.RoleEditor: "Editor",
	repository.RoleAdmin: "Admin", repository.RoleOwner: "Owner"}

// websiteForm is the add or edit form's values and refusals.
type websiteForm struct {
	Domain        string
	Privacy       int
	HasPassword   bool // edit: the website has a password now
	Email         bool
	ExcludeBots   bool
	ExcludeParams string
	ExcludeIPs    string
	Favorite      bool
	Timezone      string // the zone chosen last (website.Zones offers names)
	ServiceZone   string // the service's TZ, which the add form starts from
	// ZoneFrom: a change of zone is pending, and takes effect then (in the new zone).
	ZoneFrom string
	// Adding: the add form, which offers to drop the tracking parameters (DropTracking).
	Adding       bool
	DropTracking bool
	Errors       stats.FieldErrors
	// The edit form's shields, one entry per line, and the days its visit rows are kept ("":
	// FACTS_RETENTION, FactsRetention days).
	BlockCountries, BlockPages, AllowedHostnames string
	RetentionDays                                string
	FactsRetention                               int
}

// BlockedCountryNames are the names of the countries the form's list blocks, for its hint
// (codes it does not know are left out: the rules refuse them).
func (f websiteForm) BlockedCountryNames() []string {
	var names []string
	for _, code := range website.Lines(f.BlockCountries) {
		if c, ok := stats.Countries[strings.ToUpper(code)]; ok {
			_, name, _ := strings.Cut(c.Country, ":")
			names = append(names, name)
		}
	}
	return names
}

// Shield bounds for the form's hints.
func (websiteForm) MaxBlockedCountries() int { return website.MaxBlockedCountries }
func (websiteForm) MaxBlockedPages() int     { return website.MaxBlockedPages }
func (websiteForm) MaxAllowedHostnames() int { return website.MaxAllowedHostnames }
func (websiteForm) MinRetentionDays() int    { return website.MinRetentionDays }

// TrackingParams are the query parameters that ads, newsletters and social networks add to
// links: the add form offers to drop them, so that one page is not split into many rows. The
// UTM tags, source, ref, gclid and msclkid are read before exclusions apply, so the visit's
// source, channel and tags are still counted (docs/sources.md). The
// API's defaults are unchanged (it drops nothing unless asked).
var trackingParams = []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
	"fbclid", "gclid", "msclkid", "mc_eid", "ref"}

// TrackingParams is trackingParams for the template.
func (websiteForm) TrackingParams() []string { return trackingParams }

// withTrackingParams is the exclude_params text with each tracking parameter it lacks added
// on a line of its own.
func withTrackingParams(text string) string {
	have := map[string]bool{}
	for _, line := range website.Lines(text) {
		have[line] = true
	}
	lines := website.Lines(text)
	for _, name := range trackingParams {
		if !have[name] {
			lines = append(lines, name)
		}
	}
	return strings.Join(lines, "\n")
}

// Privacy levels as the forms name them.
var privacyNames = []string{website.Public: "Public", website.Private: "Private", website.Password: "Password"}

// notices are the fixed messages a redirect may ask the home page to show.
var notices = map[string]string{
	"added":   "The website was added. Put the tracker snippet on its pages to start counting.",
	"saved":   "The changes were saved.",
	"deleted": "The website and all of its stats were deleted.",
}

func (p *Pages) home(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil {
		return
	}
	form := websiteForm{ExcludeBots: true, Adding: true, DropTracking: true, Timezone: p.base.Location.String()}
	p.renderHome(w, r, user, http.StatusOK, form)
}

func (p *Pages) renderHome(w http.ResponseWriter, r *http.Request, user *repository.User, status int, form websiteForm) {
	q := r.URL.Query()
	pg := stats.Paging{Number: 1, Size: homePageSize}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && stats.ValidPage(n) {
		pg.Number = n
	}
	search := strings.TrimSpace(q.Get("search"))
	searchError := checkSearch(search)
	var sites []repository.Website
	var total int64
	if searchError == "" {
		var err error
		sites, total, err = p.base.Repo.ListWebsites(r.Context(), user.ID, repository.WebsiteQuery{
			Search: search, SortBy: "domain", FavoriteFirst: true,
			Limit: pg.Size, Offset: pg.Offset(),
		})
		if err != nil {
			p.serverError(w, r, err)
			return
		}
	} else if status == http.StatusOK {
		status = http.StatusUnprocessableEntity
	}
	form.ServiceZone = p.base.Location.String()
	data := homePage{Search: search, SearchError: searchError, Total: total, Notice: notices[q.Get("notice")], Form: form,
		Snippet: p.snippet(r, "")}
	for _, s := range sites {
		if web.LocalDomain(s.Domain) {
			data.Snippet.LocalDomains = append(data.Snippet.LocalDomains, s.Domain)
			data.Snippet.Local = p.snippet(r, s.Domain).Code
		}
	}
	data.Websites = make([]websiteRow, len(sites))
	g, ctx := errgroup.WithContext(r.Context())
	g.SetLimit(4)
	for i, s := range sites {
		g.Go(func() error {
			today := p.today(s) // each website's last 30 days, in its own zone
			last30 := stats.Range{From: today.AddDate(0, 0, -(defaultRangeDays - 1)), To: today}
			sums, err := p.base.Repo.SumStats(ctx, s.ID, []stats.Name{stats.Visitor, stats.Pageview}, last30)
			data.Websites[i] = websiteRow{Website: s, Visitors: sums[stats.Visitor], Pageviews: sums[stats.Pageview],
				StatsURL: statsPath(s.Domain), Privacy: privacyNames[s.Privacy]}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		p.serverError(w, r, err)
		return
	}
	link := func(n int) string {
		v := url.Values{"page": {strconv.Itoa(n)}}
		if search != "" {
			v.Set("search", search)
		}
		return "/?" + v.Encode()
	}
	if pg.Number > 1 {
		data.Prev = link(pg.Number - 1)
	}
	if n, ok := pg.Next(total); ok {
		data.Next = link(n)
	}
	p.render(w, r, status, "home.html", "Your websites", data)
}

// checkSearch is the refusal of a websites' search, "" when it is fine: counted in characters,
// as the API's maxLength counts them, not in bytes.
func checkSearch(search string) string {
	switch {
	case !stats.ValidText(search):
		return "search " + stats.TextRule
	case utf8.RuneCountInString(search) > stats.SearchMaxLength:
		return "search must be at most 255 characters"
	}
	return ""
}

// addWebsite takes the add form: the same rules as POST /api/v1/websites.
func (p *Pages) addWebsite(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil || !p.parseForm(w, r) {
		return
	}
	form, settings, errs := readWebsiteForm(r.PostForm, false)
	form.Adding, form.DropTracking = true, r.PostForm.Get("drop_tracking") == "1"
	if form.DropTracking {
		params := withTrackingParams(form.ExcludeParams)
		settings.ExcludeParams = &params
	}
	if len(errs) == 0 {
		var err error
		_, errs, err = p.websites.Create(r.Context(), user.ID, form.Domain, settings)
		switch {
		case err != nil:
			p.serverError(w, r, err)
			return
		case errs == nil:
			p.redirect(w, r, "/?notice=added", http.StatusSeeOther)
			return
		}
	}
	form.Errors = errs
	p.renderHome(w, r, user, http.StatusUnprocessableEntity, form)
}

// readWebsiteForm reads the add or edit form into the service's settings. Checkboxes send
// nothing when unticked, so a missing one is 0 (false). On edit, an empty password with
// privacy 2 keeps the current password (the form never shows it); with privacy 0 or 1 it
// removes it, as in the API.
func readWebsiteForm(f url.Values, edit bool) (websiteForm, website.Settings, stats.FieldErrors) {
	errs := stats.FieldErrors{}
	form := websiteForm{
		Domain: f.Get("domain"), ExcludeParams: f.Get("exclude_params"), ExcludeIPs: f.Get("exclude_ips"),
		Email: f.Get("email") == "1", ExcludeBots: f.Get("exclude_bots") == "1", Favorite: f.Get("favorite") == "1",
		Timezone: strings.TrimSpace(f.Get("timezone")),
	}
	privacy, err := strconv.Atoi(f.Get("privacy"))
	if err != nil {
		errs.Add("privacy", "must be one of 0, 1, 2")
	}
	form.Privacy = privacy
	email, bots := boolInt(form.Email), boolInt(form.ExcludeBots)
	s := website.Settings{Privacy: &form.Privacy, Email: &email, ExcludeBots: &bots,
		ExcludeParams: &form.ExcludeParams, ExcludeIPs: &form.ExcludeIPs}
	password := f.Get("password")
	if !(edit && password == "" && privacy == website.Password) {
		s.Password = &password
	}
	if edit {
		s.Favorite = &form.Favorite
		readShieldFields(f, &form, &s, errs)
	}
	if form.Timezone != "" { // empty: as it is (the service's TZ on a new website)
		s.Timezone = &form.Timezone
	}
	return form, s, errs
}

// readShieldFields reads the edit form's shields and retention: empty lists clear, an empty
// retention is FACTS_RETENTION's.
func readShieldFields(f url.Values, form *websiteForm, s *website.Settings, errs stats.FieldErrors) {
	form.BlockCountries, form.BlockPages, form.AllowedHostnames = f.Get("block_countries"), f.Get("block_pages"), f.Get("allowed_hostnames")
	s.BlockCountries, s.BlockPages, s.AllowedHostnames = &form.BlockCountries, &form.BlockPages, &form.AllowedHostnames
	form.RetentionDays = strings.TrimSpace(f.Get("retention_days"))
	days := 0
	if form.RetentionDays != "" {
		n, err := strconv.Atoi(form.RetentionDays)
		if err != nil {
			errs.Add("retention_days", "must be a whole number of days")
		}
		days = n
	}
	s.RetentionDays = &days
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// editPage shows the settings of a website to those who may change them (editors, admins and
// the owner).
func (p *Pages) editPage(w http.ResponseWriter, r *http.Request) {
	site, ok := p.sitePage(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	p.renderEdit(w, r, http.StatusOK, site, p.formOf(site))
}

func (p *Pages) formOf(s repository.Website) websiteForm {
	return websiteForm{
		Domain: s.Domain, Privacy: s.Privacy, HasPassword: s.PasswordHash != nil,
		Email: s.Email == 1, ExcludeBots: s.ExcludeBots == 1, Favorite: s.Favorite,
		ExcludeParams: deref(s.ExcludeParams), ExcludeIPs: deref(s.ExcludeIPs),
		Timezone: s.ZoneName(p.base.Location), ZoneFrom: p.zoneFrom(s),
		BlockCountries: deref(s.BlockCountries), BlockPages: deref(s.BlockPages), AllowedHostnames: deref(s.AllowedHostnames),
		RetentionDays: retentionText(s.RetentionDays), FactsRetention: p.websites.FactsRetention(),
	}
}

func retentionText(days *int) string {
	if days == nil {
		return ""
	}
	return strconv.Itoa(*days)
}

// zoneFrom says when a pending change of zone takes effect, in the new zone's words
// ("Thu 5 Mar 2026, 00:00 America/New_York"); "" when none is pending.
func (p *Pages) zoneFrom(s repository.Website) string {
	if s.TimezoneFrom == nil || s.TimezoneNext == nil || !p.base.Now().Before(*s.TimezoneFrom) {
		return ""
	}
	zone := s.Zone(p.base.Location)
	return s.TimezoneFrom.In(zone.After).Format("Mon 2 Jan 2006, 15:04") + " " + *s.TimezoneNext
}

// Zones are the time zones the forms offer (any other IANA name is accepted too).
func (websiteForm) Zones() []string { return website.Zones }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// editWebsitePage is the data of edit.html.
type editWebsitePage struct {
	Website  repository.Website
	Form     websiteForm
	Snippet  trackerSnippet
	Goals    []stats.Goal
	GoalForm goalForm
	MaxGoals int
	Notice   string
	// The funnels, the add-a-funnel form, and what removing a goal does to the funnels.
	Funnels    []stats.Funnel
	FunnelForm funnelForm
	GoalNotes  map[int64]string
	MaxFunnels int
	// The delete-stats form as sent (refused), and the notice of a deletion done.
	ResetForm   resetForm
	ResetNotice string
	// The viewer's traffic alerts of the website (their form), and the notice of a change.
	Alerts      alertsForm
	AlertNotice string
}

func (p *Pages) renderEdit(w http.ResponseWriter, r *http.Request, status int, site repository.Website, form websiteForm) {
	p.renderEditWith(w, r, status, site, form, goalForm{Kind: stats.GoalPageview})
}

// renderEditWith is the settings page with the add-a-goal form as given.
func (p *Pages) renderEditWith(w http.ResponseWriter, r *http.Request, status int, site repository.Website, form websiteForm, goal goalForm) {
	p.renderEditPage(w, r, status, site, form, goal, funnelForm{})
}

// renderEditPage is the settings page with the add-a-goal and add-a-funnel forms as given;
// more changes the page's other forms (a refused deletion of stats, say).
func (p *Pages) renderEditPage(w http.ResponseWriter, r *http.Request, status int, site repository.Website, form websiteForm, goal goalForm, funnel funnelForm, more ...func(*editWebsitePage)) {
	goals, err := p.base.Repo.Goals(r.Context(), site.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	funnels, err := p.base.Repo.Funnels(r.Context(), site.ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	notice := goalNotices[r.URL.Query().Get("notice")]
	if notice == "" {
		notice = funnelNotices[r.URL.Query().Get("notice")]
	}
	alerts, err := p.base.Repo.Alerts(r.Context(), site.ID, viewerOf(r).ID)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	page := editWebsitePage{
		Website: site, Form: form, Snippet: p.snippet(r, site.Domain), Goals: goals, GoalForm: goal,
		MaxGoals: stats.MaxGoals, Notice: notice,
		Funnels: funnels, FunnelForm: funnel, GoalNotes: goalFunnelNotes(funnels), MaxFunnels: stats.MaxFunnels,
		ResetNotice: resetNotices[r.URL.Query().Get("notice")],
		Alerts:      alertsFormOf(alerts, p.base.Outbox.Enabled()), AlertNotice: alertNotices[r.URL.Query().Get("notice")],
	}
	for _, change := range more {
		change(&page)
	}
	p.render(w, r, status, "edit.html", "Edit "+site.Domain, page)
}

// editWebsite takes the edit form: the same rules as PUT /api/v1/websites/{id}.
func (p *Pages) editWebsite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	form, settings, errs := readWebsiteForm(r.PostForm, true)
	form.Domain, form.HasPassword = site.Domain, site.PasswordHash != nil
	form.FactsRetention = p.websites.FactsRetention()
	form.ZoneFrom = p.zoneFrom(site)
	if len(errs) == 0 {
		var err error
		_, errs, err = p.websites.Update(r.Context(), user.ID, site.ID, settings)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.notFound(w, r) // deleted meanwhile
			return
		case err != nil:
			p.serverError(w, r, err)
			return
		case errs == nil:
			p.redirect(w, r, "/?notice=saved", http.StatusSeeOther)
			return
		}
	}
	form.Errors = errs
	p.renderEdit(w, r, http.StatusUnprocessableEntity, site, form)
}

// favorite stars or unstars a website from the list (a setting of the website, so an editor's).
func (p *Pages) favorite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	var on bool
	switch r.PostForm.Get("favorite") {
	case "1":
		on = true
	case "0":
	default:
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid form", "favorite must be 1 or 0.")
		return
	}
	_, _, err := p.websites.Update(r.Context(), user.ID, site.ID, website.Settings{Favorite: &on})
	if err != nil && !errors.Is(err, repository.ErrNotFound) {
		p.serverError(w, r, err)
		return
	}
	p.redirect(w, r, "/", http.StatusSeeOther)
}

// deletePage asks to confirm a deletion (without JavaScript, a page is the way to ask).
func (p *Pages) deletePage(w http.ResponseWriter, r *http.Request) {
	user := p.requireUser(w, r)
	if user == nil {
		return
	}
	site, ok := p.openSite(w, r, user, repository.RoleOwner)
	if !ok {
		return
	}
	p.render(w, r, http.StatusOK, "delete.html", "Delete "+site.Domain, site)
}

func (p *Pages) deleteWebsite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleOwner)
	if !ok {
		return
	}
	err := p.websites.Delete(r.Context(), user.ID, site.ID)
	if err != nil && !errors.Is(err, repository.ErrNotFound) {
		p.serverError(w, r, err)
		return
	}
	p.redirect(w, r, "/?notice=deleted", http.StatusSeeOther)
}
