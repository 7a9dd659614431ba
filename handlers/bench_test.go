package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// BenchmarkStatsThroughHTTP measures GET /api/v1/stats over real HTTP on a website with a
// year of stats: 365 days x 1,000 distinct pages (365,000 daily rows, written through
// AddVisitBatch so the monthly rollup is filled as in production). It reports latency percentiles
// of the first page of 50 by count, over the whole year and over the last 30 days.
//
//	make bench
func BenchmarkStatsThroughHTTP(b *testing.B) {
	e := newEnv(b)
	key := e.User("bench@example.com").Key
	id := int64(e.store(key, "domain", "bench.example.com")["id"].(float64))
	last := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	first := last.AddDate(0, 0, -364)

	start := time.Now()
	repotest.SeedYear(b, e.Repo, id, first, repotest.Year{Pages: 1000})
	// What autovacuum would have done by then on a live database.
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		if _, err := e.DB.Exec(`VACUUM ANALYZE ` + table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded 365 x 1000 rows in %v", time.Since(start).Round(time.Millisecond))

	srv := httptest.NewServer(e.App.Handler)
	defer srv.Close()
	client := srv.Client()
	ranges := []struct {
		name     string
		from, to time.Time
	}{
		{"year", first, last},
		{"last30days", last.AddDate(0, 0, -29), last},
	}
	for _, r := range ranges {
		url := fmt.Sprintf("%s/api/v1/stats/%d?name=page&from=%s&to=%s&per_page=50", srv.URL, id,
			r.from.Format(time.DateOnly), r.to.Format(time.DateOnly))
		b.Run(r.name, func(b *testing.B) {
			benchGET(b, client, url, key, 1000)
		})
	}
}

// benchGET times b.N GETs of url with the API key and reports their p50, p95 and p99; an
// answer that is not 200 with at least minBody bytes fails the benchmark.
func benchGET(b *testing.B, client *http.Client, url, key string, minBody int) {
	testkit.TimeCalls(b, func() error {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(body) < minBody {
			return fmt.Errorf("status %d: %s", res.StatusCode, body)
		}
		return nil
	})
}
