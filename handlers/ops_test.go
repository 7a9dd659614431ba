package handlers_test

import (
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// /readyz is the API's readiness (the database answers); /readyz/collect is the collector's
// (its buffer has room), which holds while the database is unreachable.
func TestReadinessOfAPIAndCollection(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.BufferMaxKeys = 28 })
	pipeline := e.App.Pipeline
	status := func(path string) int { return e.Do(harness.Request{Path: path}).Status }
	if a, c := status("/readyz"), status("/readyz/collect"); a != 200 || c != 200 {
		t.Fatalf("database up: /readyz %d, /readyz/collect %d; want 200 and 200", a, c)
	}

	if err := e.Pools.Close(); err != nil { // the database is gone for this server
		t.Fatal(err)
	}
	if a, c := status("/readyz"), status("/readyz/collect"); a != http.StatusServiceUnavailable || c != 200 {
		t.Fatalf("database gone: /readyz %d, /readyz/collect %d; want 503 and 200", a, c)
	}
	if err := pipeline.Counters.Add([]ingest.Key{{WebsiteID: 1, Name: "page", Value: "/a"}, {WebsiteID: 1, Name: "page", Value: "/b"}}); err != nil {
		t.Fatal(err)
	}
	if c := status("/readyz/collect"); c != 200 {
		t.Fatalf("room for one more visit (2 + 26 of 28 keys: a visit adds 26): /readyz/collect %d, want 200", c)
	}
	if err := pipeline.Counters.Add([]ingest.Key{{WebsiteID: 1, Name: "page", Value: "/c"}}); err != nil {
		t.Fatal(err)
	}
	res := e.Do(harness.Request{Path: "/readyz/collect"})
	if res.Status != http.StatusServiceUnavailable || res.JSON(t)["status"] != "unavailable" {
		t.Fatalf("no room for one more visit (3 + 26 of 28 keys): /readyz/collect %d %s, want 503", res.Status, res.Body)
	}
}

// /api/health answers as Plausible's: the database's state, 500 when it is gone.
func TestPlausibleHealth(t *testing.T) {
	e := newEnv(t)
	res := e.Do(harness.Request{Path: "/api/health"})
	if res.Status != http.StatusOK || string(res.Body) != "{\"postgres\":\"ok\"}\n" {
		t.Fatalf("database up: %d %s", res.Status, res.Body)
	}
	if res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/health"}); res.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.Status)
	}
	if err := e.Pools.Close(); err != nil {
		t.Fatal(err)
	}
	res = e.Do(harness.Request{Path: "/api/health"})
	if res.Status != http.StatusInternalServerError || res.JSON(t)["postgres"] != "error" {
		t.Fatalf("database gone: %d %s", res.Status, res.Body)
	}
}

// /api/docs/query/schema.json is the query body's schema: a query it describes is one the
// query API runs, and its properties are the body's.
func TestQuerySchema(t *testing.T) {
	e := newEnv(t)
	res := e.Do(harness.Request{Path: "/api/docs/query/schema.json"})
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", res.Status, res.Header.Get("Content-Type"))
	}
	schema := res.JSON(t)
	props, _ := schema["properties"].(map[string]any)
	for _, name := range []string{"site_id", "metrics", "date_range", "dimensions", "filters", "order_by", "include", "pagination"} {
		if props[name] == nil {
			t.Errorf("no property %s in %v", name, props)
		}
	}
	if req, _ := schema["required"].([]any); len(req) == 0 {
		t.Errorf("required: %v", schema["required"])
	}
}
