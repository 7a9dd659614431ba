package reports_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/testkit/harness"
)

// An owner's message goes out at 06:00 of the latest of their websites' zones after every
// period has ended: with one website in UTC and one in America/Los_Angeles, October's report
// is due at 06:00 PST on 1 November, 14:00 UTC, not at 06:00 UTC. Each website's period is its
// own zone's dates.
func TestReportWaitsForTheLastZone(t *testing.T) {
	e := newEnv(t)
	o := e.User("owner@example.com")
	e.site(o, "utc.example", 1)
	res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/websites", Key: o.Key,
		Form: url.Values{"domain": {"la.example"}, "email": {"1"}, "timezone": {"America/Los_Angeles"}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var la int64
	if err := e.DB.Get(&la, `SELECT id FROM websites WHERE domain = 'la.example'`); err != nil {
		t.Fatal(err)
	}
	e.pageview(la, "2026-10-31", "/halloween", "", 7)
	r, _ := e.reporter(e.Repo, e.smtp.URL())

	for _, at := range []time.Time{time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 13, 59, 0, 0, time.UTC)} {
		e.Clock.Set(at)
		tick(t, r)
		if n := len(e.smtp.Messages()); n != 0 {
			t.Fatalf("%d messages at %s, before 06:00 in Los Angeles", n, at)
		}
	}
	var due time.Time
	if err := e.DB.Get(&due, `SELECT due_at FROM report_deliveries`); err != nil || !due.Equal(time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC)) {
		t.Fatalf("due at %s (%v), want 2026-11-01 14:00 UTC", due, err)
	}
	e.Clock.Set(time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC))
	tick(t, r)
	got := e.smtp.WaitFor(t, 1, 10*time.Second)
	if text := decode(t, got[0]).text; !strings.Contains(text, "la.example") || !strings.Contains(text, "/halloween") {
		t.Fatalf("the report lacks the Los Angeles website's October:\n%s", text)
	}
}
