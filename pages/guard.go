package pages

import (
	"crypto/hmac"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// GrantTTL is how long a right website password opens that website's pages in one browser.
const GrantTTL = 7 * 24 * time.Hour

// access is the guard's verdict.
type access int

const (
	allowed access = iota
	hidden         // answer exactly as for an unknown domain (404)
	locked         // show the password form (401)
)

// guard is the privacy rule, the one function every stats page and the export go through:
// the owner and the members (site.Role, read by lookupSite) see everything; privacy 0 is for
// anyone, 1 for them only, 2 for them and for a browser holding a grant of the website's
// current access version.
func (p *Pages) guard(r *http.Request, site repository.Website) access {
	if site.Role != "" {
		return allowed
	}
	switch site.Privacy {
	case website.Public:
		return allowed
	case website.Password:
		if site.PasswordHash != nil && p.validGrant(r, site) {
			return allowed
		}
		return locked
	default:
		return hidden
	}
}

// site finds the website a stats URL names and applies the guard. It answers the request
// itself (redirect to the canonical domain, 404, or the 401 password form) and returns false
// unless the page may be shown.
func (p *Pages) site(w http.ResponseWriter, r *http.Request) (repository.Website, bool) {
	if v, ok := r.Context().Value(viewKey{}).(statsView); ok && v.shared != nil {
		return v.site, true // a shared link's view, checked by p.shared
	}
	site, ok := p.lookupSite(w, r)
	if !ok {
		return site, false
	}
	switch p.guard(r, site) {
	case allowed:
		return site, true
	case locked:
		p.passwordForm(w, r, site, "")
	default:
		p.notFound(w, r)
	}
	return repository.Website{}, false
}

// lookupSite reads {domain} of the URL: a domain typed as a user would (www., upper case) is
// redirected to its canonical form, an unknown one is the 404 page. The website comes with the
// signed-in user's role on it (Website.Role, "" for none).
func (p *Pages) lookupSite(w http.ResponseWriter, r *http.Request) (repository.Website, bool) {
	raw := r.PathValue("domain")
	domain, err := website.NormaliseDomain(raw)
	if err != nil {
		p.notFound(w, r)
		return repository.Website{}, false
	}
	if domain != raw && r.Method != http.MethodPost {
		prefix := "/stats/"
		if strings.HasPrefix(r.URL.Path, "/share/") {
			prefix = "/share/"
		}
		u := *r.URL
		u.Path = prefix + domain + strings.TrimPrefix(r.URL.Path, prefix+raw)
		u.RawPath = ""
		p.redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
		return repository.Website{}, false
	}
	site, err := p.base.Repo.WebsiteByDomain(r.Context(), domain)
	if errors.Is(err, repository.ErrNotFound) {
		p.notFound(w, r)
		return repository.Website{}, false
	}
	if err == nil && viewerOf(r) != nil {
		site.Role, err = p.websites.Role(r.Context(), viewerOf(r).ID, site)
	}
	if err != nil {
		p.serverError(w, r, err)
		return repository.Website{}, false
	}
	return site, true
}

// passwordPage is the data of password.html.
type passwordPage struct {
	Domain string
	Action string
	Error  string
}

// passwordForm is what a password website shows instead of its stats.
func (p *Pages) passwordForm(w http.ResponseWriter, r *http.Request, site repository.Website, problem string) {
	w.Header().Set("WWW-Authenticate", `Form realm="stats"`)
	p.render(w, r, http.StatusUnauthorized, "password.html", "Password required",
		passwordPage{Domain: site.Domain, Action: r.URL.RequestURI(), Error: problem})
}

// unlock takes the password form of a password website: a right password gives this browser a
// grant for the website and sends it back to the page it asked for.
func (p *Pages) unlock(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	if !p.parseForm(w, r) {
		return
	}
	site, ok := p.lookupSite(w, r)
	if !ok {
		return
	}
	switch p.guard(r, site) {
	case allowed:
		p.redirect(w, r, r.URL.RequestURI(), http.StatusSeeOther)
		return
	case hidden:
		p.notFound(w, r)
		return
	}
	right, answered := p.base.AttemptPassword(w, r, began, p.base.PasswordGuess(r, site.ID),
		func() (string, error) { return *site.PasswordHash, nil }, r.PostForm.Get("password"))
	if answered {
		return
	}
	if !right {
		p.passwordForm(w, r, site, "That password is not right.")
		return
	}
	p.setCookie(w, grantCookie(site), p.grant(site), grantPath(site), GrantTTL)
	p.redirect(w, r, r.URL.RequestURI(), http.StatusSeeOther)
}

// A grant is "EXPIRY.MAC": MAC signs the website id, its access version and the expiry (unix
// seconds). A change of the website's password or privacy moves the version and voids it.
func (p *Pages) grant(site repository.Website) string {
	return p.signedGrant(func(expiry string) string { return grantMessage(site, expiry) })
}

func (p *Pages) validGrant(r *http.Request, site repository.Website) bool {
	return p.validSignedGrant(r, grantCookie(site), func(expiry string) string { return grantMessage(site, expiry) })
}

// signedGrant is a grant cookie's value, "EXPIRY.MAC", GrantTTL from now: MAC signs message's
// text for that expiry (unix seconds). The password grants of websites and of shared links
// are both made so.
func (p *Pages) signedGrant(message func(expiry string) string) string {
	expiry := strconv.FormatInt(p.base.Now().Add(GrantTTL).Unix(), 10)
	return expiry + "." + p.sign(p.grantKey, message(expiry))
}

// validSignedGrant tells whether the request's cookie holds a grant signedGrant made for
// message that has not expired.
func (p *Pages) validSignedGrant(r *http.Request, cookie string, message func(expiry string) string) bool {
	c, err := r.Cookie(cookie)
	if err != nil {
		return false
	}
	expiry, mac, ok := strings.Cut(c.Value, ".")
	if !ok {
		return false
	}
	until, err := strconv.ParseInt(expiry, 10, 64)
	if err != nil || p.base.Now().Unix() >= until {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(p.sign(p.grantKey, message(expiry))))
}

func grantMessage(site repository.Website, expiry string) string {
	return "grant|" + strconv.FormatInt(site.ID, 10) + "|" + strconv.FormatInt(site.AccessVersion, 10) + "|" + expiry
}

// One cookie per website, sent only to that website's pages.
func grantCookie(site repository.Website) string {
	return "grant_" + strconv.FormatInt(site.ID, 10)
}

func grantPath(site repository.Website) string {
	return "/stats/" + url.PathEscape(site.Domain)
}
