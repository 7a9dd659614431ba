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

// propVisits are the visits of the property and revenue tests, on 2026-03-01.
func propVisits() []repotest.Visit {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	p := stats.PropPair
	v := func(visitor int32, country string, props []string, revenue ...repotest.Revenue) repotest.Visit {
		names := make([]string, len(revenue))
		for i, r := range revenue {
			names[i] = r.Name
		}
		return repotest.Visit{Day: day, Visitor: visitor, Pages: []string{"/"}, Props: props, Revenue: revenue,
			Events: names, EventNames: names,
			Values: map[stats.Name]string{stats.Country: country, stats.LandingPage: "/", stats.ExitPage: "/"}}
	}
	return []repotest.Visit{
		v(1, "DE:Germany", []string{p("plan", "pro"), p("plan", "pro"), p("author", "Ada")},
			repotest.Revenue{Name: "Purchase", Currency: "EUR", Amount: "10.005"},
			repotest.Revenue{Name: "Purchase", Currency: "EUR", Amount: "0.1"}),
		v(2, "US:United States", []string{p("plan", "free")},
			repotest.Revenue{Name: "Purchase", Currency: "USD", Amount: "19.99"}),
		v(3, "US:United States", []string{p("plan", "pro"), p("<script>alert(1)</script>", `"><img src=x onerror=alert(2)>`)},
			repotest.Revenue{Name: "Purchase", Currency: "EUR", Amount: "123456789012345.125"}),
		v(4, "DE:Germany", nil),
	}
}

func (e *env) propSite(key string) int64 {
	e.T.Helper()
	site := int64(e.store(key, "domain", "props.example")["id"].(float64))
	repotest.WriteVisitRows(e.T, e.DB, site, propVisits())
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE websites SET filters_from = '2026-03-01' WHERE id = $1`, site); err != nil {
		e.T.Fatal(err)
	}
	return site
}

// entries is a list's data as "value count" lines.
func propEntries(body map[string]any) string {
	var lines []string
	for _, x := range body["data"].([]any) {
		m := x.(map[string]any)
		lines = append(lines, fmt.Sprintf("%v %v", m["value"], m["count"]))
	}
	return strings.Join(lines, "\n")
}

func TestPropertiesReads(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.propSite(key)
	get := func(path string) map[string]any {
		t.Helper()
		return want(t, e.Do(harness.Request{Path: fmt.Sprintf(path, site), Key: key}), http.StatusOK)
	}
	const rng = "from=2026-03-01&to=2026-03-01"
	if got, want := propEntries(get("/api/v1/stats/%d/properties?"+rng)), "plan 4\n<script>alert(1)</script> 1\nauthor 1"; got != want {
		t.Errorf("keys\n%s\nwant\n%s", got, want)
	}
	if got, want := propEntries(get("/api/v1/stats/%d/properties?"+rng+"&filter[country]=DE:Germany")), "plan 2\nauthor 1"; got != want {
		t.Errorf("keys of Germany\n%s\nwant\n%s", got, want)
	}
	if got, want := propEntries(get("/api/v1/stats/%d/properties?"+rng+"&search=AUTH")), "author 1"; got != want {
		t.Errorf("keys searched %q, want %q", got, want)
	}
	if got, want := propEntries(get("/api/v1/stats/%d?name=property&property=plan&"+rng)), "pro 3\nfree 1"; got != want {
		t.Errorf("values of plan\n%s\nwant\n%s", got, want)
	}
	// A property filter narrows every read to the visits with a hit that carried it.
	summary := get("/api/v1/stats/%d/summary?" + rng + "&property_filter[plan]=pro")["data"].(map[string]any)
	if summary["visits"] != float64(2) || summary["visitors"] != float64(2) {
		t.Errorf("summary of plan=pro: %v", summary)
	}
	if got, want := propEntries(get("/api/v1/stats/%d?name=country&"+rng+"&property_filter[plan]=free")), "US:United States 1"; got != want {
		t.Errorf("countries of plan=free %q, want %q", got, want)
	}
	both := "&property_filter[plan]=pro&property_filter[author]=Ada"
	if got, want := propEntries(get("/api/v1/stats/%d?name=country&"+rng+both)), "DE:Germany 1"; got != want {
		t.Errorf("countries of two property filters %q, want %q", got, want)
	}
	series := get("/api/v1/stats/%d/timeseries?" + rng + "&property_filter[plan]=nobody")["data"].([]any)
	if series[0].(map[string]any)["visits"] != float64(0) {
		t.Errorf("unknown value matched: %v", series)
	}
	if got := propEntries(get("/api/v1/stats/%d?name=country&" + rng + "&property_filter[plan]=(other)")); got != "" {
		t.Errorf("(other) matched %q", got)
	}
	// Paging links keep the property filters.
	body := get("/api/v1/stats/%d?name=country&" + rng + "&per_page=10" + both)
	if next := body["links"].(map[string]any)["first"].(string); !strings.Contains(next, url.QueryEscape("property_filter[author]")+"=Ada") {
		t.Errorf("first link %q lost the property filter", next)
	}
}

func TestPropertiesBadInput(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.propSite(key)
	const rng = "from=2026-03-01&to=2026-03-01"
	for _, c := range []struct{ query, field string }{
		{"/api/v1/stats/%d?name=property&" + rng, "property"},
		{"/api/v1/stats/%d?name=property&property=&" + rng, "property"},
		{"/api/v1/stats/%d?name=property&property=a&property=b&" + rng, "property"},
		{"/api/v1/stats/%d?name=page&property=plan&" + rng, "property"},
		{"/api/v1/stats/%d?name=property&property=" + strings.Repeat("k", 256) + "&" + rng, "property"},
		{"/api/v1/stats/%d/summary?" + rng + "&property_filter[plan]=" + strings.Repeat("v", 256), "property_filter"},
		{"/api/v1/stats/%d/summary?" + rng + "&property_filter[plan]=a&property_filter[plan]=b", "property_filter"},
		{"/api/v1/stats/%d/summary?" + rng + "&property_filter=pro", "property_filter"},
		{"/api/v1/stats/%d/summary?" + rng + "&property_filter[a][b]=pro", "property_filter"},
		{"/api/v1/stats/%d/summary?" + rng + "&property_filter[plan]=%%00", "property_filter"},
		{"/api/v1/stats/%d/properties?" + rng + "&sort_by=colour", "sort_by"},
		{"/api/v1/stats/%d/properties?from=2026-03-02&to=2026-03-01", "to"},
		{"/api/v1/stats/%d/properties?" + rng + "&per_page=7", "per_page"},
		{"/api/v1/stats/%d/revenue?" + rng + "&page=0", "page"},
		{"/api/v1/stats/%d/revenue?from=2026-03-02&to=2026-03-01", "to"},
		{"/api/v1/stats/%d/goals?" + rng + "&property_filter[x]=" + strings.Repeat("v", 256), "property_filter"},
	} {
		wantField(t, e.Do(harness.Request{Path: fmt.Sprintf(c.query, site), Key: key}), c.field)
	}
	other := e.User("b@example.com").Key
	for _, path := range []string{"/api/v1/stats/%d/properties?" + rng, "/api/v1/stats/%d/revenue?" + rng} {
		want(t, e.Do(harness.Request{Path: fmt.Sprintf(path, site), Key: other}), http.StatusNotFound)
		want(t, e.Do(harness.Request{Path: fmt.Sprintf(path, site)}), http.StatusUnauthorized)
	}
}

func TestRevenueReads(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.propSite(key)
	e.storeGoal(key, site, "kind", "event", "event", "Purchase", "currency", "EUR")
	e.storeGoal(key, site, "kind", "event", "event", "Purchase", "display_name", "Purchase (no currency)")
	e.storeGoal(key, site, "kind", "pageview", "page", "/")
	const rng = "from=2026-03-01&to=2026-03-01"
	body := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/revenue?%s", site, rng), Key: key}), http.StatusOK)
	var lines []string
	for _, x := range body["data"].([]any) {
		m := x.(map[string]any)
		lines = append(lines, fmt.Sprintf("%v %v %v %v", m["goal"], m["currency"], m["events"], m["amount"]))
	}
	wantLines := strings.Join([]string{
		"Purchase EUR 3 123456789012355.23", // 10.005 + 0.1 + 123456789012345.125, exactly, rounded half away from zero
		"Purchase USD 1 19.99",
		"Purchase (no currency) EUR 3 123456789012355.23",
		"Purchase (no currency) USD 1 19.99",
	}, "\n")
	// Sorted by display name: "Purchase" before "Purchase (no currency)".
	if got := strings.Join(lines, "\n"); got != wantLines {
		t.Errorf("revenue\n%s\nwant\n%s", got, wantLines)
	}
	goals := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?%s", site, rng), Key: key}), http.StatusOK)
	seen := 0
	for _, x := range goals["data"].([]any) {
		g := x.(map[string]any)
		switch g["goal"] {
		case "Purchase":
			seen++
			total, average := g["total_revenue"].(map[string]any), g["average_revenue"].(map[string]any)
			if total["amount"] != "123456789012355.23" || total["currency"] != "EUR" || average["amount"] != "41152263004118.41" {
				t.Errorf("revenue of Purchase: %v / %v", total, average)
			}
		case "Purchase (no currency)", "Visit /":
			seen++
			if g["total_revenue"] != nil || g["average_revenue"] != nil {
				t.Errorf("revenue of %v: %v %v", g["goal"], g["total_revenue"], g["average_revenue"])
			}
		}
	}
	if seen != 3 {
		t.Errorf("goals %v", goals["data"])
	}
	// Filters narrow revenue as every read: Germany's visit carried 10.005 + 0.1 EUR.
	body = want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/goals?%s&filter[country]=DE:Germany", site, rng), Key: key}), http.StatusOK)
	for _, x := range body["data"].([]any) {
		if g := x.(map[string]any); g["goal"] == "Purchase" {
			if total := g["total_revenue"].(map[string]any); total["amount"] != "10.11" {
				t.Errorf("revenue of Germany %v, want 10.11", total)
			}
		}
	}
}
