// The driver of github.com/andrerfcsantos/go-plausible for scripts/plausible-clients.sh: it is
// copied into a copy of that module (it is not part of this one: testdata) and calls the
// client's Sites API and Stats API v1 as a program using it would, through the recording proxy
// (PLAUSIBLE_RECORD), with only the base URL and the key ours (PLAUSIBLE_BASE_URL,
// PLAUSIBLE_KEY). Each call's outcome is told to the proxy, which keeps it beside the exchanges.
// The module says go 1.16: no `any`.
package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/andrerfcsantos/go-plausible/plausible"
	"github.com/andrerfcsantos/go-plausible/plausible/urlmaker/pagination"
)

var record = os.Getenv("PLAUSIBLE_RECORD")

func call(name string, do func() (interface{}, error)) {
	mustPost(record + "/_record/call?name=" + url.QueryEscape(name))
	v, err := do()
	outcome := fmt.Sprintf("ok: %+v", v)
	if err != nil {
		outcome = "error: " + err.Error()
	}
	fmt.Printf("%s: %s\n", name, outcome)
	mustPost(record + "/_record/outcome?text=" + url.QueryEscape(outcome))
}

func mustPost(u string) {
	res, err := http.Post(u, "text/plain", nil)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
}

func main() {
	c := plausible.NewClientWithBaseURL(os.Getenv("PLAUSIBLE_KEY"), os.Getenv("PLAUSIBLE_BASE_URL"))
	const domain = "go-plausible.example"
	create := plausible.CreateSiteRequest{Domain: domain, Timezone: "Europe/Lisbon"}
	call("CreateNewSite", func() (interface{}, error) { return c.CreateNewSite(create) })
	call("CreateNewSite of a taken domain", func() (interface{}, error) { return c.CreateNewSite(create) })
	call("CreateNewSite without a time zone", func() (interface{}, error) {
		return c.CreateNewSite(plausible.CreateSiteRequest{Domain: "second.go-plausible.example"})
	})
	call("ListSites", func() (interface{}, error) { return c.ListSites() })
	call("ListSites, one a page", func() (interface{}, error) { return c.ListSites(pagination.Limit(1)) })
	site := c.Site(domain)
	call("Site.Details", func() (interface{}, error) { return site.Details() })
	call("Site.Details of an unknown site", func() (interface{}, error) { return c.Site("unknown.example").Details() })
	link := plausible.SharedLinkRequest{Name: "WordPress"}
	call("Site.SharedLink", func() (interface{}, error) { return site.SharedLink(link) })
	call("Site.SharedLink again (found)", func() (interface{}, error) { return site.SharedLink(link) })
	for i, page := range []string{"/", "/blog/one", "/blog/two", "/pricing"} {
		call("PushEvent "+page, func() (interface{}, error) {
			b, err := c.PushEvent(plausible.EventRequest{
				EventData: plausible.EventData{Domain: domain, Name: "pageview", URL: "https://" + domain + page,
					Referrer: "https://news.example/item"},
				UserAgent:     "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
				XForwardedFor: fmt.Sprintf("198.51.100.%d", 10+i%2),
			})
			return string(b), err
		})
	}
	// The service writes events in batches (FLUSH_INTERVAL, 100 ms in the script): the reads
	// below come after one, as a dashboard's would.
	time.Sleep(time.Second)
	call("Site.CurrentVisitors", func() (interface{}, error) { return site.CurrentVisitors() })
	call("Site.Aggregate", func() (interface{}, error) {
		return site.Aggregate(plausible.AggregateQuery{Period: plausible.Last30Days(), Metrics: plausible.AllMetrics(), ComparePreviousPeriod: true})
	})
	call("Site.Aggregate, filtered", func() (interface{}, error) {
		return site.Aggregate(plausible.AggregateQuery{Period: plausible.DayPeriod(), Metrics: plausible.Metrics{plausible.Visitors, plausible.PageViews},
			Filters: plausible.NewFilter().ByEventPage("/blog/**")})
	})
	call("Site.Timeseries", func() (interface{}, error) {
		return site.Timeseries(plausible.TimeseriesQuery{Period: plausible.Last7Days(), Metrics: plausible.Metrics{plausible.Visitors, plausible.PageViews}})
	})
	call("Site.Timeseries by month", func() (interface{}, error) {
		return site.Timeseries(plausible.TimeseriesQuery{Period: plausible.Last6Months(), Interval: plausible.MonthInterval})
	})
	call("Site.Breakdown by page", func() (interface{}, error) {
		return site.Breakdown(plausible.BreakdownQuery{Property: plausible.EventPage, Period: plausible.Last30Days(),
			Metrics: plausible.Metrics{plausible.Visitors, plausible.PageViews}, Limit: 2, Page: 1})
	})
	call("Site.Breakdown by source, filtered", func() (interface{}, error) {
		return site.Breakdown(plausible.BreakdownQuery{Property: plausible.VisitSource, Period: plausible.DayPeriod(),
			Filters: plausible.NewFilter().ByEventPage("/blog/one|/pricing")})
	})
	call("Site.Aggregate of an unknown site", func() (interface{}, error) {
		return c.Site("unknown.example").Aggregate(plausible.AggregateQuery{Period: plausible.Last30Days(), Metrics: plausible.Metrics{plausible.Visitors}})
	})
}
