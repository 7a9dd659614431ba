package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// TestFirstDayIsTheWebsitesOwn: a website's visit rows, visitor days and sources start on the
// day it was made in its own zone, not on the database's date. Made at 05:06 UTC
// (harness.Today), a website in Los Angeles is made on its 3 March: filtered numbers of that
// day are whole (no filtered_from); the day before is not.
func TestFirstDayIsTheWebsitesOwn(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for _, c := range []struct{ zone, first string }{
		{"America/Los_Angeles", "2026-03-03"},
		{"Asia/Kathmandu", "2026-03-04"}, // +05:45
		{"", "2026-03-04"},               // the service's TZ, UTC here
	} {
		fields := []string{}
		if c.zone != "" {
			fields = append(fields, "timezone", c.zone)
		}
		id := e.Site(key, fmt.Sprintf("first-%d.example", len(c.zone)), fields...)
		var from []string
		if err := e.DB.Select(&from, `SELECT d::text FROM websites, unnest(ARRAY[visits_from, filters_from, sources_from, funnels_from]) AS d WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(from) != fmt.Sprint([]string{c.first, c.first, c.first, c.first}) {
			t.Errorf("%q: visits, filters, sources and funnels from %v, want %s", c.zone, from, c.first)
		}
		summary := func(day string) map[string]any {
			path := fmt.Sprintf("/api/v1/stats/%d/summary?from=%s&to=%s&filter[country]=DE", id, day, day)
			return want(t, e.Do(harness.Request{Path: path, Key: key}), http.StatusOK)
		}
		if body := summary(c.first); body["meta"] != nil {
			t.Errorf("%q: the first day's filtered summary says %v", c.zone, body["meta"])
		}
		before := day(c.first).AddDate(0, 0, -1).Format("2006-01-02")
		if body := summary(before); fmt.Sprint(body["meta"]) != "map[filtered_from:"+c.first+"]" {
			t.Errorf("%q: the day before says %v", c.zone, body["meta"])
		}
	}
}
