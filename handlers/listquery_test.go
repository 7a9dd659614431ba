package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The pages, which have no validator, read a list's parameters with stats.ParseListQuery, as
// the API builds its query: what the API refuses, it refuses with the API's words (but page,
// whose refusal says the spec's three rules at once), and what the API takes, it takes.
func TestListQueryRefusesAsTheAPI(t *testing.T) {
	e, key, id := statsEnv(t, nil)
	days := stats.Range{From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)}
	for _, query := range []string{
		"name=pages", "name=pageview_hour", "search=" + strings.Repeat("%C3%A9", 256), "search=a%00b", "search=a&search=b",
		"search_by=name", "sort_by=name", "sort_by=Count", "sort=up", "sort=desc&sort=asc", "per_page=7",
		"per_page=x", "filter[visitor]=1", "filter=x", "filter[page]=a&filter[page]=b",
		// Taken by both.
		"", "search=" + strings.Repeat("%C3%A9", 255), "search_by=value&sort_by=value&sort=asc&per_page=100&page=1000000000",
		"filter[country]=DE&filter[page]=/",
	} {
		t.Run(query, func(t *testing.T) {
			q, err := url.ParseQuery(query)
			if err != nil {
				t.Fatal(err)
			}
			name := "page"
			if q.Has("name") {
				name = q.Get("name")
			} else {
				query = "name=page&" + query
			}
			res := e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?from=2026-01-01&to=2026-01-31&%s", id, query), Key: key})
			errs := stats.FieldErrors{}
			stats.ParseListQuery(name, days, q, errs)
			if res.Status == http.StatusOK {
				if len(errs) > 0 {
					t.Fatalf("the API takes it; ParseListQuery refuses it: %v", errs)
				}
				return
			}
			api := want(t, res, http.StatusUnprocessableEntity)["errors"]
			if got := fmt.Sprint(map[string][]string(errs)); got != fmt.Sprint(api) {
				t.Fatalf("ParseListQuery refuses %s, the API %v", got, api)
			}
		})
	}
}
