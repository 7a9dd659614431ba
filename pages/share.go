package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	embedopt "github.com/analytics-service/analytics/pages/embed"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Shared links (docs/teams.md): /share/DOMAIN?auth=TOKEN shows the website's dashboard, full
// lists, realtime view and export read-only, as a stranger sees a public website (no recent
// pageviews, no settings), whatever the website's privacy. A link's password, when it has
// one, is asked as a website's is (same limits); a right one grants this browser that link
// for GrantTTL. With embed=true the pages come without the site's chrome, for an iframe: only
// the embed views of links without a password may be framed by other sites.

// shared serves a stats page (dashboard, full list, realtime, export) in a shared link's
// view: the link of the auth token must be the website's, and its password granted to this
// browser when it has one.
func (p *Pages) shared(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		site, link, ok := p.sharedLink(w, r)
		if !ok {
			return
		}
		segment, ok := p.linkSegment(w, r, site, link)
		if !ok {
			return
		}
		q := r.URL.Query()
		errs := stats.FieldErrors{}
		embed := embedopt.Parse(q, errs)
		keep := url.Values{"auth": {q.Get("auth")}}
		for _, k := range embedopt.Params {
			if q.Has(k) && len(errs) == 0 {
				keep[k] = q[k]
			}
		}
		site.Role = "" // read-only, as a stranger sees a public website, whoever reads it
		v := statsView{path: sharePath(site.Domain), keep: keep, shared: &link, site: site, embed: embed, segment: segment}
		r = withView(r, v)
		if len(errs) > 0 {
			p.badParams(w, r, site.Domain, errs)
			return
		}
		if link.PasswordHash != nil && !p.validShareGrant(r, link) {
			p.passwordForm(w, r, site, "")
			return
		}
		if embed != nil && link.PasswordHash == nil {
			// The one view other sites may frame: it shows nothing a stranger could not read
			// with the link, and takes no cookie, so framing it clicks nothing on anyone's
			// behalf. Every other page keeps frame-ancestors 'none'.
			h := w.Header()
			h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "frame-ancestors 'none'", "frame-ancestors *", 1))
			h.Del("X-Frame-Options")
		}
		h(w, r)
	}
}

// linkSegment reads the segment of a link that has one (nil for none), as shareableSegment
// applies it. A segment that is no longer one it can apply (made personal, or given filters
// the dashboard cannot show, since the link was made) answers the 404 page: the link never
// shows more than it was made for. (Deleting the segment deleted the link.)
func (p *Pages) linkSegment(w http.ResponseWriter, r *http.Request, site repository.Website, link repository.SharedLink) (*lockedSegment, bool) {
	if link.SegmentID == nil {
		return nil, true
	}
	s, err := p.base.Repo.Segment(r.Context(), site.ID, 0, *link.SegmentID) // user 0: the website's own only
	if err != nil && !errors.Is(err, repository.ErrNotFound) {
		p.serverError(w, r, err)
		return nil, false
	}
	seg, ok := shareableSegment(s) // not found: the zero segment, which is not
	if !ok {
		p.notFound(w, r)
	}
	return seg, ok
}

func sharePath(domain string) string { return "/share/" + url.PathEscape(domain) }

// sharedLink finds the website of a share address and the link of its auth token, which must
// be the website's: a token unknown, deleted or of another website answers the 404 page of an
// unknown domain. Failed lookups count under the links' per-address limit, before they are
// made.
func (p *Pages) sharedLink(w http.ResponseWriter, r *http.Request) (repository.Website, repository.SharedLink, bool) {
	site, ok := p.lookupSite(w, r)
	if !ok {
		return site, repository.SharedLink{}, false
	}
	token := r.URL.Query().Get("auth")
	var link repository.SharedLink
	found := p.lookUpTokenOr(w, r, p.notFound, func() (err error) {
		if token == "" {
			return repository.ErrNotFound
		}
		link, err = p.base.Repo.SharedLinkByToken(r.Context(), site.ID, token)
		return err
	})
	return site, link, found
}

// unlockShared takes the password form of a shared link with a password: a right one grants
// this browser the link and sends it back to the page it asked for.
func (p *Pages) unlockShared(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	if !p.parseForm(w, r) {
		return
	}
	site, link, ok := p.sharedLink(w, r)
	if !ok {
		return
	}
	if link.PasswordHash == nil || p.validShareGrant(r, link) {
		p.redirect(w, r, r.URL.RequestURI(), http.StatusSeeOther)
		return
	}
	right, answered := p.base.AttemptPassword(w, r, began, p.base.TargetGuess(r, "shared_link|"+strconv.FormatInt(link.ID, 10)),
		func() (string, error) { return *link.PasswordHash, nil }, r.PostForm.Get("password"))
	if answered {
		return
	}
	if !right {
		p.passwordForm(w, r, site, "That password is not right.")
		return
	}
	p.setCookie(w, shareCookie(link), p.shareGrant(link), sharePath(site.Domain), GrantTTL)
	p.redirect(w, r, r.URL.RequestURI(), http.StatusSeeOther)
}

// A shared link's grant is "EXPIRY.MAC" over the link's id and the expiry; deleting the link
// ends it at once (every view looks the link up first).
func (p *Pages) shareGrant(l repository.SharedLink) string {
	return p.signedGrant(func(expiry string) string { return shareGrantMessage(l, expiry) })
}

func (p *Pages) validShareGrant(r *http.Request, l repository.SharedLink) bool {
	return p.validSignedGrant(r, shareCookie(l), func(expiry string) string { return shareGrantMessage(l, expiry) })
}

func shareGrantMessage(l repository.SharedLink, expiry string) string {
	return "shared_link|" + strconv.FormatInt(l.ID, 10) + "|" + l.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + expiry
}

func shareCookie(l repository.SharedLink) string { return "share_" + strconv.FormatInt(l.ID, 10) }

// embedCSS is the stylesheet of an embed view's background colour: the pages allow no inline
// style, so the colour comes from this address, checked as the view checks it.
func (p *Pages) embedCSS(w http.ResponseWriter, r *http.Request) {
	b := r.URL.Query().Get("background")
	if b != "transparent" && !embedopt.Colour.MatchString(b) {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid address", "background must be transparent or a colour such as #f9f9f9.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write([]byte("html.embed, html.embed body { background: " + b + "; }\n"))
}
