package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
// and a key past its rate is refused before it is looked up.
func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	c := echomiddleware.GetEchoContext(ctx)
	if c == nil {
		return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: errors.New("authenticate: no echo context")}
	}
	req := c.Request()
	var addr uint64
	if s.failLimit != nil {
		addr = s.failLimit.AddrKey(ratelimit.ClientAddr(req, s.trusted))
		if limited, wait := s.failLimit.Limited(addr); limited {
			return tooManyRequests(wait)
		}
	}
	failed := func() error {
		if s.failLimit != nil {
			s.failLimit.Charge(addr)
		}
		return errUnauthenticated
	}
	key, ok := bearerToken(req.Header.Get(echo.HeaderAuthorization))
	if !ok {
		return failed()
	}
	if s.keyLimit != nil {
		if ok, wait := s.keyLimit.Allow(s.keyLimit.StringKey(key)); !ok {
			return tooManyRequests(wait)
		}
	}
	userID, err := s.repo.UserIDByAPIKey(req.Context(), key)
	if errors.Is(err, repository.ErrNotFound) {
		return failed()
	}
	if err != nil {
		return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: fmt.Errorf("authenticate: %w", err)}
	}
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), userIDKey, userID)))
	return nil
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
