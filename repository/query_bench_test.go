package repository_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit"
)

// BenchmarkQueryAPI times the query API's engine (POST /api/v2/query without HTTP) on the
// filtered reads' data set: 20 websites of 10,000 visits a day sharing visit_rows, the last 30
// days. Targets: visit-level queries within 300 ms p95, hit-level ones (event:page) within
// 1 s p95 (event:page, event:goal), and a matches filter no slower than twice the is filter on the same dimension.
// Beside the wall times (p50/p95/p99), cpu-ms is the database's CPU time a query: on a machine
// shared with other work the wall times also measure the others' load, the CPU time does not.
//
//	make bench-query, or: scripts/test.sh go test -run '^$' -bench QueryAPI -benchtime 20x -timeout 60m ./repository/
func BenchmarkQueryAPI(b *testing.B) {
	domains := make([]string, 20)
	for i := range domains {
		domains[i] = fmt.Sprintf("site%d.example", i)
	}
	f := newFixture(b, domains...)
	last := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	repotest.WriteFilterBench(b, f.db, repotest.FilterBench{Websites: f.sites, VisitsPerDay: 10_000, Days: 30, Last: last})
	site := f.sites[7]
	queryBenchGoals(b, f, site)
	// One connection, so that backendCPU reads the process of every statement.
	f.db.SetMaxOpenConns(1)
	env := queryapi.Env{Now: last.AddDate(0, 0, 1).Add(12 * time.Hour), Location: time.UTC}
	ctx := context.Background()
	for _, c := range queryBenchCases {
		q, err := queryapi.Parse([]byte(`{`+queryBenchHead+c.body+`}`), env)
		if err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		b.Run(c.name, func(b *testing.B) {
			cpu := backendCPU(b, f.db)
			testkit.TimeCalls(b, func() error {
				answer, err := f.repo.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
				if err == nil && len(answer.Rows) == 0 {
					err = fmt.Errorf("no rows")
				}
				return err
			})
			if cpu >= 0 {
				b.ReportMetric(float64((backendCPU(b, f.db)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms")
			}
		})
	}
}

// queryBenchGoals makes the goals of the goals' benchmark, for the event:goal queries: 10 page
// patterns ("Pages 0".."Pages 9"), 10 events ("Event 1".."Event 10"). It returns their ids in
// that order, pages first.
func queryBenchGoals(b *testing.B, f fixture, site int64) []int64 {
	var ids []int64
	add := func(g stats.Goal) {
		made, err := f.repo.CreateGoal(context.Background(), site, g)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, made.ID)
	}
	for i := range 10 {
		pattern := fmt.Sprintf("/section-%d/*", i)
		if i%3 == 0 {
			pattern = fmt.Sprintf("/section-%d/page-1*|/section-%d/page-%d", i, i+1, 100+i)
		}
		add(stats.Goal{Kind: stats.GoalPageview, Page: pattern, DisplayName: fmt.Sprintf("Pages %d", i)})
	}
	for i := range 10 {
		add(stats.Goal{Kind: stats.GoalEvent, Event: fmt.Sprintf("Event %d", i+1), DisplayName: fmt.Sprintf("Event %d", i+1)})
	}
	return ids
}

const queryBenchHead = `"site_id": "site7.example", "date_range": "30d", `

// queryBenchCases are the benchmark's queries: a name (visit/ or hit/, the target it has) and
// the body after queryBenchHead.
var queryBenchCases = []struct{ name, body string }{
	{"visit/aggregate", `"metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit"]`},
	{"visit/by_country_city", `"metrics": ["visitors", "pageviews", "bounce_rate"], "dimensions": ["visit:country_name", "visit:city_name"]`},
	{"visit/by_browser_os_device_day", `"metrics": ["visitors", "visits"], "dimensions": ["visit:browser", "visit:os", "visit:device", "time:day"]`},
	{"visit/is_referrer", `"metrics": ["visitors", "visits", "pageviews"], "dimensions": ["visit:country"], "filters": [["is", "visit:referrer", ["referrer-1.example"]]]`},
	{"visit/matches_referrer", `"metrics": ["visitors", "visits", "pageviews"], "dimensions": ["visit:country"], "filters": [["matches", "visit:referrer", ["^referrer-1\\.example$"]]]`},
	{"visit/is_country", `"metrics": ["visitors", "percentage"], "dimensions": ["visit:browser"], "filters": [["is", "visit:country", ["K1"]]]`},
	{"visit/matches_country", `"metrics": ["visitors", "percentage"], "dimensions": ["visit:browser"], "filters": [["matches", "visit:country", ["^K1$"]]]`},
	{"visit/nested_by_week", `"metrics": ["visitors", "bounce_rate"], "dimensions": ["time:week"], "filters": [["and", [["contains", "visit:entry_page", ["/section-1/"]], ["not", ["matches", "visit:referrer", ["referrer-1\\."]]]]]]`},
	{"hit/by_page", `"metrics": ["visitors", "pageviews"], "dimensions": ["event:page"], "pagination": {"limit": 100}`},
	{"hit/is_page", `"metrics": ["visitors", "pageviews"], "filters": [["is", "event:page", ["/section-1/page-1"]]]`},
	{"hit/goal_filter_pageview", `"metrics": ["visitors", "events", "conversion_rate"], "filters": [["is", "event:goal", ["Pages 1"]]]`},
	{"hit/goal_filter_event", `"metrics": ["visitors", "events", "conversion_rate"], "filters": [["is", "event:goal", ["Event 2"]]]`},
	{"hit/by_goal", `"metrics": ["visitors", "events"], "dimensions": ["event:goal"]`},
	{"hit/by_goal_country_filter", `"metrics": ["visitors", "events", "conversion_rate"], "dimensions": ["event:goal"], "filters": [["is", "visit:country", ["K1"]]]`},
	{"hit/by_goal_page_filter", `"metrics": ["visitors", "events"], "dimensions": ["event:goal"], "filters": [["contains", "event:page", ["/section-1/"]]]`},
	{"hit/by_goal_and_country", `"metrics": ["visitors", "events", "group_conversion_rate"], "dimensions": ["event:goal", "visit:country"], "pagination": {"limit": 100}`},
	{"hit/by_goal_and_day", `"metrics": ["visitors", "events"], "dimensions": ["event:goal", "time:day"]`},
	{"hit/matches_page", `"metrics": ["visitors", "pageviews"], "filters": [["matches", "event:page", ["^/section-1/page-1$"]]]`},
}
