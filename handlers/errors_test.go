package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	analytics "github.com/analytics-service/analytics"
	"github.com/analytics-service/analytics/handlers"
)

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := newEnv(t)
	key := e.user("a@example.com")
	cases := []struct {
		req    request
		status int
	}{
		{request{path: "/api/v1/nothing", key: key}, http.StatusNotFound},
		{request{path: "/api/v1/websites/1/extra", key: key}, http.StatusNotFound},
		{request{path: "/api/v2/websites", key: key}, http.StatusNotFound},
		{request{path: "/"}, http.StatusNotFound},
		{request{method: "PATCH", path: "/api/v1/stats/1", key: key}, http.StatusMethodNotAllowed},
		{request{method: "DELETE", path: "/api/v1/websites", key: key}, http.StatusMethodNotAllowed},
		{request{method: "POST", path: "/api/v1/websites/1", key: key}, http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.req.method+" "+c.req.path, func(t *testing.T) {
			res := e.in(t).do(c.req)
			want(t, res, c.status)
			if c.status == http.StatusMethodNotAllowed && res.header.Get("Allow") == "" {
				t.Fatal("405 without Allow")
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

func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(o *handlers.Options) { o.RateLimit = 1 })
	key := e.user("a@example.com")
	statuses := []int{}
	for i := 0; i < 4; i++ {
		statuses = append(statuses, e.do(request{path: "/api/v1/websites", key: key}).status)
	}
	res := e.do(request{path: "/api/v1/websites", key: key})
	want(t, res, http.StatusTooManyRequests)
	if res.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	if statuses[0] != 200 || statuses[1] != 200 {
		t.Fatalf("statuses %v: the burst of 2 should pass", statuses)
	}
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
