package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/ratelimit"
)

// The stats reads of the API are bounded while they run (docs/hardening.md, "Queries"): each
// request's reads end after QueryTimeout (the context's deadline, which lib/pq turns into a
// cancel of the running statement, and which the repository's loops in Go check), and a key
// and a website have at most so many requests in flight, counted before the request's work
// starts. Their statements run on the repository's pool of reads, apart from signing in, the
// flush and /readyz.
//
// The stats operations are those under statsPaths: keyGate runs before the validator,
// boundQueries inside the strict handler, admitWebsite in the handlers once the website is
// known to be the caller's.

// Defaults of the bounds (QUERY_TIMEOUT, MAX_QUERIES_PER_KEY, MAX_QUERIES_PER_WEBSITE).
const (
	DefaultQueryTimeout         = 20 * time.Second
	DefaultMaxQueriesPerKey     = 4
	DefaultMaxQueriesPerWebsite = 4
	// MaxQueryTimeout leaves the answer time to be written within the server's write timeout
	// (60 s).
	MaxQueryTimeout = 50 * time.Second
)

// queryRetryAfter is the Retry-After of a request refused for the queries in flight: one
// query's time is usually well under a second.
const queryRetryAfter = 1

// statsPaths are the prefixes of the paths of the operations that read statistics, and
// statsOperations those operations.
var (
	statsPaths      = []string{"/api/v1/stats/", queryAPIPrefix}
	statsOperations = map[string]bool{
		"ListStats": true, "GetSummary": true, "GetTimeseries": true, "ListGoalConversions": true,
		"ListProperties": true, "ListRevenue": true, "GetFunnel": true, "GetRealtime": true, "QueryStats": true,
	}
)

func isStatsPath(path string) bool {
	return slices.ContainsFunc(statsPaths, func(p string) bool { return strings.HasPrefix(path, p) })
}

// keyGate lets a stats request in as one of its API key's queries in flight before anything
// else runs: the validator reads the body and looks the key up, and a refusal costs neither
// (a key's 20 requests of 48 KB each took the CPU the other tenants' reads needed). The key
// is the bearer token's keyed hash, so a request with a wrong token takes only that token's
// room; one without a bearer token passes, to be refused 401.
func (s *Server) keyGate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, ok := bearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		if !ok {
			return next(c)
		}
		key := s.keyQueries.StringKey(token)
		if !s.keyQueries.Enter(key) {
			return queriesInFlight("this API key", s.keyQueries.Limit())
		}
		defer s.keyQueries.Leave(key)
		return next(c)
	}
}

// queryScope is what one stats request holds: the website it was let in for, if any.
type queryScope struct {
	website int64
	entered bool
}

type queryScopeKey struct{}

// boundQueries runs a stats operation under the query timeout, and leaves the website's gate
// (admitWebsite) when the handler returns.
func (s *Server) boundQueries(next gen.StrictHandlerFunc, operation string) gen.StrictHandlerFunc {
	if !statsOperations[operation] {
		return next
	}
	return func(c echo.Context, request any) (any, error) {
		req := c.Request()
		scope := &queryScope{}
		defer func() {
			if scope.entered {
				s.siteQueries.Leave(uint64(scope.website))
			}
		}()
		ctx, cancel := context.WithTimeout(req.Context(), s.queryTimeout)
		defer cancel()
		c.SetRequest(req.WithContext(context.WithValue(ctx, queryScopeKey{}, scope)))
		return next(c, request)
	}
}

// admitWebsite lets the request in as one of the website's queries in flight, once the
// caller is known to read it (a stranger's requests must not take the website's room): a
// 429 error when the website has as many as it may.
func (s *Server) admitWebsite(ctx context.Context, websiteID int64) error {
	scope, _ := ctx.Value(queryScopeKey{}).(*queryScope)
	if scope == nil || scope.entered {
		return nil
	}
	if !s.siteQueries.Enter(uint64(websiteID)) {
		return queriesInFlight("this website", s.siteQueries.Limit())
	}
	scope.website, scope.entered = websiteID, true
	return nil
}

func queriesInFlight(whose string, limit int) error {
	return &apiError{status: http.StatusTooManyRequests, retryAfter: queryRetryAfter,
		message: fmt.Sprintf("Too many queries of %s at once: at most %d run at a time on this server.", whose, limit)}
}

// timedOut is the answer to stats reads stopped by the query timeout (or by their client
// leaving, when nobody reads the answer): a 503 whose Retry-After is the timeout, as a query
// that took that long is unlikely to take less at once.
func timedOut(timeout time.Duration, cause error) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, cause: cause, retryAfter: ratelimit.RetryAfter(timeout),
		message: fmt.Sprintf("The query took longer than %s, the most one may take, and was stopped: ask for a shorter range or fewer filters, or try again later.", timeout)}
}
