// Package pages is the HTML side of the service: signing in, the owner's websites, and the
// stats pages of a website with the privacy guard in front of them. Pages are rendered on the
// server and work without JavaScript; they read through the same repository queries as the API
// and change websites through the same rules (package website).
package pages

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/goals"
	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/pages/signin"
	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/segments"
	"github.com/analytics-service/analytics/sitecheck"
	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// Options configure the pages.
type Options struct {
	Repo   *repository.Repository
	Logger *slog.Logger
	// Location is the time zone whose calendar days the stats use (TZ); nil means UTC.
	Location *time.Location
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Links says where every link, asset, form action, redirect and cookie path begins
	// (PUBLIC_URL, path prefix included, when it is set). An https PUBLIC_URL makes every
	// cookie Secure.
	Links web.Links
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client, as for
	// collection; the limits on password attempts count per client.
	TrustedProxies []netip.Prefix
	// Websites applies the website rules to every change (and refreshes the ingest cache).
	Websites *website.Service
	// Registry takes the metrics of the limits on wrong passwords; nil keeps none.
	Registry prometheus.Registerer
	// FailureDelay is the least time a wrong password or sign-in takes to answer; 0 means
	// DefaultFailureDelay.
	FailureDelay time.Duration
	// Outbox sends invitation and reset mail in the background; nil, or one without a
	// mailer, sends none (links are shown to the admin, and resets go through an admin).
	Outbox *account.Outbox
	// SSO is single sign-on's provider; nil turns it off.
	SSO *sso.Provider
	// QueryTimeout bounds the reads of one stats page (QUERY_TIMEOUT); 0 means no bound but
	// the statements' own (repository.OpenPools).
	QueryTimeout time.Duration
}

// DefaultFailureDelay: a wrong password is answered no sooner than this, and never sooner than
// a right one (which costs one argon2id hash, a few tens of milliseconds).
const DefaultFailureDelay = htmlpage.DefaultFailureDelay

// Pages serves the HTML side: the pages of websites and their stats here, signing in and the
// account in package signin, both on one htmlpage.Base.
type Pages struct {
	base       *htmlpage.Base
	signin     *signin.Handlers
	websites   *website.Service
	goals      *goals.Service
	pinned     *segments.Service // segments and annotations
	grantKey   []byte
	checker    *sitecheck.Checker
	siteChecks *ratelimit.Limiter // installation checks per user
	mux        *http.ServeMux
	handler    http.Handler // mux behind the cross-origin check
}

// New builds the pages. It reads the service's signing keys, so the database must answer.
func New(ctx context.Context, opts Options) (*Pages, error) {
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	templates, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	// The service's signing keys, one per purpose, shared by every node.
	var keys [5][]byte
	for i, purpose := range []string{"csrf", "grant", "device", "attempts", "mfa"} {
		if keys[i], err = opts.Repo.SigningKey(ctx, purpose); err != nil {
			return nil, fmt.Errorf("pages: %w", err)
		}
	}
	base := htmlpage.New(htmlpage.Options{
		Repo: opts.Repo, Logger: opts.Logger, Location: opts.Location, Now: opts.Now, Links: opts.Links,
		TrustedProxies: opts.TrustedProxies, Registry: opts.Registry, FailureDelay: opts.FailureDelay,
		Outbox: opts.Outbox, QueryTimeout: opts.QueryTimeout, Templates: templates, EmbedOf: embedOf,
		CSRFKey: keys[0], AttemptsKey: keys[3],
	})
	p := &Pages{
		base:       base,
		signin:     signin.New(base, opts.SSO, keys[2], keys[4]),
		goals:      goals.NewService(opts.Repo),
		pinned:     segments.New(opts.Repo),
		websites:   opts.Websites,
		grantKey:   keys[1],
		checker:    newSiteChecker(),
		siteChecks: ratelimit.New(1/siteCheckEvery.Seconds(), siteCheckBurst, opts.Now),
	}
	p.mux = p.routes()
	p.handler = p.crossOrigin()
	return p, nil
}

func (p *Pages) routes() *http.ServeMux {
	mux := http.NewServeMux()
	page := func(pattern string, get, post http.HandlerFunc) {
		mux.Handle(pattern, p.withViewer(methods(get, post, p)))
	}
	p.signin.Routes(page)
	page("/{$}", p.timed(p.home), nil)
	page("/websites", nil, p.addWebsite)
	page("/websites/{id}/edit", p.editPage, p.editWebsite)
	page("/websites/{id}/delete", p.deletePage, p.deleteWebsite)
	page("/websites/{id}/favorite", nil, p.favorite)
	page("/websites/{id}/goals", nil, p.addGoal)
	page("/websites/{id}/goals/{goal}/remove", nil, p.removeGoal)
	page("/websites/{id}/funnels", nil, p.addFunnel)
	page("/websites/{id}/funnels/{funnel}/remove", nil, p.removeFunnel)
	page("/websites/{id}/funnels/{funnel}/move", nil, p.moveFunnelStep)
	page("/websites/{id}/import", nil, p.importPlausible)
	page("/websites/{id}/import-goatcounter", nil, p.importGoatCounter)
	page("/websites/{id}/reset", nil, p.resetStats)
	page("/websites/{id}/alerts", nil, p.setAlerts)
	page("/websites/{id}/members", p.membersPage, p.inviteMember)
	page("/websites/{id}/members/{user}/role", nil, p.setMemberRole)
	page("/websites/{id}/members/{user}/remove", nil, p.removeMember)
	page("/websites/{id}/invitations/{link}/revoke", nil, p.revokeInvitation)
	page("/websites/{id}/transfer", nil, p.transferWebsite)
	page("/invitation", p.invitationForm, p.acceptInvitation)
	page("/websites/{id}/shared", p.sharedLinksPage, p.createSharedLink)
	page("/websites/{id}/shared/{link}/rename", nil, p.renameSharedLink)
	page("/websites/{id}/shared/{link}/delete", nil, p.deleteSharedLink)
	page("/websites/{id}/segments", nil, p.saveSegment)
	page("/websites/{id}/segments/{segment}/rename", nil, p.renameSegment)
	page("/websites/{id}/segments/{segment}/filters", nil, p.replaceSegmentFilters)
	page("/websites/{id}/segments/{segment}/delete", nil, p.deleteSegment)
	page("/websites/{id}/annotations", nil, p.addAnnotation)
	page("/websites/{id}/annotations/{annotation}/delete", nil, p.deleteAnnotation)
	page("/share/{domain}", p.timed(p.shared(p.dashboard)), p.unlockShared)
	page("/share/{domain}/export", p.timed(p.shared(p.export)), p.unlockShared)
	page("/share/{domain}/realtime", p.timed(p.shared(p.realtime)), p.unlockShared)
	page("/share/{domain}/{name}", p.timed(p.shared(p.list)), p.unlockShared)
	page("/embed.css", p.embedCSS, nil)
	page("/admin/users", p.adminUsers, p.invite)
	page("/admin/users/{id}/admin", nil, p.setAdmin)
	page("/admin/users/{id}/link", nil, p.passwordLink)
	page("/admin/users/{id}/remove", p.removePage, p.removeUser)
	page("/admin/links/{id}/revoke", nil, p.revokeLink)
	page("/websites/{id}/verify", p.siteCheckPage, p.verifySite)
	page("/stats/{domain}", p.timed(p.dashboard), p.unlock)
	page("/stats/{domain}/export", p.timed(p.export), p.unlock)
	page("/stats/{domain}/realtime", p.timed(p.realtime), p.unlock)
	page("/stats/{domain}/{name}", p.timed(p.list), p.unlock)
	mux.Handle("/", p.withViewer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.notFound(w, r)
	})))
	return mux
}

// ServeHTTP sends every page with the security headers, refuses cross-origin form posts, and
// routes.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No inline script or style anywhere: a stranger's value that slipped past escaping still
	// could not run. Framing is refused (clickjacking of the owner's forms).
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
		"img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if p.base.Secure {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	p.handler.ServeHTTP(w, r)
}

// crossOrigin refuses state-changing requests that a browser marks as coming from another
// site (Sec-Fetch-Site, Origin), before any handler runs; the CSRF token of each form is the
// second, independent check. The origin of this site is PUBLIC_URL's when it is set, and the
// request's own (a trusted proxy's X-Forwarded-Host included) otherwise: a proxy that passes
// another Host on must not make every form look foreign.
func (p *Pages) crossOrigin() http.Handler {
	cop := http.NewCrossOriginProtection()
	if pub := p.base.Links.Public; pub != nil {
		// Fails only for an origin that is not scheme://host, which PUBLIC_URL cannot be.
		_ = cop.AddTrustedOrigin(pub.Scheme + "://" + pub.Host)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r
		if host := p.base.Links.Origin(r).Host; host != r.Host {
			seen = r.WithContext(r.Context())
			seen.Host = host
		}
		if err := cop.Check(seen); err != nil {
			p.fail(w, r, http.StatusForbidden, "Form refused",
				"This form was sent from another site. Go back, reload the page and try again.")
			return
		}
		p.mux.ServeHTTP(w, r)
	})
}

// methods answers GET (and HEAD) with get and POST with post; any other method, or one with no
// handler, gets a readable 405 page.
func methods(get, post http.HandlerFunc, p *Pages) http.Handler {
	allow := ""
	if get != nil {
		allow = "GET, HEAD"
	}
	if post != nil {
		if allow != "" {
			allow += ", "
		}
		allow += "POST"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case (r.Method == http.MethodGet || r.Method == http.MethodHead) && get != nil:
			get(w, r)
		case r.Method == http.MethodPost && post != nil:
			post(w, r)
		default:
			w.Header().Set("Allow", allow)
			p.fail(w, r, http.StatusMethodNotAllowed, "Method not allowed",
				"This address does not take a "+r.Method+" request.")
		}
	})
}

// trackerSnippet is the snippet the owner's pages show: at PUBLIC_URL, else at the address the
// page was opened at, with a note to set PUBLIC_URL.
type trackerSnippet struct {
	Code        string
	FromRequest string // the request's address the snippet uses when PUBLIC_URL is unset
	// Local is, on the home page, the tag of local websites (web.SnippetFor: with data-local),
	// for the LocalDomains among those listed; "" when none is.
	Local        string
	LocalDomains []string
}

// snippet is the tag of the website domain (web.SnippetFor), or of any ("") website.
func (p *Pages) snippet(r *http.Request, domain string) trackerSnippet {
	base := p.base.Links.Base(r, web.Absolute)
	s := trackerSnippet{Code: web.SnippetFor(base, domain)}
	if p.base.Links.Public == nil {
		s.FromRequest = base
	}
	return s
}
