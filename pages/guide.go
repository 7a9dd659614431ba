package pages

import (
	"github.com/analytics-service/analytics/sitecheck"

	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// Installation checks per user: a few at once, then one every 5 minutes. Each fetches a page
// from the server; the limit keeps one account from using the server to hammer a website.
const (
	siteCheckBurst = 5
	siteCheckEvery = 5 * time.Minute
)

// siteCheckShown is how long a check's answer stays at /websites/{id}/verify (and is kept):
// long enough to reload it or send its address to whoever installs the snippet.
const siteCheckShown = 24 * time.Hour

// guidePage is the data of guide.html: a website with nothing counted yet.
type guidePage struct {
	Website      repository.Website
	Owner        bool
	Snippet      trackerSnippet
	ExcludedIPs  int
	Outcome      *sitecheck.Outcome // the installation check's answer, after the verify button
	DashboardURL string
}

// waiting says whether a website has nothing counted yet, the case in which its dashboard
// shows how to start instead of empty tables.
func (p *Pages) waiting(r *http.Request, site repository.Website) (bool, error) {
	has, err := p.base.Repo.HasStats(r.Context(), site.ID)
	return !has, err
}

func (p *Pages) renderGuide(w http.ResponseWriter, r *http.Request, status int, site repository.Website, outcome *sitecheck.Outcome) {
	// The snippet and the installation check are for those who may change the website.
	data := guidePage{Website: site, Owner: site.Role.Can(repository.RoleEditor), Outcome: outcome, DashboardURL: statsPath(site.Domain)}
	if data.Owner {
		data.Snippet = p.snippet(r, site.Domain)
		data.ExcludedIPs = len(website.Lines(deref(site.ExcludeIPs)))
	}
	p.render(w, r, status, "guide.html", site.Domain, data)
}

// siteCheckPage shows the last installation check of one of the owner's websites on the guide
// (GET /websites/{id}/verify, where verifySite leads): reloaded or opened from a shared
// address, the same answer, without checking again; none in the last siteCheckShown, the
// guide with its button.
func (p *Pages) siteCheckPage(w http.ResponseWriter, r *http.Request) {
	site, ok := p.sitePage(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	last, err := p.base.Repo.LastSiteCheck(r.Context(), site.ID, p.base.Now().Add(-siteCheckShown))
	if errors.Is(err, repository.ErrNotFound) {
		p.renderGuide(w, r, http.StatusOK, site, nil)
		return
	}
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.renderGuide(w, r, http.StatusOK, site, &sitecheck.Outcome{Found: last.Found, Message: last.Message, CheckedAt: p.minute(last.CheckedAt)})
}

// verifySite runs the installation check of one of the owner's websites (POST, with the form's
// CSRF token), keeps its answer and sends the browser to it (303 to siteCheckPage), so that
// a reload shows the answer again rather than asking to post the form once more.
func (p *Pages) verifySite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	if allowed, wait := p.siteChecks.Allow(p.siteChecks.StringKey(strconv.FormatInt(user.ID, 10))); !allowed {
		minutes := int((wait + time.Minute - 1) / time.Minute)
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		p.render(w, r, http.StatusTooManyRequests, "error.html", "Too many checks", errorPage{
			Status: http.StatusTooManyRequests, Heading: "Too many checks",
			Message: "You have run the installation check " + strconv.Itoa(siteCheckBurst) + " times in a short while. Try again in " + countOf(int64(minutes), "minute", "minutes") + ".",
			Back:    statsPath(site.Domain), BackLabel: "Back to " + site.Domain,
		})
		return
	}
	service, err := url.Parse(p.base.Links.Base(r, web.Absolute))
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	outcome := p.checker.Check(r.Context(), site.Domain, service)
	now := p.base.Now()
	check := repository.SiteCheck{CheckedAt: now, Found: outcome.Found, Message: outcome.Message}
	if err := p.base.Repo.SaveSiteCheck(r.Context(), site.ID, check, now.Add(-siteCheckShown)); err != nil {
		p.serverError(w, r, err)
		return
	}
	p.redirect(w, r, fmt.Sprintf("/websites/%d/verify#check-result", site.ID), http.StatusSeeOther)
}

// testSiteChecker, set only by the tests' UseTestSiteChecker, replaces the checker of every
// Pages built while it is set, so that a test can check a website served on loopback.
var testSiteChecker *sitecheck.Checker

func newSiteChecker() *sitecheck.Checker {
	if testSiteChecker != nil {
		c := *testSiteChecker
		return &c
	}
	return sitecheck.New()
}
