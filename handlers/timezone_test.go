package handlers_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
)

// A website counts in the service's TZ unless it has its own zone; an unknown zone is a 422 on
// timezone, on store and on update alike.
func TestWebsiteTimezone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	e := newEnv(t, func(c *app.Config) { c.Location = berlin })
	key := e.user("a@example.com")

	plain := e.store(key, "domain", "plain.example.com")
	if plain["timezone"] != "Europe/Berlin" || plain["timezone_from"] != nil {
		t.Errorf("default zone: %v %v, want the service's TZ", plain["timezone"], plain["timezone_from"])
	}
	own := e.store(key, "domain", "own.example.com", "timezone", "Asia/Kathmandu")
	if own["timezone"] != "Asia/Kathmandu" || own["timezone_from"] != nil {
		t.Errorf("zone on store: %v %v", own["timezone"], own["timezone_from"])
	}
	for _, bad := range []string{"Mars/Olympus_Mons", "Local", "europe/berlin", "../etc/passwd", " "} {
		res := e.do(request{method: "POST", path: "/api/v1/websites", key: key, form: form("domain", "bad.example.com", "timezone", bad)})
		wantField(t, res, "timezone")
		res = e.do(request{method: "PATCH", path: fmt.Sprintf("/api/v1/websites/%v", own["id"]), key: key, form: form("timezone", bad)})
		wantField(t, res, "timezone")
	}
}

// A change waits for the next midnight: the clock is 2026-03-04 05:06:07 UTC, 10:51 in
// Kathmandu (+05:45), whose day ends at 18:15 UTC; the first New York date that starts after
// that is 5 March, from 05:00 UTC (EST). Asking for the zone in force again cancels it.
func TestWebsiteTimezoneChangeWaitsForMidnight(t *testing.T) {
	e := newEnv(t)
	key := e.user("a@example.com")
	w := e.store(key, "domain", "example.com", "timezone", "Asia/Kathmandu")
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])

	res := e.do(request{method: "PATCH", path: path, key: key, form: form("timezone", "America/New_York")})
	got := want(t, res, http.StatusOK)["data"].(map[string]any)
	if got["timezone"] != "America/New_York" || got["timezone_from"] != "2026-03-05T05:00:00Z" {
		t.Fatalf("change: %v from %v, want America/New_York from 2026-03-05T05:00:00Z", got["timezone"], got["timezone_from"])
	}
	res = e.do(request{method: "PATCH", path: path, key: key, form: form("timezone", "America/New_York", "email", "1")})
	if got := want(t, res, http.StatusOK)["data"].(map[string]any); got["timezone_from"] != "2026-03-05T05:00:00Z" {
		t.Errorf("asking again for the pending zone moved its start: %v", got["timezone_from"])
	}
	res = e.do(request{method: "PATCH", path: path, key: key, form: form("timezone", "Asia/Kathmandu")})
	if got := want(t, res, http.StatusOK)["data"].(map[string]any); got["timezone"] != "Asia/Kathmandu" || got["timezone_from"] != nil {
		t.Errorf("cancel: %v from %v", got["timezone"], got["timezone_from"])
	}
}
