// Package pages is the HTML side of the service: signing in, the owner's websites, and the
// stats pages of a website with the privacy guard in front of them. Pages are rendered on the
// server and work without JavaScript; they read through the same repository queries as the API
// and change websites through the same rules (package website).
package pages

import (
	"github.com/analytics-service/analytics/sitecheck"

	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/goals"
	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
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
const DefaultFailureDelay = time.Second

// Pages serves the HTML side.
type Pages struct {
	repo         *repository.Repository
	websites     *website.Service
	goals        *goals.Service
	log          *slog.Logger
	loc          *time.Location
	now          func() time.Time
	links        web.Links
	secure       bool
	trusted      []netip.Prefix
	failureDelay time.Duration
	templates    map[string]*template.Template
	csrfKey      []byte
	grantKey     []byte
	deviceKey    []byte // signs device cookies
	mfaKey       []byte // signs the cookie between a sign-in's password and its code
	attemptsKey  []byte // keys the password attempts counted per account and website
	limits       attemptLimits
	hashing      chan struct{} // bounds concurrent argon2id work (19 MiB each)
	outbox       *account.Outbox
	sso          *sso.Provider
	checker      *sitecheck.Checker
	siteChecks   *ratelimit.Limiter // installation checks per user
	queryTimeout time.Duration
	mux          *http.ServeMux
	handler      http.Handler // mux behind the cross-origin check
}

// New builds the pages. It reads the service's signing keys, so the database must answer.
func New(ctx context.Context, opts Options) (*Pages, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Outbox == nil {
		opts.Outbox = account.NewOutbox(nil, opts.Logger)
	}
	if opts.FailureDelay <= 0 {
		opts.FailureDelay = DefaultFailureDelay
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
	p := &Pages{
		repo:         opts.Repo,
		goals:        goals.NewService(opts.Repo),
		websites:     opts.Websites,
		log:          opts.Logger,
		loc:          opts.Location,
		now:          opts.Now,
		links:        opts.Links,
		secure:       opts.Links.Public != nil && opts.Links.Public.Scheme == "https",
		trusted:      opts.TrustedProxies,
		failureDelay: opts.FailureDelay,
		templates:    templates,
		csrfKey:      keys[0],
		grantKey:     keys[1],
		deviceKey:    keys[2],
		attemptsKey:  keys[3],
		mfaKey:       keys[4],
		limits:       newAttemptLimits(opts.Now, opts.Registry),
		hashing:      make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		outbox:       opts.Outbox,
		sso:          opts.SSO,
		checker:      newSiteChecker(),
		siteChecks:   ratelimit.New(1/siteCheckEvery.Seconds(), siteCheckBurst, opts.Now),
		queryTimeout: opts.QueryTimeout,
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
	page("/{$}", p.timed(p.home), nil)
	page("/login", p.loginPage, p.login)
	page("/login/code", p.codeForm, p.signInCode)
	page("/login/sso", p.startSSO, nil)
	page("/login/sso/callback", p.ssoCallback, nil)
	page("/logout", nil, p.logout)
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
	page("/share/{domain}", p.timed(p.shared(p.dashboard)), p.unlockShared)
	page("/share/{domain}/export", p.timed(p.shared(p.export)), p.unlockShared)
	page("/share/{domain}/realtime", p.timed(p.shared(p.realtime)), p.unlockShared)
	page("/share/{domain}/{name}", p.timed(p.shared(p.list)), p.unlockShared)
	page("/embed.css", p.embedCSS, nil)
	page("/account", p.accountPage, nil)
	page("/account/email", nil, p.changeEmail)
	page("/account/email/confirm", p.confirmEmailForm, p.confirmEmail)
	page("/account/password", nil, p.changePassword)
	page("/account/keys", nil, p.createKey)
	page("/account/keys/{id}/revoke", nil, p.revokeKey)
	page("/account/totp", p.totpSetup, p.confirmTOTP)
	page("/account/totp/disable", nil, p.disableTOTP)
	page("/account/totp/codes", nil, p.newRecoveryCodes)
	page("/admin/settings/totp", nil, p.setTOTPRequired)
	page("/account/sessions/{id}/end", nil, p.endSession)
	page("/account/sessions/others/end", nil, p.endOtherSessions)
	page("/admin/users", p.adminUsers, p.invite)
	page("/admin/users/{id}/admin", nil, p.setAdmin)
	page("/admin/users/{id}/link", nil, p.passwordLink)
	page("/admin/users/{id}/remove", p.removePage, p.removeUser)
	page("/admin/links/{id}/revoke", nil, p.revokeLink)
	page("/password-reset", p.resetPage, p.requestReset)
	page("/set-password", p.setPasswordForm, p.setPassword)
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
	if p.secure {
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
	if pub := p.links.Public; pub != nil {
		// Fails only for an origin that is not scheme://host, which PUBLIC_URL cannot be.
		_ = cop.AddTrustedOrigin(pub.Scheme + "://" + pub.Host)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := r
		if host := p.links.Origin(r).Host; host != r.Host {
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

// view is what every template gets: the page's own data and what the layout needs.
type view struct {
	// Base starts every link, asset and form action: "{{$.Base}}/login". It is PUBLIC_URL
	// (path prefix included), or the request's address when its host is in ALLOWED_HOSTS, or
	// "" (the links are paths).
	Base  string
	Title string
	User  *repository.User
	CSRF  string // the token every state-changing form carries
	Data  any
	// Embed is set on a shared link's embed view: the page goes without the site's chrome.
	Embed *embedOptions
}

// render executes a page template into a buffer first, so a template failure becomes a clean
// 500 page instead of half a page.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	t, ok := p.templates[name]
	if !ok {
		p.serverError(w, r, fmt.Errorf("render: no template %q", name))
		return
	}
	v := view{Base: p.links.Base(r, web.Page), Title: title, User: viewerOf(r), Data: data}
	if sv, ok := r.Context().Value(viewKey{}).(statsView); ok {
		v.Embed = sv.embed
	}
	// Only pages with a form get the CSRF cookie: a stranger reading a public dashboard is
	// given no cookie at all.
	if v.User != nil || formPages[name] {
		v.CSRF = p.csrfToken(w, r)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		p.serverError(w, r, fmt.Errorf("render %s: %w", name, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Nothing a page shows may stay in a cache, the browser's included: after signing out (or
	// once a grant ends) Back must fetch the page again, not show the numbers it held. Every
	// page alike, so no page can forget it.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// formPages are the pages that have a form for a visitor who is not signed in.
var formPages = map[string]bool{"login.html": true, "password.html": true,
	"password_reset.html": true, "set_password.html": true, "confirm_email.html": true, "invitation.html": true,
	"login_code.html": true}

// errorPage is the data of error.html.
type errorPage struct {
	Status  int
	Heading string
	Message string
	Details []string
	// Back, when set, is a link to the page to go back to (BackLabel), shown before the home
	// page's.
	Back, BackLabel string
}

// fail answers with a readable error page.
func (p *Pages) fail(w http.ResponseWriter, r *http.Request, status int, heading, message string, details ...string) {
	p.render(w, r, status, "error.html", heading, errorPage{Status: status, Heading: heading, Message: message, Details: details})
}

// notFound is the one 404 page: an unknown domain, a private website seen by anyone but its
// owner, and an unknown address all look the same, so nothing can be probed.
func (p *Pages) notFound(w http.ResponseWriter, r *http.Request) {
	p.fail(w, r, http.StatusNotFound, "Page not found",
		"There is no page at this address, or you may not see it.")
}

// timed runs a page that reads stats under the query timeout: its reads end when it is up,
// answered by tooSlow.
func (p *Pages) timed(h http.HandlerFunc) http.HandlerFunc {
	if p.queryTimeout <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), p.queryTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	}
}

// tooSlow is the page of reads stopped for taking too long (repository.TimedOut): a 503 that
// says so, with a Retry-After, rather than the page of a failure.
func (p *Pages) tooSlow(w http.ResponseWriter, r *http.Request, err error) {
	p.log.Warn("page stopped", "method", r.Method, "path", r.URL.Path, "error", err)
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(p.queryTimeout)))
	p.fail(w, r, http.StatusServiceUnavailable, "This view took too long",
		"Reading its numbers took longer than this server allows, and was stopped. "+
			"A shorter range or fewer filters read less; or try again in a little while, when the server is less busy.")
}

// serverError logs a failure with a request id and shows only the id; reads stopped for
// taking too long get tooSlow's page.
func (p *Pages) serverError(w http.ResponseWriter, r *http.Request, err error) {
	if repository.TimedOut(err) {
		p.tooSlow(w, r, err)
		return
	}
	id := hex.EncodeToString(randomKey()[:8])
	p.log.Error("page failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "error", err)
	h := w.Header()
	h.Set("X-Request-Id", id)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusInternalServerError)
	// Written by hand: the template machinery may be what failed.
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head>`+
		`<body><main><h1>Something went wrong</h1><p>The error is logged as request %s. Please try again.</p>`+
		`<p><a href="%s/">Home</a></p></main></body></html>`, id, template.HTMLEscapeString(p.links.Base(r, web.Page)))
}

// redirect answers with a redirect to a path of the service, under PUBLIC_URL's path prefix
// when it is set: a path, so that a page opened by another name stays at that name.
func (p *Pages) redirect(w http.ResponseWriter, r *http.Request, path string, code int) {
	http.Redirect(w, r, p.links.Path(path), code)
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
	base := p.links.Base(r, web.Absolute)
	s := trackerSnippet{Code: web.SnippetFor(base, domain)}
	if p.links.Public == nil {
		s.FromRequest = base
	}
	return s
}

func randomKey() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on supported platforms (Go 1.24+ panics instead)
	return b
}
