package ingest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// A website in Asia/Kathmandu (+05:45) counts on its own days and hours while the service's
// TZ is UTC: 18:10 UTC is 23:55 there, 18:20 UTC is 00:05 of the next day. A visit that
// crosses the website's midnight belongs to the day it started (its visitor, visit and row),
// while each pageview counts on its own day.
func TestWebsiteZoneDaysAndHours(t *testing.T) {
	e := newCollectEnv(t, app.Config{}) // its clock is the service's and the repository's
	clock := e.Clock
	clock.Set(at("2026-03-04", "18:10:00"))
	id := e.site("kathmandu.test", "timezone", "Asia/Kathmandu")
	send := func(path string) {
		t.Helper()
		if res := e.send(hit{body: pageHit("kathmandu.test", path, "")}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
	send("/a")
	clock.Advance(10 * time.Minute) // 00:05 on 5 March in Kathmandu, the same visit
	send("/b")
	clock.Advance(40 * time.Minute) // 00:45: a new visit of the same key (the salt's day is still UTC's 4 March)
	send("/c")
	clock.Advance(time.Hour)
	e.flush()

	got := fmt.Sprint(e.apiStats(id, "visitor", "2026-03-04", "2026-03-05"), e.apiStats(id, "visit", "2026-03-04", "2026-03-05"),
		e.apiStats(id, "pageview", "2026-03-04", "2026-03-05"),
		e.internal(id, "pageview_hour", "2026-03-04"), e.internal(id, "pageview_hour", "2026-03-05"),
		e.internal(id, "visit_hour", "2026-03-04"), e.internal(id, "visit_hour", "2026-03-05"))
	want := fmt.Sprint(m("2026-03-04", 1, "2026-03-05", 1), m("2026-03-04", 1, "2026-03-05", 1), m("2026-03-04", 1, "2026-03-05", 2),
		m("23", 1), m("00", 2), m("23", 1), m("00", 1))
	if got != want {
		t.Errorf("visitor visit pageview pageview_hour(4, 5) visit_hour(4, 5)\n got  %s\n want %s", got, want)
	}
	rows := e.visitRows(id)
	if len(rows) != 2 {
		t.Fatalf("%d visit rows, want 2", len(rows))
	}
	if got, want := rows[0].String(), `2026-03-04 23h ref="" /a>/b pageviews=2 bounce=false seconds=600 pages=[/a /b] events=[]`; got != want {
		t.Errorf("row crossing midnight\n got  %s\n want %s", got, want)
	}
	if got, want := rows[1].String(), `2026-03-05 00h ref="" /c>/c pageviews=1 bounce=true seconds=0 pages=[/c] events=[]`; got != want {
		t.Errorf("next day's row\n got  %s\n want %s", got, want)
	}
	// One key (one salt day), two website days: their day numbers must not link them.
	if rows[0].Visitor == rows[1].Visitor {
		t.Errorf("the rows of two website-days share the day number %d", rows[0].Visitor)
	}
}

// On the day Berlin's clocks go back (25 October 2026), 00:30 UTC and 01:30 UTC are both
// 02:30 there: the repeated hour is one bucket. New York's clocks go forward on 8 March 2026:
// 06:59 UTC is 01:59 EST and 07:00 UTC is 03:00 EDT, with no hour 02.
func TestWebsiteZoneDaylightSavingDays(t *testing.T) {
	clock := newClock(at("2026-10-25", "00:30:00")) // the service starts on this day, with its salt
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	berlin := e.site("berlin.test", "timezone", "Europe/Berlin")
	e.send(hit{body: pageHit("berlin.test", "/a", "")})
	clock.Add(time.Hour)
	e.send(hit{body: pageHit("berlin.test", "/b", ""), ua: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"})
	clock.Add(time.Hour) // 03:30 UTC, 04:30 CET
	e.send(hit{body: pageHit("berlin.test", "/c", "")})
	e.flush()
	if got, want := fmt.Sprint(e.internal(berlin, "pageview_hour", "2026-10-25")), fmt.Sprint(m("02", 2, "03", 1)); got != want {
		t.Errorf("Berlin pageview_hour got %s, want %s", got, want)
	}

	clock = newClock(at("2026-03-08", "06:59:00")) // the service starts on this day, with its salt
	e = newCollectEnv(t, app.Config{Now: clock.Now})
	newYork := e.site("newyork.test", "timezone", "America/New_York")
	e.send(hit{body: pageHit("newyork.test", "/a", "")})
	clock.Add(time.Minute)
	e.send(hit{body: pageHit("newyork.test", "/b", "")})
	e.flush()
	if got, want := fmt.Sprint(e.internal(newYork, "pageview_hour", "2026-03-08")), fmt.Sprint(m("01", 1, "03", 1)); got != want {
		t.Errorf("New York pageview_hour got %s, want %s", got, want)
	}
}

// A change of zone takes effect at the start, in the new zone, of its first date after today
// ends in the old one: asked at 10:00 UTC on 4 March (TZ UTC), Asia/Tokyo counts from 6 March
// there, 15:00 UTC on 5 March; until then UTC's days go on.
func TestWebsiteZoneChangeAtNextMidnight(t *testing.T) {
	e := newCollectEnv(t, app.Config{}) // its clock is the service's and the repository's
	clock := e.Clock
	clock.Set(at("2026-03-04", "10:00:00"))
	id := e.site("moving.test")
	change := harness.Request{Method: "PATCH", Path: fmt.Sprintf("/api/v1/websites/%d", id), Key: e.key, Form: url.Values{"timezone": {"Asia/Tokyo"}}}
	if res := e.Do(change); res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"timezone_from":"2026-03-05T15:00:00Z"`) {
		t.Fatalf("change: %d %s", res.Status, res.Body)
	}
	for _, clk := range []string{"2026-03-04 23:30:00", "2026-03-05 14:59:00", "2026-03-05 15:00:00"} {
		clock.Set(at(clk[:10], clk[11:]))
		if res := e.send(hit{body: pageHit("moving.test", "/a", "")}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
	e.flush()
	got := fmt.Sprint(e.apiStats(id, "pageview", "2026-03-04", "2026-03-06"), e.internal(id, "pageview_hour", "2026-03-05"), e.internal(id, "pageview_hour", "2026-03-06"))
	want := fmt.Sprint(m("2026-03-04", 1, "2026-03-05", 1, "2026-03-06", 1), m("14", 1), m("00", 1))
	if got != want {
		t.Errorf("pageview, pageview_hour(5, 6)\n got  %s\n want %s", got, want)
	}
}
