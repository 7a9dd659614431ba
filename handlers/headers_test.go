package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// Every answer of the API, errors included, tells caches to keep nothing (it holds a user's
// websites and numbers) and browsers to believe its Content-Type; the spec declares both, and
// Do checks each answer against it.
func TestAnswersAreNotStored(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.APIRateLimit = 1000 })
	key := e.User("a@example.com").Key
	id := e.store(key, "domain", "example.com")["id"]
	stats := fmt.Sprintf("/api/v1/stats/%v", id)
	cases := []struct {
		name   string
		req    harness.Request
		status int
	}{
		{"list", harness.Request{Path: "/api/v1/websites", Key: key}, http.StatusOK},
		{"stats", harness.Request{Path: stats + "?name=page&from=2026-03-01&to=2026-03-04", Key: key}, http.StatusOK},
		{"store", harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: url.Values{"domain": {"b.example.com"}}}, http.StatusCreated},
		{"the spec", harness.Request{Path: "/api/v1/openapi.yaml"}, http.StatusOK},
		{"the spec's headers", harness.Request{Method: "HEAD", Path: "/api/v1/openapi.yaml"}, http.StatusOK},
		{"no key", harness.Request{Path: "/api/v1/websites"}, http.StatusUnauthorized},
		{"a wrong key", harness.Request{Path: "/api/v1/websites", Key: "pa_wrong"}, http.StatusUnauthorized},
		{"no such website", harness.Request{Path: "/api/v1/websites/999999", Key: key}, http.StatusNotFound},
		{"no such route", harness.Request{Path: "/api/v1/nothing", Key: key}, http.StatusNotFound},
		{"no such version", harness.Request{Path: "/api/v2/websites", Key: key}, http.StatusNotFound},
		{"a bad parameter", harness.Request{Path: stats + "?name=page&from=2026-03-01&to=2026-02-01", Key: key}, http.StatusUnprocessableEntity},
		{"a bad field", harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: url.Values{"domain": {"not a host"}}}, http.StatusUnprocessableEntity},
		{"a method the route has not", harness.Request{Method: "DELETE", Path: "/api/v1/websites", Key: key}, http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := e.in(t).Do(c.req)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
		})
	}
}
