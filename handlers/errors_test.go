package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	analytics "github.com/analytics-service/analytics"
	"github.com/analytics-service/analytics/app"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := newEnv(t)
	key := e.user("a@example.com")
	cases := []struct {
		req    request
		status int
		allow  string // of a 405: exactly the methods the route answers
	}{
		{request{path: "/api/v1/nothing", key: key}, http.StatusNotFound, ""},
		{request{path: "/api/v1/websites/1/extra", key: key}, http.StatusNotFound, ""},
		{request{path: "/api/v2/websites", key: key}, http.StatusNotFound, ""},
		{request{path: "/api/"}, http.StatusNotFound, ""},
		{request{method: "PATCH", path: "/api/v1/stats/1", key: key}, http.StatusMethodNotAllowed, "GET"},
		{request{method: "DELETE", path: "/api/v1/websites", key: key}, http.StatusMethodNotAllowed, "GET, POST"},
		{request{method: "POST", path: "/api/v1/websites/1", key: key}, http.StatusMethodNotAllowed, "DELETE, GET, PATCH, PUT"},
		{request{method: "OPTIONS", path: "/api/v1/websites/1", key: key}, http.StatusMethodNotAllowed, "DELETE, GET, PATCH, PUT"},
		{request{method: "POST", path: "/api/v1/openapi.yaml"}, http.StatusMethodNotAllowed, "GET, HEAD"},
		{request{method: "TRACE", path: "/api/v1/openapi.yaml"}, http.StatusMethodNotAllowed, "GET, HEAD"},
	}
	for _, c := range cases {
		t.Run(c.req.method+" "+c.req.path, func(t *testing.T) {
			res := e.in(t).do(c.req)
			want(t, res, c.status)
			if allow := res.header.Get("Allow"); allow != c.allow {
				t.Fatalf("Allow %q, want %q", allow, c.allow)
			}
			if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

func TestInternalErrorHidesDetails(t *testing.T) {
	e := newEnv(t)
	key := e.user("a@example.com")
	id := e.store(key, "domain", "example.com")["id"]
	if _, err := e.db.Exec(`ALTER TABLE stats RENAME TO stats_gone`); err != nil {
		t.Fatal(err)
	}
	res := e.do(request{path: fmt.Sprintf("/api/v1/stats/%v?name=page&from=2026-01-01&to=2026-01-02", id), key: key})
	body := want(t, res, http.StatusInternalServerError)
	requestID := res.header.Get("X-Request-Id")
	if requestID == "" || body["message"] != "Internal server error." {
		t.Fatalf("X-Request-Id %q, body %v", requestID, body)
	}
	for _, leak := range []string{"stats", "relation", "SELECT", "pq:", ".go"} {
		if bytes.Contains(res.body, []byte(leak)) {
			t.Fatalf("500 body leaks %q: %s", leak, res.body)
		}
	}
	// The details are in the log, under the same request id.
	logs := e.logs.String()
	if !strings.Contains(logs, requestID) || !strings.Contains(logs, "stats") {
		t.Fatalf("log has no details for request %s:\n%s", requestID, logs)
	}
}

// API_RATE_LIMIT is per API key: a client behind the same address with another key is not
// slowed down by the first one.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.APIRateLimit = 1 })
	key, other := e.user("a@example.com"), e.user("b@example.com")
	for i := 0; i < 2; i++ { // the burst of 2
		want(t, e.do(request{path: "/api/v1/websites", key: key}), http.StatusOK)
	}
	res := e.do(request{path: "/api/v1/websites", key: key})
	want(t, res, http.StatusTooManyRequests)
	if res.header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q, want 1", res.header.Get("Retry-After"))
	}
	want(t, e.do(request{path: "/api/v1/websites", key: other}), http.StatusOK)
	e.clock.Advance(time.Second)
	want(t, e.do(request{path: "/api/v1/websites", key: key}), http.StatusOK)
}

// API_AUTH_FAILURE_LIMIT is per client address: past it, every request of that address is
// refused before its key is looked at (so a guess cannot be told from a refusal), until it
// has waited; other addresses, and the API with a right key elsewhere, go on.
func TestAuthFailureLimit(t *testing.T) {
	e := newEnv(t, func(o *app.Config) {
		o.AuthFailLimit = 1 // bursts of 10
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	})
	key := e.user("a@example.com")
	guesser := map[string]string{"X-Forwarded-For": "203.0.113.66"}
	for i := 0; i < 10; i++ {
		bad := request{path: "/api/v1/websites", key: fmt.Sprintf("pa_guess%d", i), remote: "10.0.0.1:1", headers: guesser}
		if i%3 == 0 {
			bad.key = "" // no key at all is a failure too
		}
		want(t, e.do(bad), http.StatusUnauthorized)
	}
	for _, k := range []string{"pa_guess", key} {
		res := e.do(request{path: "/api/v1/websites", key: k, remote: "10.0.0.1:1", headers: guesser})
		want(t, res, http.StatusTooManyRequests)
		if res.header.Get("Retry-After") != "1" {
			t.Fatalf("Retry-After %q", res.header.Get("Retry-After"))
		}
	}
	// Other clients behind the same proxy, and direct ones, are not affected.
	want(t, e.do(request{path: "/api/v1/websites", key: key, remote: "10.0.0.1:1", headers: map[string]string{"X-Forwarded-For": "203.0.113.67"}}), http.StatusOK)
	want(t, e.do(request{path: "/api/v1/websites", key: key}), http.StatusOK)
	// A forged X-Forwarded-For from an untrusted peer does not pick the address.
	for i := 0; i < 10; i++ {
		e.do(request{path: "/api/v1/websites", key: "pa_x", remote: "198.51.100.1:1", headers: map[string]string{"X-Forwarded-For": fmt.Sprint("203.0.113.", i)}})
	}
	want(t, e.do(request{path: "/api/v1/websites", key: key, remote: "198.51.100.1:1", headers: map[string]string{"X-Forwarded-For": "203.0.113.99"}}), http.StatusTooManyRequests)
	// A second later the guesser has one more try.
	e.clock.Advance(time.Second)
	want(t, e.do(request{path: "/api/v1/websites", key: key, remote: "10.0.0.1:1", headers: guesser}), http.StatusOK)
	want(t, e.do(request{path: "/api/v1/websites", key: "pa_bad", remote: "10.0.0.1:1", headers: guesser}), http.StatusUnauthorized)
	want(t, e.do(request{path: "/api/v1/websites", key: key, remote: "10.0.0.1:1", headers: guesser}), http.StatusTooManyRequests)
}

func TestServesTheSpec(t *testing.T) {
	e := newEnv(t)
	res := e.do(request{path: "/api/v1/openapi.yaml"})
	if res.status != 200 || !bytes.Equal(res.body, analytics.OpenAPI) {
		t.Fatalf("status %d, %d bytes (want the %d bytes of openapi.yaml)", res.status, len(res.body), len(analytics.OpenAPI))
	}
	if ct := res.header.Get("Content-Type"); ct != "application/yaml" {
		t.Fatalf("Content-Type %q", ct)
	}
}

// HEAD /api/v1/openapi.yaml answers what GET answers, without the body (it was a 405).
func TestHeadOpenAPI(t *testing.T) {
	e := newEnv(t)
	get := e.do(request{path: "/api/v1/openapi.yaml"})
	head := e.do(request{method: "HEAD", path: "/api/v1/openapi.yaml"})
	if head.status != http.StatusOK || len(head.body) != 0 {
		t.Fatalf("HEAD: %d with %d bytes of body, want 200 and none", head.status, len(head.body))
	}
	for _, h := range []string{"Content-Type", "Content-Length"} {
		if head.header.Get(h) == "" || head.header.Get(h) != get.header.Get(h) {
			t.Fatalf("%s: HEAD %q, GET %q", h, head.header.Get(h), get.header.Get(h))
		}
	}
	if !bytes.Equal(get.body, analytics.OpenAPI) {
		t.Fatal("GET does not serve openapi.yaml as written")
	}
}
