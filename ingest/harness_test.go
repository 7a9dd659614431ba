package ingest_test

import (
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/ingest/geotest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// collectEnv is the whole server (API and collector; testkit/harness) with the test GeoIP
// database and a user whose key makes the websites.
type collectEnv struct {
	*harness.Env
	key string // the API key of owner@example.com
}

// newCollectEnv builds the service with cfg, no background job running unless opts say so
// (harness.Started): the test flushes by itself, at moments it chooses.
func newCollectEnv(t testing.TB, cfg app.Config, opts ...harness.Option) *collectEnv {
	t.Helper()
	if cfg.Geo == nil {
		geo, err := ingest.OpenGeoDB(geotest.WriteCity(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = geo.Close() })
		cfg.Geo = geo
	}
	if cfg.BufferMaxKeys == 0 {
		cfg.BufferMaxKeys = 100_000
	}
	e := harness.New(t, append([]harness.Option{harness.Config(cfg)}, opts...)...)
	return &collectEnv{Env: e, key: e.User("owner@example.com").Key}
}

// site creates a website through the API (so this node's cache learns it at once).
func (c *collectEnv) site(domain string, fields ...string) int64 {
	c.T.Helper()
	return c.Site(c.key, domain, fields...)
}

// node is another node of the service (harness.Env.Node) with the same owner.
func (c *collectEnv) node(change func(*app.Config)) *collectEnv {
	return &collectEnv{Env: c.Node(change), key: c.key}
}
