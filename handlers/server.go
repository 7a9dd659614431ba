// Package handlers serves the JSON API: /api/v1 and the query API (POST /api/v2/query), through
// the generated strict server interface, the request validator in front of it, and the one
// error format of each.
package handlers

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	echomiddleware "github.com/oapi-codegen/echo-middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/goals"
	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/segments"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// Options configure the API.
type Options struct {
	Repo *repository.Repository
	// Websites applies the website rules to every change (and refreshes the ingest cache).
	Websites *website.Service
	Logger   *slog.Logger
	// RateLimit is the sustained number of API requests a second allowed per API key, with
	// bursts of twice as many; 0 turns the limit off.
	RateLimit float64
	// AuthFailLimit is the sustained number of failed authentications a second allowed per
	// client address, with bursts of ten times as many; past it every API request of that
	// address is refused until it has waited. 0 turns the limit off.
	AuthFailLimit float64
	// TrustedProxies are the peers whose X-Forwarded-For names the client address
	// (ratelimit.ClientAddr), as for collection.
	TrustedProxies []netip.Prefix
	// PlausibleHourlyLimit is Plausible's limit of requests an hour per API key on Plausible's
	// paths (PLAUSIBLE_API_RATE_LIMIT), beside RateLimit; 0 turns it off.
	PlausibleHourlyLimit int
	// Now is the limits' clock; nil means time.Now.
	Now func() time.Time
	// Location is the time zone whose hours and days the stats count (TZ); nil means UTC.
	Location *time.Location
	// Registry takes the API's metrics; nil means a new one.
	Registry prometheus.Registerer
	// Links says where the paging links and Location begin (PUBLIC_URL, else the request's
	// address as web.Links finds it).
	Links web.Links
	// KeyUses notes the keys used, for their "last used"; nil notes nothing.
	KeyUses *KeyUses
	// QueryTimeout bounds the reads of one stats request; 0 means DefaultQueryTimeout.
	// MaxQueriesPerKey and MaxQueriesPerWebsite bound the stats requests in flight at once of
	// one key and of one website on this node, past which 429; 0 means the defaults
	// (queries.go).
	QueryTimeout                           time.Duration
	MaxQueriesPerKey, MaxQueriesPerWebsite int
}

// Server implements gen.StrictServerInterface.
type Server struct {
	repo      *repository.Repository
	websites  *website.Service
	goals     *goals.Service
	pinned    *segments.Service // segments and annotations
	log       *slog.Logger
	links     web.Links
	loc       *time.Location
	keyLimit  *ratelimit.Limiter // requests per API key; nil: none
	failLimit *ratelimit.Limiter // failed authentications per client address; nil: none
	hourLimit *ratelimit.Limiter // requests an hour per API key on Plausible's paths; nil: none
	hourly    int                // hourLimit's requests an hour
	rightKeys rightKeys          // keys that were right on this node, for failLimit
	trusted   []netip.Prefix
	keyUses   *KeyUses
	now       func() time.Time
	// queryTimeout, keyQueries and siteQueries bound the stats reads (queries.go).
	queryTimeout            time.Duration
	keyQueries, siteQueries *ratelimit.Gate
}

var _ gen.StrictServerInterface = (*Server)(nil)

// maxBodySize bounds API request bodies; the largest legitimate one is a few exclusion lists.
const maxBodySize = "64K"

// New builds the API: echo, the request validator and the handlers, for every path under
// /api/v1 (the composition root, package app, mounts it beside the rest of the service).
func New(opts Options) (http.Handler, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	return newAPI(opts)
}

func newAPI(opts Options) (*echo.Echo, error) {
	spec, err := gen.GetSwagger()
	if err != nil {
		return nil, fmt.Errorf("load embedded spec: %w", err)
	}
	inputs, err := operationInputs(spec)
	if err != nil {
		return nil, err
	}
	s := &Server{
		repo:     opts.Repo,
		websites: opts.Websites,
		goals:    goals.NewService(opts.Repo),
		pinned:   segments.New(opts.Repo),
		log:      opts.Logger,
		links:    opts.Links,
		loc:      opts.Location,
		trusted:  opts.TrustedProxies,
		keyUses:  opts.KeyUses,
		now:      opts.Now,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.loc == nil {
		s.loc = time.UTC
	}
	s.queryTimeout = cmp.Or(opts.QueryTimeout, DefaultQueryTimeout)
	s.keyQueries = ratelimit.NewGate(cmp.Or(opts.MaxQueriesPerKey, DefaultMaxQueriesPerKey))
	s.keyQueries.Register(opts.Registry, "queries_per_key")
	s.siteQueries = ratelimit.NewGate(cmp.Or(opts.MaxQueriesPerWebsite, DefaultMaxQueriesPerWebsite))
	s.siteQueries.Register(opts.Registry, "queries_per_website")
	if opts.RateLimit > 0 {
		s.keyLimit = ratelimit.New(opts.RateLimit, int(2*opts.RateLimit), opts.Now)
		s.keyLimit.Register(opts.Registry, "api_keys")
	}
	if opts.PlausibleHourlyLimit > 0 {
		s.hourly = opts.PlausibleHourlyLimit
		s.hourLimit = ratelimit.New(float64(s.hourly)/3600, s.hourly, opts.Now)
		s.hourLimit.Register(opts.Registry, "api_keys_hourly")
	}
	if opts.AuthFailLimit > 0 {
		s.failLimit = ratelimit.New(opts.AuthFailLimit, int(10*opts.AuthFailLimit), opts.Now)
		s.failLimit.Register(opts.Registry, "api_auth_failures")
	}

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	// The TCP peer, never a client-supplied header, for anything that asks echo; the limits
	// use ratelimit.ClientAddr, which believes X-Forwarded-For only from TRUSTED_PROXIES.
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = errorHandler(opts.Logger, s.queryTimeout)
	e.Use(answerHeaders, dropOddRequestID, middleware.RequestID())
	e.Use(observe(opts.Logger, opts.Registry))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true}))
	e.Use(refuseOptions)

	validator := echomiddleware.OapiRequestValidatorWithOptions(spec, &echomiddleware.Options{
		DoNotValidateServers: true,
		ErrorHandler:         validationError,
		Options: openapi3filter.Options{
			AuthenticationFunc: s.authenticate,
			// Defaults are applied by the handlers; written into the query they would leak into
			// the paging links.
			SkipSettingDefaults:     true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(stringFormats)},
		},
	})
	apiMiddleware := []echo.MiddlewareFunc{validator}

	strict := gen.NewStrictHandler(s, []gen.StrictMiddlewareFunc{s.requestScope, s.boundQueries})
	router := routerWith{e: e, mw: apiMiddleware, stats: []echo.MiddlewareFunc{s.keyGate}, inputs: inputs, registered: map[string]bool{}}
	gen.RegisterHandlers(router, strict)
	for route, in := range inputs {
		if in.form != nil && !router.registered[route] {
			return nil, fmt.Errorf("%s takes a form but has no route: its form would not be checked", route)
		}
	}
	return e, nil
}

// stringFormats replaces kin-openapi's regexp for "date", which accepts 2026-02-30, with a
// real calendar check, within the days the service takes (years 1 to 9999: "0000-01-01"
// parses, but is no day the database can be asked about).
var stringFormats = map[string]openapi3.StringFormatValidator{
	"date": openapi3.NewCallbackValidator(func(s string) error {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return fmt.Errorf("not a calendar date")
		}
		if !stats.InBounds(t) {
			return fmt.Errorf("%s", stats.DayBoundsMessage)
		}
		return nil
	}),
}

// jsonOrFormMessage is the 415 of an operation that takes JSON or a form (the Sites API's).
const jsonOrFormMessage = "The request body must be application/json or a form (application/x-www-form-urlencoded or multipart/form-data)."

// requireForm answers 415, on an operation that takes a form, for a body that is not one
// (nor JSON, when the operation takes JSON too: Plausible's Sites API), before the validator
// reads it. An empty body needs no Content-Type; but one that says it is something else is
// refused, as a multipart type would send the generated binder down echo's multipart path.
// The Sites API's operations take a multipart form too, read here as the urlencoded one
// (multipartAsForm), as Plausible does.
func requireForm(orJSON bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ct := req.Header.Get(echo.HeaderContentType)
			if req.ContentLength != 0 || ct != "" {
				mediaType, params, err := mime.ParseMediaType(ct)
				if err == nil && orJSON && mediaType == echo.MIMEMultipartForm {
					if err := multipartAsForm(req, params["boundary"]); err != nil {
						return err
					}
					return next(c)
				}
				if err != nil || (mediaType != echo.MIMEApplicationForm && !(orJSON && mediaType == echo.MIMEApplicationJSON)) {
					message := statusMessage(http.StatusUnsupportedMediaType)
					if orJSON { // the refusal names every body the operation takes
						message = jsonOrFormMessage
					}
					return &apiError{status: http.StatusUnsupportedMediaType, message: message}
				}
			}
			return next(c)
		}
	}
}

// answerHeaders marks every answer of the API, errors and unknown routes included, as one
// that no cache keeps (it holds a user's numbers and websites, read with their key; a shared
// proxy or the client's disk must not serve it to anyone later) and whose Content-Type is
// believed as sent (a browser must not sniff a JSON error that quotes a value into HTML).
// Set before the handler runs, so every later path to the client keeps them; the spec
// declares both on every answer (components/headers NoStore and NoSniff).
func answerHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set(echo.HeaderCacheControl, "no-store")
		h.Set(echo.HeaderXContentTypeOptions, "nosniff")
		return next(c)
	}
}

// refuseOptions answers OPTIONS on an API route 405, like any method the route does not have:
// echo would answer 204, a response the spec has for no operation. So no 405's Allow lists
// OPTIONS either (echo's router puts it in every one).
func refuseOptions(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodOptions {
			if allow, ok := c.Get(echo.ContextKeyHeaderAllow).(string); ok {
				c.Response().Header().Set(echo.HeaderAllow, withoutOptions(allow))
			}
			return echo.ErrMethodNotAllowed
		}
		err := next(c)
		if h := c.Response().Header(); h.Get(echo.HeaderAllow) != "" && !c.Response().Committed {
			h.Set(echo.HeaderAllow, withoutOptions(h.Get(echo.HeaderAllow)))
		}
		return err
	}
}

// withoutOptions drops OPTIONS from an Allow header's list.
func withoutOptions(allow string) string {
	var kept []string
	for _, m := range strings.Split(allow, ",") {
		if m = strings.TrimSpace(m); m != "" && m != http.MethodOptions {
			kept = append(kept, m)
		}
	}
	return strings.Join(kept, ", ")
}

// requestScope runs inside the strict handler, after the validator: it hands the handlers the
// request's URL for the paging links, absolute under PUBLIC_URL when it is set, else at the
// request's own address (its Host; X-Forwarded-Proto and X-Forwarded-Host only from a trusted
// proxy), and the base of Location (PUBLIC_URL, else none: a path).
func (s *Server) requestScope(next gen.StrictHandlerFunc, _ string) gen.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		req := c.Request()
		u, err := url.Parse(s.links.Base(req, web.Absolute) + req.URL.EscapedPath())
		if err != nil {
			u = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath} // a Host no URL can hold: a path
		}
		u.RawQuery = req.URL.RawQuery
		ctx := context.WithValue(req.Context(), requestURLKey, u)
		ctx = context.WithValue(ctx, locationBaseKey{}, s.links.Base(req, web.Redirect))
		ctx = s.withShareBase(ctx, req)
		c.SetRequest(req.WithContext(ctx))
		return next(c, request)
	}
}

type locationBaseKey struct{}

// location is the Location of a path of the API: under PUBLIC_URL when it is set.
func location(ctx context.Context, path string) string {
	base, _ := ctx.Value(locationBaseKey{}).(string)
	return base + path
}

// routerWith registers each generated route with the API middleware, so that the validator
// only ever sees routes the spec has: unknown paths and methods get echo's own 404 and 405.
// Operations that take a form bound and check the body before the validator reads it (the
// others never read one); after the validator, checkInput refuses what it lets through.
type routerWith struct {
	e          *echo.Echo
	mw         []echo.MiddlewareFunc
	stats      []echo.MiddlewareFunc     // before mw, on the stats operations (isStatsPath)
	inputs     map[string]operationInput // by specRoute
	registered map[string]bool
}

func (r routerWith) with(method, path string, m []echo.MiddlewareFunc) []echo.MiddlewareFunc {
	route := specRoute(method, path)
	in := r.inputs[route]
	var out []echo.MiddlewareFunc
	if in.form != nil {
		out = append(out, middleware.BodyLimit(maxBodySize), requireForm(in.form.json))
	}
	if strings.HasPrefix(path, queryAPIPrefix) {
		out = append(out, middleware.BodyLimit(maxBodySize))
	}
	if isStatsPath(path) {
		out = append(out, r.stats...)
	}
	out = append(append(append(out, r.mw...), m...), checkInput(in))
	r.registered[route] = true
	return out
}

func (r routerWith) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.CONNECT(p, h, r.with(http.MethodConnect, p, m)...)
}
func (r routerWith) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.DELETE(p, h, r.with(http.MethodDelete, p, m)...)
}
func (r routerWith) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.GET(p, h, r.with(http.MethodGet, p, m)...)
}
func (r routerWith) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.HEAD(p, h, r.with(http.MethodHead, p, m)...)
}
func (r routerWith) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.OPTIONS(p, h, r.with(http.MethodOptions, p, m)...)
}
func (r routerWith) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.PATCH(p, h, r.with(http.MethodPatch, p, m)...)
}
func (r routerWith) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.POST(p, h, r.with(http.MethodPost, p, m)...)
}
func (r routerWith) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.PUT(p, h, r.with(http.MethodPut, p, m)...)
}
func (r routerWith) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.TRACE(p, h, r.with(http.MethodTrace, p, m)...)
}
