package handlers_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// A website counts in the service's TZ unless it has its own zone; an unknown zone is a 422 on
// timezone, on store and on update alike.
func TestWebsiteTimezone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	e := newEnv(t, func(c *app.Config) { c.Location = berlin })
	key := e.User("a@example.com").Key

	plain := e.store(key, "domain", "plain.example.com")
	if plain["timezone"] != "Europe/Berlin" || plain["timezone_from"] != nil {
		t.Errorf("default zone: %v %v, want the service's TZ", plain["timezone"], plain["timezone_from"])
	}
	own := e.store(key, "domain", "own.example.com", "timezone", "Asia/Kathmandu")
	if own["timezone"] != "Asia/Kathmandu" || own["timezone_from"] != nil {
		t.Errorf("zone on store: %v %v", own["timezone"], own["timezone_from"])
	}
	for _, bad := range []string{"Mars/Olympus_Mons", "Local", "europe/berlin", "../etc/passwd", " "} {
		res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Form: form("domain", "bad.example.com", "timezone", bad)})
		wantField(t, res, "timezone")
		res = e.Do(harness.Request{Method: "PATCH", Path: fmt.Sprintf("/api/v1/websites/%v", own["id"]), Key: key, Form: form("timezone", bad)})
		wantField(t, res, "timezone")
	}
}

// A change waits for the next midnight: the clock is 2026-03-04 05:06:07 UTC, 10:51 in
// Kathmandu (+05:45), whose day ends at 18:15 UTC; the first New York date that starts after
// that is 5 March, from 05:00 UTC (EST). Asking for the zone in force again cancels it.
func TestWebsiteTimezoneChangeWaitsForMidnight(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com", "timezone", "Asia/Kathmandu")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])

	res := e.Do(harness.Request{Method: "PATCH", Path: path, Key: key, Form: form("timezone", "America/New_York")})
	got := want(t, res, http.StatusOK)["data"].(map[string]any)
	if got["timezone"] != "America/New_York" || got["timezone_from"] != "2026-03-05T05:00:00Z" {
		t.Fatalf("change: %v from %v, want America/New_York from 2026-03-05T05:00:00Z", got["timezone"], got["timezone_from"])
	}
	res = e.Do(harness.Request{Method: "PATCH", Path: path, Key: key, Form: form("timezone", "America/New_York", "email", "1")})
	if got := want(t, res, http.StatusOK)["data"].(map[string]any); got["timezone_from"] != "2026-03-05T05:00:00Z" {
		t.Errorf("asking again for the pending zone moved its start: %v", got["timezone_from"])
	}
	res = e.Do(harness.Request{Method: "PATCH", Path: path, Key: key, Form: form("timezone", "Asia/Kathmandu")})
	if got := want(t, res, http.StatusOK)["data"].(map[string]any); got["timezone"] != "Asia/Kathmandu" || got["timezone_from"] != nil {
		t.Errorf("cancel: %v from %v", got["timezone"], got["timezone_from"])
	}
}

// A website's hourly series are its own zone's hours, whatever the service's TZ (UTC here):
// in Asia/Kathmandu (+05:45) each hour starts at :15 UTC and holds that local hour's counts;
// in America/New_York the spring day has 23 hours and the autumn day 24, its repeated 01:00
// one bucket.
func TestTimeseriesByHourInTheWebsitesZone(t *testing.T) {
	e, key, id, days := visitsEnv(t)
	e.exec(t, `UPDATE websites SET timezone = 'Asia/Kathmandu' WHERE id = $1`, id)
	var wantHours []seriesEntry
	for _, d := range days {
		if !d.Day.Equal(day("2026-02-01")) {
			continue
		}
		for h := range 24 {
			c := d.Hours[h]
			x := expected{visitors: c.Visitors, visits: c.Visits, pageviews: c.Pageviews, bounces: c.Bounces, seconds: c.VisitSeconds, timed: c.Visits}
			start := time.Date(2026, 2, 1, h, 0, 0, 0, time.UTC).Add(-5*time.Hour - 45*time.Minute)
			wantHours = append(wantHours, x.entry(start.Format(time.RFC3339)))
		}
	}
	if len(wantHours) != 24 {
		t.Fatal("the fixture has no 2026-02-01")
	}
	got := e.series(t, key, id, "from=2026-02-01&to=2026-02-01&interval=hour")
	compareSeries(t, got.Data, wantHours)
	if got.Data[0].Date != "2026-01-31T18:15:00Z" {
		t.Fatalf("first hour %s", got.Data[0].Date)
	}

	e.exec(t, `UPDATE websites SET timezone = 'America/New_York' WHERE id = $1`, id)
	got = e.series(t, key, id, "from=2026-03-08&to=2026-03-08&interval=hour")
	if len(got.Data) != 23 || got.Data[1].Date != "2026-03-08T06:00:00Z" || got.Data[2].Date != "2026-03-08T07:00:00Z" {
		t.Fatalf("spring: %d hours, %v", len(got.Data), got.Data[:3])
	}
	got = e.series(t, key, id, "from=2026-11-01&to=2026-11-01&interval=hour")
	if len(got.Data) != 24 || got.Data[1].Date != "2026-11-01T05:00:00Z" || got.Data[2].Date != "2026-11-01T07:00:00Z" {
		t.Fatalf("autumn: %d hours, %v", len(got.Data), got.Data[:3])
	}
}
