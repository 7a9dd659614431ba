package handlers

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/analytics-service/analytics/gen"
)

// The query API (/api/v2) answers its errors as Plausible's does, {"error": "<sentence>"},
// where /api/v1 answers the phpAnalytics body: the error handler chooses by the path.

const queryAPIPrefix = "/api/v2/"

func isQueryAPI(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, queryAPIPrefix)
}

// writeQueryError writes e as the query API's error: a refused input (the validator's 422)
// is a 400 naming the field, a failed authentication the one 401 sentence.
func writeQueryError(c echo.Context, e *apiError, log *slog.Logger) {
	status, message := e.status, e.message
	h := c.Response().Header()
	switch status {
	case http.StatusUnprocessableEntity:
		status, message = http.StatusBadRequest, fieldSentence(e)
	case http.StatusUnauthorized:
		message = queryUnauthorized
		h.Set(echo.HeaderWWWAuthenticate, "Bearer")
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(max(e.retryAfter, 1)))
	case http.StatusRequestEntityTooLarge:
		status, message = http.StatusBadRequest, "The request body is over "+maxBodySize+"B."
	}
	if err := c.JSON(status, gen.QueryError{Error: message}); err != nil {
		log.Error("write error response", "error", err)
	}
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
