package pages

import (
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

// guidePage is the data of guide.html: a website with nothing counted yet.
type guidePage struct {
	Website      repository.Website
	Owner        bool
	Snippet      trackerSnippet
	ExcludedIPs  int
	Outcome      *checkOutcome // the installation check's answer, after the verify button
	DashboardURL string
}

// waiting says whether a website has nothing counted yet, the case in which its dashboard
// shows how to start instead of empty tables.
func (p *Pages) waiting(r *http.Request, site repository.Website) (bool, error) {
	has, err := p.repo.HasStats(r.Context(), site.ID)
	return !has, err
}

func (p *Pages) renderGuide(w http.ResponseWriter, r *http.Request, status int, site repository.Website, outcome *checkOutcome) {
	data := guidePage{Website: site, Owner: isOwner(r, site), Outcome: outcome, DashboardURL: statsPath(site.Domain)}
	if data.Owner {
		data.Snippet = p.snippet(r)
		data.ExcludedIPs = len(website.Lines(deref(site.ExcludeIPs)))
	}
	p.render(w, r, status, "guide.html", site.Domain, data)
}

// verifySite runs the installation check of one of the owner's websites (POST, with the form's
// CSRF token) and shows its answer on the guide.
func (p *Pages) verifySite(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.ownedForm(w, r)
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
	service, err := url.Parse(p.links.Base(r, web.Absolute))
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	outcome := p.checker.check(r.Context(), site.Domain, service)
	p.renderGuide(w, r, http.StatusOK, site, &outcome)
}
