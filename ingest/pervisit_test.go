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

// What a hit counts on the hit path (docs/visits.md): a visit's first hit counts
// every visit-level statistic once, from that hit; a later pageview of the same visit only the
// per-hit pageview, page and hourly pageviews, whatever its referrer; an event of an open visit
// only event. Landing and exit pages, bounce and duration come from the visit when the flusher
// collects it.
func TestHitsCountWhatPerVisitSays(t *testing.T) {
	// The hits send no user agent: the website does not exclude bots, and a visit counts its
	// browser, operating system and device (as "") all the same.
	sites := NewWebsites(staticSites{{ID: 1, Domain: "visit.test"}})
	if err := sites.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	counters := NewCounters(1 << 10)
	c := withVisits(t, &Collector{Websites: sites, Counters: counters, Location: time.UTC,
		Now: func() time.Time { return time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC) }}, time.Minute)
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
		defer counters.release(len(taken.counts) + len(taken.members))
		var out []stats.Name
		for k := range taken.counts {
			out = append(out, k.Name)
		}
		slices.Sort(out)
		return out
	}
	want := func(keep func(stats.Name) bool, extra ...stats.Name) []stats.Name {
		out := slices.Clone(extra)
		for _, n := range stats.Names {
			if keep(n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	first := names(`{"page":"https://visit.test/a?utm_campaign=spring&utm_source=google&utm_medium=organic&utm_term=t&utm_content=c","referrer":"https://www.google.com/"}`)
	visitLevel := func(n stats.Name) bool {
		// visitor is decided at flush; landing and exit pages by the visit as it goes on;
		// a visit comes from a search engine or a social network, not both; utm_campaign is
		// counted as campaign.
		switch n {
		case stats.Event, stats.Visitor, stats.LandingPage, stats.ExitPage, stats.SocialNetwork, stats.UTMCampaign:
			return false
		}
		return true
	}
	if w := want(visitLevel, stats.PageviewHour, stats.VisitHour, stats.TimedVisit); !slices.Equal(first, w) {
		t.Errorf("a visit's first hit counts %v, want %v", first, w)
	}
	perHit := []stats.Name{stats.Page, stats.Pageview, stats.PageviewHour}
	slices.Sort(perHit)
	for _, referrer := range []string{"https://www.visit.test/a", "https://elsewhere.test/"} {
		next := names(`{"page":"https://visit.test/b?utm_campaign=spring","referrer":"` + referrer + `"}`)
		if !slices.Equal(next, perHit) {
			t.Errorf("a later pageview from %s counts %v, want %v", referrer, next, perHit)
		}
	}
	event := names(`{"page":"https://visit.test/b","referrer":"https://elsewhere.test/","event":{"name":"Signup"}}`)
	if !slices.Equal(event, []stats.Name{stats.Event}) {
		t.Errorf("an event of an open visit counts %v, want only event", event)
	}
}
