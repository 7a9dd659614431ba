package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// goalVisits are the visits of the conversion tests, on 2026-03-01 and 03-02. Day numbers
// are the visitors: visitor 1's two visits of the first day are one visitor.
func goalVisits() []repotest.Visit {
	d1, d2 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	click, spaces := "Outbound Link  Click::", "Outbound Link  Click"
	v := func(day time.Time, visitor int32, country string, pages, events, names []string) repotest.Visit {
		return repotest.Visit{Day: day, Visitor: visitor, Pages: pages, Events: events, EventNames: names,
			Values: map[stats.Name]string{stats.Country: country, stats.LandingPage: pages[0], stats.ExitPage: pages[len(pages)-1]}}
	}
	return []repotest.Visit{
		v(d1, 1, "DE:Germany", []string{"/", "/signup/done?x=1"}, []string{click}, []string{"Outbound Link: Click"}),
		v(d1, 1, "DE:Germany", []string{"/blog/a"}, nil, nil),
		// Another event, sent with two spaces: its statistic's value is the same, its name not.
		v(d1, 2, "US:United States", []string{"/pricing"}, []string{click, click}, []string{spaces, spaces}),
		// A row written before names were kept: its encoded name is compared.
		v(d1, 3, "US:United States", []string{"/"}, []string{click}, nil),
		v(d2, 1, "DE:Germany", []string{"/signup/done", "/signup/done"}, nil, nil),
		v(d2, 4, "DE:Germany", []string{"/blog"}, nil, nil),
	}
}

func (e *env) goalSite(key string) int64 {
	e.T.Helper()
	site := int64(e.store(key, "domain", "goals.example")["id"].(float64))
	repotest.WriteVisitRows(e.T, e.DB, site, goalVisits())
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE websites SET filters_from = '2026-03-01' WHERE id = $1`, site); err != nil {
		e.T.Fatal(err)
	}
	for _, g := range [][]string{
		{"kind", "event", "event", "Outbound Link: Click"},
		{"kind", "pageview", "page", "/signup/*", "display_name", "Signup"},
		{"kind", "pageview", "page", "/blog/*"},
		{"kind", "event", "event", "Never"},
	} {
		e.storeGoal(key, site, g...)
	}
	return site
}

// conversions is the goals list of a query as "goal kind visitors events rate" lines.
func (e *env) conversions(key string, site int64, query string) (string, map[string]any) {
	e.T.Helper()
	body := want(e.T, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?%s", site, query), Key: key}), http.StatusOK)
	var lines []string
	for _, x := range body["data"].([]any) {
		g := x.(map[string]any)
		if g["total_revenue"] != nil || g["average_revenue"] != nil {
			e.T.Errorf("revenue of %v: not null", g["goal"])
		}
		lines = append(lines, fmt.Sprintf("%v %v %v %v %v", g["goal"], g["kind"], g["visitors"], g["events"], g["conversion_rate"]))
	}
	return strings.Join(lines, "\n"), body["meta"].(map[string]any)
}

func TestGoalConversions(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.goalSite(key)

	got, meta := e.conversions(key, site, "from=2026-03-01&to=2026-03-02")
	want := strings.Join([]string{
		"Outbound Link: Click event 2 2 40",
		"Signup pageview 2 3 40",
		"Visit /blog/* pageview 1 1 20",
		"Never event 0 0 0",
	}, "\n")
	if got != want {
		t.Errorf("goals:\n%s\nwant:\n%s", got, want)
	}
	if meta["total"] != 4.0 || meta["filtered_from"] != nil {
		t.Errorf("meta %v", meta)
	}

	got, _ = e.conversions(key, site, "from=2026-03-01&to=2026-03-02&"+url.Values{"filter[country]": {"DE:Germany"}}.Encode())
	want = strings.Join([]string{
		"Signup pageview 2 3 66.7",
		"Outbound Link: Click event 1 1 33.3",
		"Visit /blog/* pageview 1 1 33.3",
		"Never event 0 0 0",
	}, "\n")
	if got != want {
		t.Errorf("goals of DE:\n%s\nwant:\n%s", got, want)
	}

	// The other operators narrow the list as they do every stats read: here the visits of no
	// German visitor, the complement of the above.
	got, _ = e.conversions(key, site, "from=2026-03-01&to=2026-03-02&"+url.Values{"filter_not[country]": {"DE:Germany"}}.Encode())
	want = strings.Join([]string{
		"Outbound Link: Click event 1 1 50",
		"Never event 0 0 0",
		"Signup pageview 0 0 0",
		"Visit /blog/* pageview 0 0 0",
	}, "\n")
	if got != want {
		t.Errorf("goals of not DE:\n%s\nwant:\n%s", got, want)
	}

	// Days without rows are left out, and said so; paging keeps the order.
	got, meta = e.conversions(key, site, "from=2026-02-27&to=2026-03-02&per_page=10&page=1")
	if meta["filtered_from"] != "2026-03-01" || !strings.HasPrefix(got, "Outbound Link: Click event 2 2 40") {
		t.Errorf("from before the rows: %v\n%s", meta, got)
	}
	if got, _ = e.conversions(key, site, "from=2026-03-01&to=2026-03-02&page=2"); got != "" {
		t.Errorf("page 2: %q", got)
	}
}

func TestGoalConversionsRefusals(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("a@example.com").Key, e.User("b@example.com").Key
	site := e.goalSite(alice)
	want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?from=2026-03-01&to=2026-03-02", site), Key: bob}), http.StatusNotFound)
	want(t, e.Do(harness.Request{Path: "/api/v1/stats/999999/goals?from=2026-03-01&to=2026-03-02", Key: alice}), http.StatusNotFound)
	wantField(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?from=2026-03-02&to=2026-03-01", site), Key: alice}), "to")
	wantField(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?from=2026-03-01&to=2026-03-02&filter[goal]=a&filter[goal]=b", site), Key: alice}), "filter")
}

// filter[goal] narrows every number to the converting visits, and the summary says the rate
// against the same range and the other filters.
func TestFilterByGoal(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.goalSite(key)
	summary := func(filters url.Values) map[string]any {
		t.Helper()
		path := fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-03-01&to=2026-03-02&%s", site, filters.Encode())
		return want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusOK)["data"].(map[string]any)
	}
	check := func(filters url.Values, visitors, visits, pageviews, rate float64) {
		t.Helper()
		s := summary(filters)
		if s["visitors"] != visitors || s["visits"] != visits || s["pageviews"] != pageviews || s["conversion_rate"] != rate {
			t.Errorf("%s: %v", filters.Encode(), s)
		}
	}
	check(url.Values{"filter[goal]": {"Signup"}}, 2, 2, 4, 40)
	check(url.Values{"filter[goal]": {"Signup"}, "filter[country]": {"DE:Germany"}}, 2, 2, 4, 66.7)
	check(url.Values{"filter[goal]": {"Signup"}, "filter[country]": {"US:United States"}}, 0, 0, 0, 0)
	check(url.Values{"filter[goal]": {"Outbound Link: Click"}}, 2, 2, 3, 40)
	check(url.Values{"filter[goal]": {"No such goal"}}, 0, 0, 0, 0)
	if s := summary(url.Values{"filter[country]": {"DE:Germany"}}); s["conversion_rate"] != nil {
		t.Errorf("conversion_rate without a goal filter: %v", s)
	}

	path := fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-03-01&to=2026-03-02&%s", site, url.Values{"filter[goal]": {"Signup"}}.Encode())
	var pages []string
	for _, x := range want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusOK)["data"].([]any) {
		pages = append(pages, fmt.Sprintf("%v=%v", x.(map[string]any)["value"], x.(map[string]any)["count"]))
	}
	if got := strings.Join(pages, " "); got != "/signup/done=2 /=1 /signup/done?x=1=1" {
		t.Errorf("pages of the Signup visits: %s", got)
	}
	path = fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2026-03-01&to=2026-03-02&%s", site, url.Values{"filter[goal]": {"Visit /blog/*"}}.Encode())
	var visitors []string
	for _, x := range want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusOK)["data"].([]any) {
		visitors = append(visitors, fmt.Sprint(x.(map[string]any)["visitors"]))
	}
	if got := strings.Join(visitors, " "); got != "1 0" {
		t.Errorf("visitors a day of the /blog/* visits: %s", got)
	}
}
