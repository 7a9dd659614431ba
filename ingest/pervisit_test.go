package ingest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// What a hit counts is what stats.Name.PerVisit says: a visit (referrer empty or another
// site's) counts every statistic but event, a navigation inside the website only the per-hit
// pageview and page, an event only event.
func TestHitsCountWhatPerVisitSays(t *testing.T) {
	// The hits send no user agent: the website does not exclude bots, and a visit counts its
	// browser, operating system and device (as "") all the same.
	sites := NewWebsites(staticSites{{ID: 1, Domain: "visit.test"}})
	if err := sites.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	counters := NewCounters(1 << 10)
	c := &Collector{Websites: sites, Counters: counters, Location: time.UTC,
		Now: func() time.Time { return time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC) }}
	names := func(body string) []stats.Name {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body)
		}
		taken := counters.take()
		defer counters.release(len(taken))
		var out []stats.Name
		for k := range taken {
			out = append(out, k.Name)
		}
		slices.Sort(out)
		return out
	}
	want := func(keep func(stats.Name) bool) []stats.Name {
		var out []stats.Name
		for _, n := range stats.Names {
			if keep(n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	visit := names(`{"page":"https://visit.test/a?utm_campaign=spring","referrer":"https://elsewhere.test/"}`)
	if w := want(func(n stats.Name) bool { return n != stats.Event }); !slices.Equal(visit, w) {
		t.Errorf("a visit counts %v, want %v", visit, w)
	}
	navigation := names(`{"page":"https://visit.test/b?utm_campaign=spring","referrer":"https://www.visit.test/a"}`)
	if w := want(func(n stats.Name) bool { return !n.PerVisit() && n != stats.Event }); !slices.Equal(navigation, w) {
		t.Errorf("a navigation counts %v, want %v", navigation, w)
	}
	event := names(`{"page":"https://visit.test/b","referrer":"https://elsewhere.test/","event":{"name":"Signup"}}`)
	if !slices.Equal(event, []stats.Name{stats.Event}) {
		t.Errorf("an event counts %v, want only event", event)
	}
}
