package ingest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// An engagement hit (recordEngagement) without engaged time or scroll depth:
// ignored without an open visit; with one, it extends the visit's duration, counts no
// pageview and does not end its bounce.
func TestEngagementExtendsTheOpenVisitOnly(t *testing.T) {
	sites := NewWebsites(staticSites{{ID: 1, Domain: "engage.test"}})
	if err := sites.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	counters := NewCounters(1 << 10)
	c := withVisits(t, &Collector{Websites: sites, Counters: counters, Location: time.UTC, Now: func() time.Time { return now }}, 30*time.Minute)
	site, _ := sites.Lookup("engage.test")
	ip := netip.MustParseAddr("198.51.100.7")
	page, _ := parsePage("https://engage.test/a")
	req := httptest.NewRequest(http.MethodPost, "/api/event", nil)
	req.Header.Set("User-Agent", ChromeWindowsUA)
	taken := func() map[Key]int64 {
		c.Visits.Collect(now)
		t := counters.take()
		counters.release(len(t.counts) + len(t.members))
		return t.counts
	}
	day := dayNumber(stats.Day(now))
	key := func(name stats.Name, value string) Key { return Key{WebsiteID: 1, Name: name, Day: day, Value: value} }

	if status, _ := c.recordEngagement(req, ip, site, &hit{page: page, engagedMillis: -1, scrollDepth: -1}); status != http.StatusAccepted {
		t.Fatalf("engagement without a visit: %d", status)
	}
	if got := taken(); len(got) != 0 || c.Visits.Open() != 0 {
		t.Fatalf("an engagement without an open visit counted %v and opened %d visits", got, c.Visits.Open())
	}
	if status, _ := c.record(req, ip, site, &hit{kind: hitPageview, page: page}); status != http.StatusAccepted {
		t.Fatalf("pageview: %d", status)
	}
	first := taken()
	if first[key(stats.Visit, "2026-03-04")] != 1 || first[key(stats.Bounce, "2026-03-04")] != 1 {
		t.Fatalf("the pageview counted %v", first)
	}
	now = now.Add(40 * time.Second)
	if status, _ := c.recordEngagement(req, ip, site, &hit{page: page, engagedMillis: -1, scrollDepth: -1}); status != http.StatusAccepted {
		t.Fatalf("engagement: %d", status)
	}
	got := taken()
	want := map[Key]int64{key(stats.VisitSeconds, "2026-03-04"): 40, key(stats.VisitSecondsHour, "10"): 40}
	if len(got) != len(want) || got[key(stats.VisitSeconds, "2026-03-04")] != 40 || got[key(stats.VisitSecondsHour, "10")] != 40 {
		t.Fatalf("the engagement counted %v, want only the duration %v (no pageview, the bounce kept)", got, want)
	}
}
