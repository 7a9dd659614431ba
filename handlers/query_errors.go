package handlers

import (
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/analytics-service/analytics/gen"
)

// The query API (/api/v2) answers its errors as Plausible's does, {"error": "<sentence>"},
// where /api/v1 answers the phpAnalytics body: the error handler chooses by the path.

const queryAPIPrefix = "/api/v2/"

// plausibleV1Paths are Plausible's Stats API v1, beside the phpAnalytics /api/v1/stats/{id}:
// their errors too are Plausible's.
var plausibleV1Paths = []string{"/api/v1/stats/aggregate", "/api/v1/stats/timeseries",
	"/api/v1/stats/breakdown", "/api/v1/stats/realtime/visitors"}

func isQueryAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, queryAPIPrefix) || slices.Contains(plausibleV1Paths, p) || isSitesPath(p)
}

// isPlausiblePath tells whether a path is one of Plausible's APIs that its hourly limit per
// key bounds (the Stats API v1 and the Sites API; the query API v2 has this service's limits
// only).
func isPlausiblePath(p string) bool { return slices.Contains(plausibleV1Paths, p) || isSitesPath(p) }

// Plausible's own sentences for a request without a key and for a bad key or a site the key
// may not read, on its v1 paths (where tools may match them).
const (
	plausibleMissingKey   = "Missing API key. Please use a valid Plausible API key as a Bearer Token."
	plausibleUnauthorized = "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested."
	sitesUnauthorized     = "Invalid API key. Please make sure you're using a valid API key with access to the resource you've requested."
)

// unauthorizedSentence is the 401's sentence of the path.
func unauthorizedSentence(c echo.Context) string {
	req := c.Request()
	sites := isSitesPath(req.URL.Path)
	if !slices.Contains(plausibleV1Paths, req.URL.Path) && !sites {
		return queryUnauthorized
	}
	if _, ok := bearerToken(req.Header.Get(echo.HeaderAuthorization)); !ok {
		return plausibleMissingKey
	}
	if sites {
		return sitesUnauthorized
	}
	return plausibleUnauthorized
}

// writeQueryError writes e as the query API's error: a refused input (the validator's 422)
// is a 400 naming the field, a failed authentication the one 401 sentence.
func writeQueryError(c echo.Context, e *apiError, log *slog.Logger) {
	status, message := e.status, e.message
	h := c.Response().Header()
	switch status {
	case http.StatusUnprocessableEntity:
		status, message = http.StatusBadRequest, plausibleSentence(c, e)
	case http.StatusUnauthorized:
		message = unauthorizedSentence(c)
		h.Set(echo.HeaderWWWAuthenticate, "Bearer")
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(max(e.retryAfter, 1)))
	case http.StatusRequestEntityTooLarge:
		status, message = http.StatusBadRequest, "The request body is over "+maxBodySize+"B."
	case http.StatusMethodNotAllowed:
		if asSiteOperation(c.Request()) {
			status, message = http.StatusNotFound, siteNotFound
			h.Del(echo.HeaderAllow)
		}
	}
	if err := c.JSON(status, gen.QueryError{Error: message}); err != nil {
		log.Error("write error response", "error", err)
	}
}

// asSiteOperation: a method that /api/v1/sites/{site_id} has, on one of the Sites API's fixed
// names that lacks it (GET /api/v1/sites/shared-links, DELETE /api/v1/sites/goals...).
// Plausible routes those to the site operation, the fixed name taken for a domain, and
// answers its 404 "Site could not be found" (no domain is named so); clients call them
// (provider-plausible lists and deletes shared links so), and get that answer here too
// rather than a 405.
func asSiteOperation(req *http.Request) bool {
	rest, ok := strings.CutPrefix(req.URL.Path, sitesAPIPrefix+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// sitesDoing is what each Sites API call with a required parameter does, in Plausible's
// sentence for a missing one ("Parameter `site_id` is required to list goals"), by method
// and path.
var sitesDoing = map[string]string{
	"GET /api/v1/sites/goals":        "list goals",
	"GET /api/v1/sites/guests":       "list guests",
	"GET /api/v1/sites/custom-props": "list custom properties",
	"PUT /api/v1/sites/goals":        "create a goal",
	"PUT /api/v1/sites/shared-links": "create a shared link",
	"PUT /api/v1/sites/custom-props": "create a custom property",
	"PUT /api/v1/sites/guests":       "create guest",
	"POST /api/v1/sites":             "create a site",
}

// sitesMissingSentence is Plausible's sentence for a required parameter of the Sites API that
// the validator found missing; "" for any other refusal.
func sitesMissingSentence(req *http.Request, e *apiError) string {
	doing, ok := sitesDoing[req.Method+" "+req.URL.Path]
	if !ok {
		return ""
	}
	for _, name := range sortedKeys(e.fields) {
		if slices.Contains(e.fields[name], "is required") {
			return "Parameter `" + name + "` is required to " + doing
		}
	}
	return ""
}

// fieldSentence is one sentence of a 422's fields: "Invalid request: metrics is required."
func fieldSentence(e *apiError) string {
	var parts []string
	for _, name := range sortedKeys(e.fields) {
		for _, m := range e.fields[name] {
			parts = append(parts, name+" "+m)
		}
	}
	if len(parts) == 0 {
		return "Invalid request: " + e.message
	}
	return "Invalid request: " + strings.Join(parts, "; ") + "."
}

// plausibleSentence is a refused input's sentence: on Plausible's v1 paths, Plausible's own for
// a missing site_id or property (the spec requires them, so the validator refuses them before
// the handler), else the fields'.
func plausibleSentence(c echo.Context, e *apiError) string {
	if req := c.Request(); isSitesPath(req.URL.Path) {
		if s := sitesMissingSentence(req, e); s != "" {
			return s
		}
	}
	if slices.Contains(plausibleV1Paths, c.Request().URL.Path) {
		if _, missing := e.fields["site_id"]; missing {
			return plausibleMissingSite
		}
		if _, missing := e.fields["property"]; missing {
			return "The `property` parameter is required. Please provide at least one property to show a breakdown by."
		}
	}
	return fieldSentence(e)
}
