package pages_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// BenchmarkDashboardThroughHTTP measures GET /stats/{domain} over real HTTP, as a stranger
// sees a public website, on a year of stats: 365 days x 1,000 distinct pages, the counters of
// 10,000 visits a day (daily and hourly: visitors, visits, pageviews, bounces, durations),
// and every other statistic with a busy website's number of values (landing and exit pages,
// search engines and social networks included: about 2,700 daily rows a day in all, a million
// in the year). It reports latency percentiles of the whole dashboard (the headline numbers of
// the range and of the one before, current visitors, the notes, the chart, the top lists) over
// the whole year, the default last 30 days and today (the hourly chart), and of the realtime
// page, and of the dashboard with a comparison (whose bound is 1.5 s) and other tabs shown.
// The contract's bound is 150 ms p95 for the dashboard.
//
//	make bench
func BenchmarkDashboardThroughHTTP(b *testing.B) {
	e := newEnv(b)
	owner := e.UserWithPassword("bench@example.com")
	id := e.Site(owner.Key, "bench.example.com")
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -364)

	start := time.Now()
	repotest.SeedYear(b, e.Repo, id, first, repotest.Year{Pages: 1000, Others: true, Visits: 10_000})
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		if _, err := e.DB.Exec(`VACUUM ANALYZE ` + table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded a year in %v", time.Since(start).Round(time.Millisecond))

	client := e.Server.Client()
	ranges := []struct{ name, query string }{
		{"year", "?from=" + first.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)},
		{"last30days", ""},
		{"today", "?from=" + today.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)},
		{"realtime", "/realtime"},
		// With the comparison's dashed line and the lists' compared counts (section 20: within
		// 1.5 s), and a year in months of another metric.
		{"year_compared", "?from=" + first.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly) + "&comparison=previous_period"},
		{"last30days_compared", "?comparison=year_over_year&graph_metric=bounce_rate"},
		{"year_months_entry_pages", "?from=" + first.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly) +
			"&interval=month&graph_metric=visit_duration&pages=landing_page&locations=city&devices=operating_system"},
	}
	for _, r := range ranges {
		url := e.Server.URL + "/stats/bench.example.com" + r.query
		b.Run(r.name, func(b *testing.B) {
			testkit.TimeCalls(b, func() error {
				res, err := client.Get(url)
				if err != nil {
					return err
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "/section-0/page-0") && r.name != "realtime" && r.name != "year_months_entry_pages" {
					return fmt.Errorf("status %d: %.500s", res.StatusCode, body)
				}
				return nil
			})
		})
	}
}
