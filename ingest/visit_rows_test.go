package ingest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
)

// visitRow is a row of visit_rows as the tests read it.
type visitRow struct {
	Day              string         `db:"day"`
	Visitor          int32          `db:"visitor"`
	ID               int64          `db:"id"`
	Hour             int            `db:"hour"`
	Pageviews        int            `db:"pageviews"`
	Seconds          int            `db:"seconds"`
	Bounce           bool           `db:"bounce"`
	Referrer         string         `db:"referrer"`
	SearchEngine     string         `db:"search_engine"`
	SocialNetwork    string         `db:"social_network"`
	Campaign         string         `db:"campaign"`
	Browser          string         `db:"browser"`
	OperatingSystem  string         `db:"operating_system"`
	Device           string         `db:"device"`
	Language         string         `db:"language"`
	ScreenResolution string         `db:"screen_resolution"`
	Continent        string         `db:"continent"`
	Country          string         `db:"country"`
	City             string         `db:"city"`
	LandingPage      string         `db:"landing_page"`
	ExitPage         string         `db:"exit_page"`
	Pages            pq.StringArray `db:"pages"`
	Events           pq.StringArray `db:"events"`
}

func (r visitRow) String() string {
	return fmt.Sprintf("%s %02dh ref=%q %s>%s pageviews=%d bounce=%v seconds=%d pages=%v events=%v", r.Day, r.Hour, r.Referrer,
		r.LandingPage, r.ExitPage, r.Pageviews, r.Bounce, r.Seconds, []string(r.Pages), []string(r.Events))
}

// visitRows reads a website's visit rows, in an order the tests can state.
func (c *collectEnv) visitRows(id int64) []visitRow {
	c.T.Helper()
	var rows []visitRow
	if err := c.DB.Select(&rows, `SELECT to_char(day, 'YYYY-MM-DD') AS day, visitor, id, hour, pageviews, seconds, bounce,
		referrer, search_engine, social_network, campaign, browser, operating_system, device, language, screen_resolution,
		continent, country, city, landing_page, exit_page, pages, events
		FROM visit_rows WHERE website_id = $1 ORDER BY day, hour, landing_page, referrer, browser, seconds`, id); err != nil {
		c.T.Fatal(err)
	}
	return rows
}

// A visit's row holds each visit-level value exactly as the counters counted it (the one value
// each statistic counted for this one visit, "" for none), its pages in order and its events.
func TestVisitRowHoldsTheCountedValues(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("values.test")
	e.send(hit{body: body("https://www.values.test/a/b?x=1&utm_campaign=spring", "https://www.google.com/search?q=1", "1920x1080"),
		language: "de-CH,de;q=0.9"})
	clock.Add(10 * time.Second)
	e.send(hit{body: `{"page":"https://values.test/a/b","event":{"name":"Sign\"up\\","value":"12","unit":"EUR"}}`})
	clock.Add(10 * time.Second)
	e.send(hit{body: pageHit("values.test", `/c/"quoted"/{x,y}`, "")})
	clock.Add(time.Hour)
	counted := e.stats(id)
	rows := e.visitRows(id)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1: %v", len(rows), rows)
	}
	r := rows[0]
	one := func(name string) string {
		var values []string
		for v := range counted[name] {
			values = append(values, v)
		}
		if len(values) > 1 {
			t.Fatalf("%s counted %v, want one value", name, values)
		}
		return strings.Join(values, "")
	}
	for _, c := range []struct{ name, got string }{
		{"referrer", r.Referrer}, {"search_engine", r.SearchEngine}, {"social_network", r.SocialNetwork}, {"campaign", r.Campaign},
		{"browser", r.Browser}, {"operating_system", r.OperatingSystem}, {"device", r.Device}, {"language", r.Language},
		{"screen_resolution", r.ScreenResolution}, {"continent", r.Continent}, {"country", r.Country}, {"city", r.City},
		{"landing_page", r.LandingPage}, {"exit_page", r.ExitPage},
	} {
		if want := one(c.name); c.got != want {
			t.Errorf("%s: row %q, counted %q", c.name, c.got, want)
		}
	}
	// Not empty, so that the comparison above proves something.
	if r.SearchEngine == "" || r.Campaign == "" || r.Country == "" || r.Browser == "" || r.Language == "" {
		t.Fatalf("row %+v: the test's visit should have these values", r)
	}
	var pages []string
	for p := range counted["page"] {
		pages = append(pages, p)
	}
	slices.Sort(pages)
	if got := fmt.Sprint(r.Hour, r.Pageviews, r.Bounce, r.Seconds, []string(r.Pages), []string(r.Events)); got !=
		fmt.Sprint(15, 2, false, 20, pages, []string{one("event")}) {
		t.Fatalf("hour pageviews bounce seconds pages events: %s, counted pages %v event %q", got, pages, one("event"))
	}
}

// The day number: one visitor's visits of a day share it, the next day's do not (another salt),
// and no two visits share an id.
func TestDayNumber(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, VisitTimeout: 10 * time.Minute})
	id := e.site("days.test")
	send := func(path, ua string) {
		t.Helper()
		if res := e.send(hit{body: pageHit("days.test", path, ""), ua: ua}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d", res.Status)
		}
	}
	send("/morning", "")
	clock.Add(time.Hour)
	send("/noon", "")
	send("/other", ingest.SafariIPhoneUA) // another visitor
	clock.Add(24 * time.Hour)
	e.flush() // the next day's salt and partition exist: both are made a day ahead and more
	send("/tomorrow", "")
	clock.Add(time.Hour)
	e.flush()
	byLanding := map[string]visitRow{}
	ids := map[int64]bool{}
	for _, r := range e.visitRows(id) {
		byLanding[r.LandingPage] = r
		ids[r.ID] = true
	}
	if len(byLanding) != 4 || len(ids) != 4 {
		t.Fatalf("rows %v, want 4 visits with 4 ids", byLanding)
	}
	morning, noon, other, tomorrow := byLanding["/morning"], byLanding["/noon"], byLanding["/other"], byLanding["/tomorrow"]
	if morning.Visitor != noon.Visitor {
		t.Errorf("one visitor's two visits of a day have day numbers %d and %d", morning.Visitor, noon.Visitor)
	}
	if other.Visitor == morning.Visitor || tomorrow.Visitor == morning.Visitor {
		t.Errorf("day numbers: another visitor %d, the next day %d, both equal to the visitor's %d", other.Visitor, tomorrow.Visitor, morning.Visitor)
	}
	if tomorrow.Day != "2026-03-05" {
		t.Errorf("the next day's visit is on %s", tomorrow.Day)
	}
	for id := range ids {
		if id < 0 {
			t.Errorf("id %d is negative", id)
		}
	}
}

// An event's row keeps its name as sent beside the statistic's value, where a ':' of the name
// is written as a space: event goals compare the name as sent. Names of later flushes append,
// one per event, in the events' order.
func TestVisitRowKeepsEventNamesAsSent(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("names.test")
	e.send(hit{body: `{"page":"https://names.test/a","event":{"name":"Outbound Link: Click","value":"1"}}`})
	clock.Add(10 * time.Second)
	e.send(hit{body: `{"page":"https://names.test/a","event":{"name":"Signup"}}`})
	clock.Add(time.Hour)
	e.stats(id) // flushes
	var rows []struct {
		Events     pq.StringArray `db:"events"`
		EventNames pq.StringArray `db:"event_names"`
	}
	if err := e.DB.Select(&rows, `SELECT events, event_names FROM visit_rows WHERE website_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if got, want := fmt.Sprint([]string(rows[0].Events), []string(rows[0].EventNames)),
		fmt.Sprint([]string{"Outbound Link  Click:1:", "Signup::"}, []string{"Outbound Link: Click", "Signup"}); got != want {
		t.Errorf("events and names %s, want %s", got, want)
	}
}
