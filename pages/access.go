package pages

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// openSite reads {id} of the URL: a website the user's role allows need on (the one access
// check of the API and the pages, website.Service.Open), with Website.Role set. A website the
// user has no role on is the 404 page, exactly like no website; one they may read but not
// change so is the 403 page. It answers the request itself and returns false otherwise.
func (p *Pages) openSite(w http.ResponseWriter, r *http.Request, user *repository.User, need repository.Role) (repository.Website, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return repository.Website{}, false
	}
	site, err := p.websites.Open(r.Context(), user.ID, id, need)
	if !p.refused(w, r, err) {
		return repository.Website{}, false
	}
	return site, true
}

// refused answers a refusal of the access check (or a failure) and returns false; true when
// err is nil.
func (p *Pages) refused(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, repository.ErrNotFound):
		p.notFound(w, r)
	case errors.Is(err, website.ErrForbidden):
		p.forbidden(w, r)
	default:
		p.serverError(w, r, err)
	}
	return false
}

// forbidden is the page of a change the user's role on a website does not allow.
func (p *Pages) forbidden(w http.ResponseWriter, r *http.Request) {
	p.fail(w, r, http.StatusForbidden, "Not allowed",
		"Your role on this website does not allow this. Ask its owner or an admin of it for another role.")
}

// siteForm is the start of every form that changes a website: a signed-in user, a valid form,
// and {id} a website their role allows need on. It answers the request itself otherwise.
func (p *Pages) siteForm(w http.ResponseWriter, r *http.Request, need repository.Role) (*repository.User, repository.Website, bool) {
	user := p.requireUser(w, r)
	if user == nil || !p.parseForm(w, r) {
		return nil, repository.Website{}, false
	}
	site, ok := p.openSite(w, r, user, need)
	return user, site, ok
}

// sitePage is the website {id} of a page (GET) that a signed-in user's role allows need on,
// else answered (the sign-in page, the 404 or the 403 page).
func (p *Pages) sitePage(w http.ResponseWriter, r *http.Request, need repository.Role) (repository.Website, bool) {
	user := p.requireUser(w, r)
	if user == nil {
		return repository.Website{}, false
	}
	return p.openSite(w, r, user, need)
}
