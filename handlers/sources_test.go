package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The API lists and filters by source, channel and the UTM tags; utm_campaign reads campaign's
// counters, and a filter on both names is one name given twice.
func TestStatsOfSourcesAndChannels(t *testing.T) {
	c := func(name, value string, n int64) repository.StatCount {
		return repository.StatCount{Name: name, Date: day("2026-01-02"), Value: value, Count: n}
	}
	e, key, id := statsEnv(t, []repository.StatCount{
		c("channel", "Email", 3), c("channel", "Direct", 2), c("source", "Newsletter", 3), c("source", "", 2),
		c("utm_medium", "email", 3), c("campaign", "spring", 3),
	})
	list := func(query string) string {
		t.Helper()
		return entries(want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?from=2026-01-01&to=2026-01-31&%s", id, query), Key: key}), 200))
	}
	for query, wanted := range map[string]string{
		"name=channel":      "Email=3 Direct=2",
		"name=source":       "Newsletter=3 =2",
		"name=utm_medium":   "email=3",
		"name=utm_campaign": "spring=3",
		"name=campaign":     "spring=3",
		"name=utm_term":     "",
	} {
		if got := list(query); got != wanted {
			t.Errorf("%s: %q, want %q", query, got, wanted)
		}
	}
	// Filters read the visit rows; none were written here, so they match nothing, but each
	// name and "" are accepted.
	for _, f := range []string{"filter[source]=", "filter[channel]=Paid+Search", "filter[utm_source]=google", "filter[utm_campaign]=spring",
		"filter[utm_medium]=", "filter[utm_term]=" + strings.Repeat("t", 255), "filter[utm_content]=hero"} {
		want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31&%s", id, f), Key: key}), 200)
	}
	twice := "filter%5Bcampaign%5D=a&filter%5Butm_campaign%5D=b"
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31&%s", id, twice), Key: key})
	wantField(t, res, "filter")
	long := url.QueryEscape(strings.Repeat("t", 256))
	wantField(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31&filter[utm_term]=%s", id, long), Key: key}), "filter")
}
