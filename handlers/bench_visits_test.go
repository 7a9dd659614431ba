package handlers_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// BenchmarkVisitsThroughHTTP measures the summary, the time series and the realtime view over
// real HTTP, without filters, on a website with a year of 10,000 visits a day: the counters of
// section 8 (daily and hourly) and every other statistic of a busy website, written through
// AddVisitBatch as collection writes them, and a full realtime window (30 minutes of pageviews, 25
// recent pageviews, two nodes' visitors). It reports latency percentiles; the contract's bound
// is 100 ms p95 for each.
//
//	make bench
func BenchmarkVisitsThroughHTTP(b *testing.B) {
	e := newEnv(b)
	key := e.User("bench@example.com").Key
	id := int64(e.store(key, "domain", "bench.example.com")["id"].(float64))
	last := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC) // the env clock's today
	first := last.AddDate(0, 0, -364)

	start := time.Now()
	repotest.SeedYear(b, e.Repo, id, first, repotest.Year{Pages: 1000, Others: true, Visits: 10_000})
	now := e.Clock.Now()
	for m := 0; m < 30; m++ {
		if _, err := e.DB.Exec(`INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, $3)`,
			id, now.Truncate(time.Minute).Add(-time.Duration(m)*time.Minute), 15+m%7); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 25; i++ {
		if _, err := e.DB.Exec(`INSERT INTO realtime_recent (website_id, at, page, referrer, country, browser, device) VALUES ($1, $2, $3, 'www.google.com', 'DE:Germany', 'Firefox', 'desktop')`,
			id, now.Add(-time.Duration(i*7)*time.Second), fmt.Sprintf("/section-%d/page-%d", i%17, i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.DB.Exec(`INSERT INTO realtime_visitors (node, website_id, visitors, flushed_at) VALUES ('a', $1, 40, $2), ('b', $1, 35, $2)`, id, now); err != nil {
		b.Fatal(err)
	}
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly", "realtime_minutes", "realtime_recent", "realtime_visitors"} {
		if _, err := e.DB.Exec(`VACUUM ANALYZE ` + table); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded a year of 10,000 visits a day in %v", time.Since(start).Round(time.Millisecond))

	srv := httptest.NewServer(e.App.Handler)
	defer srv.Close()
	client := srv.Client()
	year := fmt.Sprintf("from=%s&to=%s", first.Format(time.DateOnly), last.Format(time.DateOnly))
	month := fmt.Sprintf("from=%s&to=%s", last.AddDate(0, 0, -30).Format(time.DateOnly), last.Format(time.DateOnly))
	for _, c := range []struct{ name, path string }{
		{"summary/year", "summary?" + year},
		{"summary/last30days", "summary?" + month},
		{"timeseries/day/year", "timeseries?interval=day&" + year},
		{"timeseries/month/year", "timeseries?interval=month&" + year},
		{"timeseries/hour/31days", "timeseries?interval=hour&" + month},
		{"realtime", "realtime"},
	} {
		url := fmt.Sprintf("%s/api/v1/stats/%d/%s", srv.URL, id, c.path)
		b.Run(c.name, func(b *testing.B) {
			benchGET(b, client, url, key, 100)
		})
	}
}
