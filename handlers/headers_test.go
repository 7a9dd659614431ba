package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// Every answer of the API, errors included, tells caches to keep nothing (it holds a user's
// websites and numbers) and browsers to believe its Content-Type; the spec declares both, and
// do checks each answer against it.
func TestAnswersAreNotStored(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.APIRateLimit = 1000 })
	key := e.user("a@example.com")
	id := e.store(key, "domain", "example.com")["id"]
	stats := fmt.Sprintf("/api/v1/stats/%v", id)
	cases := []struct {
		name   string
		req    request
		status int
	}{
		{"list", request{path: "/api/v1/websites", key: key}, http.StatusOK},
		{"stats", request{path: stats + "?name=page&from=2026-03-01&to=2026-03-04", key: key}, http.StatusOK},
		{"store", request{method: "POST", path: "/api/v1/websites", key: key, form: url.Values{"domain": {"b.example.com"}}}, http.StatusCreated},
		{"the spec", request{path: "/api/v1/openapi.yaml"}, http.StatusOK},
		{"the spec's headers", request{method: "HEAD", path: "/api/v1/openapi.yaml"}, http.StatusOK},
		{"no key", request{path: "/api/v1/websites"}, http.StatusUnauthorized},
		{"a wrong key", request{path: "/api/v1/websites", key: "pa_wrong"}, http.StatusUnauthorized},
		{"no such website", request{path: "/api/v1/websites/999999", key: key}, http.StatusNotFound},
		{"no such route", request{path: "/api/v1/nothing", key: key}, http.StatusNotFound},
		{"no such version", request{path: "/api/v2/websites", key: key}, http.StatusNotFound},
		{"a bad parameter", request{path: stats + "?name=page&from=2026-03-01&to=2026-02-01", key: key}, http.StatusUnprocessableEntity},
		{"a bad field", request{method: "POST", path: "/api/v1/websites", key: key, form: url.Values{"domain": {"not a host"}}}, http.StatusUnprocessableEntity},
		{"a method the route has not", request{method: "DELETE", path: "/api/v1/websites", key: key}, http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := e.in(t).do(c.req)
			if res.status != c.status {
				t.Fatalf("status %d, want %d: %s", res.status, c.status, res.body)
			}
			if got := res.header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			if got := res.header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
		})
	}
}
