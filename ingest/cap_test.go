package ingest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/stats"
)

// With MAX_VALUES_PER_DAY at 5, through the collector and the real flush: a day keeps five
// pages and five events, later new ones are counted under (other), the stored ones go on
// counting under themselves, every hit is counted once and the metric counts the overflow.
func TestValuesPastTheLimitGoToOther(t *testing.T) {
	e := newCollectEnv(t, app.Config{MaxValuesPerDay: 5})
	id := e.site("capped.test")
	send := func(path, event string) {
		t.Helper()
		b := body("https://capped.test"+path, "", "")
		if event != "" {
			b = fmt.Sprintf(`{"page": "https://capped.test%s", "event": {"name": %q}}`, path, event)
		}
		if res := e.send(hit{body: b}); res.Status != http.StatusAccepted {
			t.Fatalf("%s %s: %d %s", path, event, res.Status, res.Body)
		}
	}
	for i := 1; i <= 4; i++ {
		send(fmt.Sprintf("/p%d", i), "")
		send("/", fmt.Sprintf("e%d", i))
	}
	e.stats(id) // flushed: four of each
	send("/p1", "")
	send("/p1", "e1")
	for i := 5; i <= 7; i++ { // room for one more: the first by value, as all count 1
		send(fmt.Sprintf("/p%d", i), "")
		send("/", fmt.Sprintf("e%d", i))
	}
	e.stats(id)
	send("/p2", "")
	send("/p8", "")
	send("/", "e8")
	got := e.stats(id)
	wantPages := map[string]int64{"/p1": 2, "/p2": 2, "/p3": 1, "/p4": 1, "/p5": 1, stats.Other: 3}
	wantEvents := map[string]int64{"e1::": 2, "e2::": 1, "e3::": 1, "e4::": 1, "e5::": 1, stats.Other: 3}
	if fmt.Sprint(got["page"]) != fmt.Sprint(wantPages) || fmt.Sprint(got["event"]) != fmt.Sprint(wantEvents) {
		t.Fatalf("pages %v\nevents %v\nwant %v and %v", got["page"], got["event"], wantPages, wantEvents)
	}
	var pages int64
	for _, n := range got["page"] {
		pages += n
	}
	if pageviews := got["pageview"][day]; pages != pageviews || pageviews != 10 {
		t.Fatalf("pages sum to %d, pageviews %d; want 10 each", pages, pageviews)
	}
	if n := e.Metrics().Require(t, "analytics_values_over_cap_total"); n != 6 {
		t.Fatalf("analytics_values_over_cap_total = %v, want 6", n)
	}
}
