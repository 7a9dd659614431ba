package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	echomiddleware "github.com/oapi-codegen/echo-middleware"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
)

type contextKey int

const (
	userIDKey contextKey = iota
	requestURLKey
)

var errUnauthenticated = &echo.HTTPError{Code: http.StatusUnauthorized, Message: "Unauthenticated."}

// authenticate is the validator's check of the bearer scheme: it runs before any parameter is
// looked at, so a request without a valid key is a 401 whatever else is wrong with it. The
// caller's user id rides on the request context to the handler.
//
// The limits come first and cost no database lookup: an address that failed authentication
// too often is refused whatever key it sends now (so a guess cannot be told from a refusal),
// and a key past its rate is refused before it is looked up. A key is counted as a failure of
// its address before it is looked up, and taken back when it was right, so a parallel burst
// of guesses gets no more lookups than the limit; a key that was right on this node before is
// not a guess, and is only checked against the limit (a client using its key on many
// connections at once is not refused for it).
func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	c := echomiddleware.GetEchoContext(ctx)
	if c == nil {
		return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: errors.New("authenticate: no echo context")}
	}
	req := c.Request()
	key, wellFormed := bearerToken(req.Header.Get(echo.HeaderAuthorization))
	attempt := s.keyAttempt(req, key, wellFormed)
	if ok, wait := attempt.start(); !ok {
		return tooManyRequests(wait)
	}
	if !wellFormed {
		return errUnauthenticated
	}
	if s.keyLimit != nil {
		if ok, wait := s.keyLimit.Allow(s.keyLimit.StringKey(key)); !ok {
			attempt.refund() // not looked up: no guess was made
			return tooManyRequests(wait)
		}
	}
	if s.hourLimit != nil && isPlausiblePath(req.URL.Path) {
		if ok, wait := s.hourLimit.Allow(s.hourLimit.StringKey(key)); !ok {
			attempt.refund()
			return &echo.HTTPError{Code: http.StatusTooManyRequests, Internal: &apiError{status: http.StatusTooManyRequests,
				message:    fmt.Sprintf("Too many API requests. Your API key is limited to %d requests per hour.", s.hourly),
				retryAfter: ratelimit.RetryAfter(wait)}}
		}
	}
	found, err := s.repo.AuthenticateAPIKey(req.Context(), key)
	if errors.Is(err, repository.ErrNotFound) {
		attempt.failed()
		return errUnauthenticated
	}
	if err != nil {
		attempt.refund()
		return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: fmt.Errorf("authenticate: %w", err)}
	}
	attempt.right()
	if found.Scope == repository.ScopeStatsRead && (!readsOnly(req) || isSitesPath(req.URL.Path)) {
		return &echo.HTTPError{Code: http.StatusForbidden, Internal: &apiError{status: http.StatusForbidden, message: statsKeyMessage}}
	}
	s.keyUses.note(found)
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), userIDKey, found.UserID)))
	return nil
}

// keyAttempt is one authentication under the limit on failures per client address.
type keyAttempt struct {
	s       *Server // nil: no limit
	addr    uint64
	key     uint64 // the key's keyed hash
	known   bool   // the key was right on this node before: not a guess
	charged bool
}

func (s *Server) keyAttempt(req *http.Request, key string, wellFormed bool) keyAttempt {
	if s.failLimit == nil {
		return keyAttempt{}
	}
	a := keyAttempt{s: s, addr: s.failLimit.AddrKey(ratelimit.ClientAddr(req, s.trusted))}
	if wellFormed {
		a.key = s.failLimit.StringKey(key)
		a.known = s.rightKeys.has(a.key)
	}
	return a
}

// start counts the attempt, before the key is looked up, unless the key was right before;
// false when the address is past its limit.
func (a *keyAttempt) start() (bool, time.Duration) {
	if a.s == nil {
		return true, 0
	}
	if a.known {
		limited, wait := a.s.failLimit.Limited(a.addr)
		return !limited, wait
	}
	ok, wait := a.s.failLimit.Allow(a.addr)
	a.charged = ok
	return ok, wait
}

func (a *keyAttempt) refund() {
	if a.charged {
		a.s.failLimit.Refund(a.addr)
	}
}

func (a *keyAttempt) failed() {
	if a.s != nil && a.known { // revoked since: a failure like any other
		a.s.rightKeys.forget(a.key)
		a.s.failLimit.Charge(a.addr)
	}
}

func (a *keyAttempt) right() {
	if a.s != nil && !a.known {
		a.refund()
		a.s.rightKeys.add(a.key)
	}
}

// rightKeys are the keys that were right on this node, as keyed hashes (never a key): at
// most maxRightKeys, forgotten all at once when full.
type rightKeys struct {
	mu   sync.Mutex
	keys map[uint64]struct{}
}

const maxRightKeys = 10_000

func (k *rightKeys) has(key uint64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.keys[key]
	return ok
}

func (k *rightKeys) add(key uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil || len(k.keys) >= maxRightKeys {
		k.keys = map[uint64]struct{}{}
	}
	k.keys[key] = struct{}{}
}

func (k *rightKeys) forget(key uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.keys, key)
}

const statsKeyMessage = "This API key may only read stats (its scope is stats:read): make a key that may provision sites."

// readsOnly tells whether a request only reads: what a stats:read key may send, but on the
// Sites API, which Plausible's stats keys do not reach at all (authenticate).
func readsOnly(req *http.Request) bool {
	return req.Method == http.MethodGet || req.Method == http.MethodHead ||
		(req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, queryAPIPrefix))
}

func tooManyRequests(wait time.Duration) error {
	return &echo.HTTPError{Code: http.StatusTooManyRequests, Internal: &apiError{
		status: http.StatusTooManyRequests, message: statusMessage(http.StatusTooManyRequests),
		retryAfter: ratelimit.RetryAfter(wait)}}
}

// bearerToken reads "Bearer <token>" (scheme case-insensitive, RFC 7235).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

func userID(ctx context.Context) int64 {
	id, _ := ctx.Value(userIDKey).(int64)
	return id
}

func requestURL(ctx context.Context) *url.URL {
	u, _ := ctx.Value(requestURLKey).(*url.URL)
	if u == nil {
		return &url.URL{}
	}
	return u
}
