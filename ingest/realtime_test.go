package ingest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
)

// The realtime view counts the visitors with a hit in the last 5 minutes, whether their visit
// is still open or not: with a VISIT_TIMEOUT of one minute, and with visits ended early past
// MAX_OPEN_VISITS, a visitor seen 2 minutes ago is still a current visitor, and one seen 6
// minutes ago no longer is.
func TestCurrentVisitorsOutlastTheirVisits(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, Node: "node-a", VisitTimeout: time.Minute, MaxOpenVisits: 32})
	id := e.site("now.test")
	current := func() int64 {
		t.Helper()
		e.flush()
		n, err := repository.New(e.DB, clock.Now).CurrentVisitors(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// 40 visitors, a second apart: past MAX_OPEN_VISITS 32 (one a shard), the oldest end early.
	for i := range 40 {
		e.send(hit{body: pageHit("now.test", "/", ""), remote: fmt.Sprintf("198.51.100.%d:1", i+1)})
		clock.Add(time.Second)
	}
	if got := current(); got != 40 {
		t.Errorf("at once: %d current visitors, want 40", got)
	}
	clock.Add(2 * time.Minute) // every visit has timed out
	if got := current(); got != 40 {
		t.Errorf("2 minutes later: %d current visitors, want 40", got)
	}
	e.send(hit{body: pageHit("now.test", "/b", ""), remote: "198.51.100.1:1"}) // a new visit of one of them
	if got := current(); got != 40 {
		t.Errorf("one back: %d current visitors, want 40 (the returning visitor once)", got)
	}
	clock.Add(4 * time.Minute)
	if got := current(); got != 1 {
		t.Errorf("6 minutes later: %d current visitors, want 1 (the one that came back)", got)
	}
	clock.Add(5 * time.Minute)
	if got := current(); got != 0 {
		t.Errorf("11 minutes later: %d current visitors, want 0", got)
	}
}

// Realtime's latest pageviews name a referrer by the dashboard's rule: a click from one of
// the website's own pages (with or without www.) is direct (""), as the referrer statistic
// counts it; another site is its host.
func TestRealtimeReferrerIsTheDashboards(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("site.test")
	for _, h := range []hit{
		{body: body("https://site.test/", "https://news.example/item?id=1", ""), remote: "198.51.100.1:5000"},
		{body: body("https://site.test/a", "https://site.test/", ""), remote: "198.51.100.1:5000"},
		{body: body("https://site.test/b", "https://www.SITE.test/a", ""), remote: "198.51.100.1:5000"},
		{body: body("https://site.test/c", "https://site.test/b", ""), remote: "198.51.100.2:5000"}, // a new visit from inside
	} {
		if res := e.send(h); res.Status != http.StatusAccepted {
			t.Fatalf("%s: %d %s", h.body, res.Status, res.Body)
		}
	}
	referrers := e.stats(id)["referrer"]
	var recent []string
	if err := e.DB.Select(&recent, `SELECT page || '<' || referrer FROM realtime_recent WHERE website_id = $1 ORDER BY page`, id); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(recent); got != "[/<news.example /a< /b< /c<]" {
		t.Errorf("realtime's latest pageviews %s, want the website's own pages as direct", got)
	}
	if referrers["news.example"] != 1 || referrers[""] != 1 || len(referrers) != 2 {
		t.Errorf("the referrer statistic %v, want news.example 1 and direct 1", referrers)
	}
}

// Each minute counts its pageviews, its visitors (a visit with a hit in it, once however many
// it has there, across flushes) and the visits that started in it, for Today's graph by the
// minute. A custom event makes its visit a visitor of its minute with no pageview; an
// engagement hit counts a visitor of a later minute, as it does of an hour, and no pageview.
func TestMinutesCountVisitorsAndVisits(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:05"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, VisitTimeout: 2 * time.Minute})
	id := e.site("minutes.test")
	send := func(body, remote string, after time.Duration) {
		t.Helper()
		clock.Add(after)
		if res := e.send(hit{body: body, remote: remote}); res.Status != http.StatusAccepted {
			t.Fatalf("%s: %d %s", body, res.Status, res.Body)
		}
	}
	const a, b = "198.51.100.1:1", "198.51.100.2:1"
	page := func(path string) string {
		return `{"n":"pageview","u":"https://minutes.test` + path + `","d":"minutes.test"}`
	}
	signup := `{"n":"Signup","u":"https://minutes.test/","d":"minutes.test"}`
	engagement := `{"n":"engagement","u":"https://minutes.test/b","d":"minutes.test","e":5000,"sd":40}`
	send(page("/"), a, 0)                         // 10:00:05 a's visit starts
	send(page("/a"), a, 15*time.Second)           // 10:00:20 the same minute
	e.flush()                                     // the minute is written in two batches
	send(signup, b, 10*time.Second)               // 10:00:30 b's visit starts with an event
	send(page("/b"), a, 40*time.Second)           // 10:01:10
	send(engagement, a, 5*time.Second)            // 10:01:15 the same minute: nothing
	send(engagement, a, time.Minute)              // 10:02:15 a visitor of 10:02, no pageview
	send(page("/"), a, 2*time.Minute+time.Second) // 10:04:16 past VISIT_TIMEOUT: a new visit
	e.flush()
	minutes, err := repository.New(e.DB, clock.Now).Minutes(context.Background(), id, at("2026-03-04", "10:00:00"), at("2026-03-04", "10:05:00"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range minutes {
		got = append(got, fmt.Sprintf("%s %d/%d/%d", m.Start.Format("15:04"), m.Visitors, m.Visits, m.Pageviews))
	}
	want := "[10:00 2/2/2 10:01 1/0/1 10:02 1/0/0 10:03 0/0/0 10:04 1/1/1]"
	if fmt.Sprint(got) != want {
		t.Fatalf("minutes (visitors/visits/pageviews) %v, want %s", got, want)
	}
}
