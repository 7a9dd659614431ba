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
	"github.com/analytics-service/analytics/testkit/harness"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	cases := []struct {
		req    harness.Request
		status int
		allow  string // of a 405: exactly the methods the route answers
	}{
		{harness.Request{Path: "/api/v1/nothing", Key: key}, http.StatusNotFound, ""},
		{harness.Request{Path: "/api/v1/websites/1/extra", Key: key}, http.StatusNotFound, ""},
		{harness.Request{Path: "/api/"}, http.StatusNotFound, ""},
		{harness.Request{Method: "PATCH", Path: "/api/v1/stats/1", Key: key}, http.StatusMethodNotAllowed, "GET"},
		{harness.Request{Method: "DELETE", Path: "/api/v1/websites", Key: key}, http.StatusMethodNotAllowed, "GET, POST"},
		{harness.Request{Method: "POST", Path: "/api/v1/websites/1", Key: key}, http.StatusMethodNotAllowed, "DELETE, GET, PATCH, PUT"},
		{harness.Request{Method: "OPTIONS", Path: "/api/v1/websites/1", Key: key}, http.StatusMethodNotAllowed, "DELETE, GET, PATCH, PUT"},
		{harness.Request{Method: "POST", Path: "/api/v1/openapi.yaml"}, http.StatusMethodNotAllowed, "GET, HEAD"},
		{harness.Request{Method: "TRACE", Path: "/api/v1/openapi.yaml"}, http.StatusMethodNotAllowed, "GET, HEAD"},
	}
	for _, c := range cases {
		t.Run(c.req.Method+" "+c.req.Path, func(t *testing.T) {
			res := e.in(t).Do(c.req)
			want(t, res, c.status)
			if allow := res.Header.Get("Allow"); allow != c.allow {
				t.Fatalf("Allow %q, want %q", allow, c.allow)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

func TestInternalErrorHidesDetails(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := e.store(key, "domain", "example.com")["id"]
	if _, err := e.DB.Exec(`ALTER TABLE stats RENAME TO stats_gone`); err != nil {
		t.Fatal(err)
	}
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%v?name=page&from=2026-01-01&to=2026-01-02", id), Key: key})
	body := want(t, res, http.StatusInternalServerError)
	requestID := res.Header.Get("X-Request-Id")
	if requestID == "" || body["message"] != "Internal server error." {
		t.Fatalf("X-Request-Id %q, body %v", requestID, body)
	}
	for _, leak := range []string{"stats", "relation", "SELECT", "pq:", ".go"} {
		if bytes.Contains(res.Body, []byte(leak)) {
			t.Fatalf("500 body leaks %q: %s", leak, res.Body)
		}
	}
	// The details are in the log, under the same request id.
	logs := e.Logs.String()
	if !strings.Contains(logs, requestID) || !strings.Contains(logs, "stats") {
		t.Fatalf("log has no details for request %s:\n%s", requestID, logs)
	}
}

// API_RATE_LIMIT is per API key: a client behind the same address with another key is not
// slowed down by the first one.
func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.APIRateLimit = 1 })
	key, other := e.User("a@example.com").Key, e.User("b@example.com").Key
	for i := 0; i < 2; i++ { // the burst of 2
		want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key}), http.StatusOK)
	}
	res := e.Do(harness.Request{Path: "/api/v1/websites", Key: key})
	want(t, res, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q, want 1", res.Header.Get("Retry-After"))
	}
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: other}), http.StatusOK)
	e.Clock.Advance(time.Second)
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key}), http.StatusOK)
}

// API_AUTH_FAILURE_LIMIT is per client address: past it, every request of that address is
// refused before its key is looked at (so a guess cannot be told from a refusal), until it
// has waited; other addresses, and the API with a right key elsewhere, go on.
func TestAuthFailureLimit(t *testing.T) {
	e := newEnv(t, func(o *app.Config) {
		o.AuthFailLimit = 1 // bursts of 10
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	})
	key := e.User("a@example.com").Key
	guesser := map[string]string{"X-Forwarded-For": "203.0.113.66"}
	for i := 0; i < 10; i++ {
		bad := harness.Request{Path: "/api/v1/websites", Key: fmt.Sprintf("pa_guess%d", i), Remote: "10.0.0.1:1", Headers: guesser}
		if i%3 == 0 {
			bad.Key = "" // no key at all is a failure too
		}
		want(t, e.Do(bad), http.StatusUnauthorized)
	}
	for _, k := range []string{"pa_guess", key} {
		res := e.Do(harness.Request{Path: "/api/v1/websites", Key: k, Remote: "10.0.0.1:1", Headers: guesser})
		want(t, res, http.StatusTooManyRequests)
		if res.Header.Get("Retry-After") != "1" {
			t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
		}
	}
	// Other clients behind the same proxy, and direct ones, are not affected.
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key, Remote: "10.0.0.1:1", Headers: map[string]string{"X-Forwarded-For": "203.0.113.67"}}), http.StatusOK)
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key}), http.StatusOK)
	// A forged X-Forwarded-For from an untrusted peer does not pick the address.
	for i := 0; i < 10; i++ {
		e.Do(harness.Request{Path: "/api/v1/websites", Key: "pa_x", Remote: "198.51.100.1:1", Headers: map[string]string{"X-Forwarded-For": fmt.Sprint("203.0.113.", i)}})
	}
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key, Remote: "198.51.100.1:1", Headers: map[string]string{"X-Forwarded-For": "203.0.113.99"}}), http.StatusTooManyRequests)
	// A second later the guesser has one more try.
	e.Clock.Advance(time.Second)
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key, Remote: "10.0.0.1:1", Headers: guesser}), http.StatusOK)
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: "pa_bad", Remote: "10.0.0.1:1", Headers: guesser}), http.StatusUnauthorized)
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key, Remote: "10.0.0.1:1", Headers: guesser}), http.StatusTooManyRequests)
}

func TestServesTheSpec(t *testing.T) {
	e := newEnv(t)
	res := e.Do(harness.Request{Path: "/api/v1/openapi.yaml"})
	if res.Status != 200 || !bytes.Equal(res.Body, analytics.OpenAPI) {
		t.Fatalf("status %d, %d bytes (want the %d bytes of openapi.yaml)", res.Status, len(res.Body), len(analytics.OpenAPI))
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/yaml" {
		t.Fatalf("Content-Type %q", ct)
	}
}

// HEAD /api/v1/openapi.yaml answers what GET answers, without the body (it was a 405).
func TestHeadOpenAPI(t *testing.T) {
	e := newEnv(t)
	get := e.Do(harness.Request{Path: "/api/v1/openapi.yaml"})
	head := e.Do(harness.Request{Method: "HEAD", Path: "/api/v1/openapi.yaml"})
	if head.Status != http.StatusOK || len(head.Body) != 0 {
		t.Fatalf("HEAD: %d with %d bytes of body, want 200 and none", head.Status, len(head.Body))
	}
	for _, h := range []string{"Content-Type", "Content-Length"} {
		if head.Header.Get(h) == "" || head.Header.Get(h) != get.Header.Get(h) {
			t.Fatalf("%s: HEAD %q, GET %q", h, head.Header.Get(h), get.Header.Get(h))
		}
	}
	if !bytes.Equal(get.Body, analytics.OpenAPI) {
		t.Fatal("GET does not serve openapi.yaml as written")
	}
}
