package pages_test

import (
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// BenchmarkDashboardThroughHTTP measures GET /stats/{domain} over real HTTP, as a stranger
// sees a public website, on a year of stats: 365 days x 1,000 distinct pages, the counters of
// 10,000 visits a day (daily and hourly: visitors, visits, pageviews, bounces, durations),
// and every other statistic with a busy website's number of values (landing and exit pages,
// search engines and social networks included: about 2,700 daily rows a day in all, a million
// in the year). It reports latency percentiles of the whole dashboard (the headline numbers of
// the range and of the one before, current visitors, the notes, the chart, the top lists) over
// the whole year, the default last 30 days and today (the hourly chart), and of the realtime
// page. The contract's bound is 150 ms p95 for the dashboard.
//
//	make bench
func BenchmarkDashboardThroughHTTP(b *testing.B) {
	e := newEnv(b)
	owner := e.account("bench@example.com")
	id := e.site(owner, "bench.example.com")
	today := e.clock.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -364)

	start := time.Now()
	repotest.SeedYear(b, e.repo, id, first, repotest.Year{Pages: 1000, Others: true, Visits: 10_000})
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		if _, err := e.db.Exec(`VACUUM ANALYZE ` + table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded a year in %v", time.Since(start).Round(time.Millisecond))

	client := e.srv.Client()
	ranges := []struct{ name, query string }{
		{"year", "?from=" + first.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)},
		{"last30days", ""},
		{"today", "?from=" + today.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)},
		{"realtime", "/realtime"},
	}
	for _, r := range ranges {
		url := e.srv.URL + "/stats/bench.example.com" + r.query
		b.Run(r.name, func(b *testing.B) {
			latencies := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := client.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				latencies = append(latencies, time.Since(t0))
				if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "/section-0/page-0") && r.name != "realtime" {
					b.Fatalf("status %d: %.500s", res.StatusCode, body)
				}
			}
			sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
			pct := func(p float64) float64 {
				return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
		})
	}
}
