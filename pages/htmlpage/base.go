// Package htmlpage is what every HTML page of the service stands on, whichever package serves
// it: rendering a template into the layout, the error pages, redirects under PUBLIC_URL, the
// cookies, the CSRF token of every form, the signed-in viewer, and the limits on password
// guesses. Package pages (websites and their stats) and package signin (signing in and the
// account) both serve their pages through one Base.
package htmlpage

import (
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
	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
)

// Options configure a Base.
type Options struct {
	Repo   *repository.Repository
	Logger *slog.Logger
	// Location is the time zone the pages write times in (TZ); nil means UTC.
	Location *time.Location
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Links says where every link, asset, form action, redirect and cookie path begins; an
	// https PUBLIC_URL makes every cookie Secure.
	Links web.Links
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client; the limits
	// on password attempts count per client.
	TrustedProxies []netip.Prefix
	// Registry takes the metrics of the limits on wrong passwords; nil keeps none.
	Registry prometheus.Registerer
	// FailureDelay is the least time a wrong password takes to answer; 0 means
	// DefaultFailureDelay.
	FailureDelay time.Duration
	// Outbox sends the accounts' mail; nil sends none.
	Outbox *account.Outbox
	// QueryTimeout bounds the reads of one stats page; 0 means no bound of its own.
	QueryTimeout time.Duration
	// Templates are the pages, each parsed with the layout ("layout" is executed).
	Templates map[string]*template.Template
	// EmbedOf gives, for a page seen through a shared link's embed view, what the layout needs
	// to drop the site's chrome; nil (an untyped nil, so the templates' "if" is false) otherwise.
	EmbedOf func(*http.Request) any
	// CSRFKey signs the forms' tokens; AttemptsKey keys the attempts counted per account and
	// website. Both are the service's, shared by every node.
	CSRFKey, AttemptsKey []byte
}

// DefaultFailureDelay: a wrong password is answered no sooner than this, and never sooner than
// a right one (which costs one argon2id hash, a few tens of milliseconds).
const DefaultFailureDelay = time.Second

// Base serves what every page needs. Its exported fields are read-only after New.
type Base struct {
	Repo         *repository.Repository
	Log          *slog.Logger
	Location     *time.Location
	Now          func() time.Time
	Links        web.Links
	Secure       bool
	Trusted      []netip.Prefix
	Outbox       *account.Outbox
	QueryTimeout time.Duration
	failureDelay time.Duration
	templates    map[string]*template.Template
	embedOf      func(*http.Request) any
	csrfKey      []byte
	attemptsKey  []byte
	limits       attemptLimits
	hashing      chan struct{} // bounds concurrent argon2id work (19 MiB each)
}

// New builds a Base.
func New(opts Options) *Base {
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
	if opts.EmbedOf == nil {
		opts.EmbedOf = func(*http.Request) any { return nil }
	}
	return &Base{
		Repo:         opts.Repo,
		Log:          opts.Logger,
		Location:     opts.Location,
		Now:          opts.Now,
		Links:        opts.Links,
		Secure:       opts.Links.Public != nil && opts.Links.Public.Scheme == "https",
		Trusted:      opts.TrustedProxies,
		Outbox:       opts.Outbox,
		QueryTimeout: opts.QueryTimeout,
		failureDelay: opts.FailureDelay,
		templates:    opts.Templates,
		embedOf:      opts.EmbedOf,
		csrfKey:      opts.CSRFKey,
		attemptsKey:  opts.AttemptsKey,
		limits:       newAttemptLimits(opts.Now, opts.Registry),
		hashing:      make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
	}
}

// View is what every template gets: the page's own data and what the layout needs.
type View struct {
	// Base starts every link, asset and form action: "{{$.Base}}/login". It is PUBLIC_URL
	// (path prefix included), or the request's address when its host is in ALLOWED_HOSTS, or
	// "" (the links are paths).
	Base  string
	Title string
	User  *repository.User
	CSRF  string // the token every state-changing form carries
	Data  any
	// Embed is set on a shared link's embed view: the page goes without the site's chrome.
	Embed any
}

// Render executes a page template into a buffer first, so a template failure becomes a clean
// 500 page instead of half a page.
func (p *Base) Render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	t, ok := p.templates[name]
	if !ok {
		p.ServerError(w, r, fmt.Errorf("render: no template %q", name))
		return
	}
	v := View{Base: p.Links.Base(r, web.Page), Title: title, User: Viewer(r), Data: data}
	v.Embed = p.embedOf(r)
	// Only pages with a form get the CSRF cookie: a stranger reading a public dashboard is
	// given no cookie at all.
	if v.User != nil || formPages[name] {
		v.CSRF = p.CSRFToken(w, r)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		p.ServerError(w, r, fmt.Errorf("render %s: %w", name, err))
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

// ErrorPage is the data of error.html.
type ErrorPage struct {
	Status  int
	Heading string
	Message string
	Details []string
	// Back, when set, is a link to the page to go back to (BackLabel), shown before the home
	// page's.
	Back, BackLabel string
}

// Fail answers with a readable error page.
func (p *Base) Fail(w http.ResponseWriter, r *http.Request, status int, heading, message string, details ...string) {
	p.Render(w, r, status, "error.html", heading, ErrorPage{Status: status, Heading: heading, Message: message, Details: details})
}

// NotFound is the one 404 page: an unknown domain, a private website seen by anyone but its
// owner, and an unknown address all look the same, so nothing can be probed.
func (p *Base) NotFound(w http.ResponseWriter, r *http.Request) {
	p.Fail(w, r, http.StatusNotFound, "Page not found",
		"There is no page at this address, or you may not see it.")
}

// Timed runs a page that reads stats under the query timeout: its reads end when it is up,
// answered by tooSlow.
func (p *Base) Timed(h http.HandlerFunc) http.HandlerFunc {
	if p.QueryTimeout <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), p.QueryTimeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	}
}

// TooSlow is the page of reads stopped for taking too long (repository.TimedOut): a 503 that
// says so, with a Retry-After, rather than the page of a failure.
func (p *Base) TooSlow(w http.ResponseWriter, r *http.Request, err error) {
	p.Log.Warn("page stopped", "method", r.Method, "path", r.URL.Path, "error", err)
	w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfter(p.QueryTimeout)))
	p.Fail(w, r, http.StatusServiceUnavailable, "This view took too long",
		"Reading its numbers took longer than this server allows, and was stopped. "+
			"A shorter range or fewer filters read less; or try again in a little while, when the server is less busy.")
}

// ServerError logs a failure with a request id and shows only the id; reads stopped for
// taking too long get tooSlow's page.
func (p *Base) ServerError(w http.ResponseWriter, r *http.Request, err error) {
	if repository.TimedOut(err) {
		p.TooSlow(w, r, err)
		return
	}
	id := hex.EncodeToString(RandomKey()[:8])
	p.Log.Error("page failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "error", err)
	h := w.Header()
	h.Set("X-Request-Id", id)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusInternalServerError)
	// Written by hand: the template machinery may be what failed.
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head>`+
		`<body><main><h1>Something went wrong</h1><p>The error is logged as request %s. Please try again.</p>`+
		`<p><a href="%s/">Home</a></p></main></body></html>`, id, template.HTMLEscapeString(p.Links.Base(r, web.Page)))
}

// Redirect answers with a redirect to a path of the service, under PUBLIC_URL's path prefix
// when it is set: a path, so that a page opened by another name stays at that name.
func (p *Base) Redirect(w http.ResponseWriter, r *http.Request, path string, code int) {
	http.Redirect(w, r, p.Links.Path(path), code)
}

// RandomKey is 32 random bytes: keys, tokens and request ids.
func RandomKey() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on supported platforms (Go 1.24+ panics instead)
	return b
}

// CountOf is a count with its noun, singular for one, its digits grouped by a narrow no-break
// space as every page groups them: "1 second", "12 345 visitors".
func CountOf(n int64, one, many string) string { return web.Counted(n, "\u202f", one, many) }

// Minute writes a time to the minute in the service's time zone.
func (p *Base) Minute(t time.Time) string {
	return t.In(p.Location).Format("2006-01-02 15:04")
}
