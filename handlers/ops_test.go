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
