package pages_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// The last 24 hours (period=24h, the menu's H): from the hour of 24 hours ago to the current
// hour, as the query API's date_range "24h"; every number of it read from the visit rows of
// those hours, the graph by the hour (only), no arrows. Bad periods are a readable 422.
func TestDashboardLast24Hours(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "day.example")
	e.seedMonth(id) // counters of whole days, which the last 24 hours do not read
	now := e.Clock.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	yesterday := today.AddDate(0, 0, -1)
	before := repotest.Visit{Day: yesterday, Hour: now.Hour() - 1, Visitor: 9, Pages: []string{"/too-early"}}
	if now.Hour() == 0 {
		before.Day, before.Hour = yesterday.AddDate(0, 0, -1), 23
	}
	repotest.WriteVisitRows(t, e.DB, id, []repotest.Visit{
		before,
		{Day: yesterday, Hour: now.Hour(), Visitor: 1, Pages: []string{"/first-hour"}},
		{Day: today, Hour: now.Hour(), Visitor: 2, Pages: []string{"/this-hour", "/this-hour"}},
	})
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = $2 WHERE id = $1`, id, today.AddDate(0, 0, -3)); err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	p := b.get("/stats/day.example?period=24h")
	wantStatus(t, "last 24 hours", p, http.StatusOK)
	body := html.UnescapeString(p.body)
	if m := visitorsCard.FindStringSubmatch(p.body); m == nil || m[1] != "2" {
		t.Errorf("visitors of the last 24 hours %v, want 2", m)
	}
	if !strings.Contains(body, "/first-hour") || !strings.Contains(body, "/this-hour") || strings.Contains(body, "/too-early") {
		t.Error("the top pages are not those of the last 24 hours")
	}
	if hours := chartRowRE.FindAllStringSubmatch(p.body, -1); len(hours) != 25 || hours[0][1] != "1" || hours[24][1] != "1" {
		t.Errorf("the graph's hours %v: want 25, the first and last with a visitor", hours)
	}
	for _, want := range []string{`href="/stats/day.example?period=24h" data-key="h" aria-current="true"`, "Last 24 hours", "the 24 hours before", "Unique visitors per hour"} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s", want)
		}
	}
	if strings.Contains(body, `data-key="ArrowLeft"`) || strings.Contains(body, ">Days</a>") {
		t.Error("the last 24 hours have a period before or an interval of days")
	}
	// Its links keep it: a card, a full list.
	for _, want := range []string{`href="/stats/day.example?graph_metric=pageviews&period=24h#top-stats"`, `href="/stats/day.example/page?period=24h"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no link %s", want)
		}
	}
	list := b.get("/stats/day.example/page?period=24h")
	wantStatus(t, "full list of the last 24 hours", list, http.StatusOK)
	if !strings.Contains(list.body, "/this-hour") || strings.Contains(list.body, "/too-early") {
		t.Error("the full list is not of the last 24 hours")
	}
	// From it, a period of days drops period=24h.
	if !strings.Contains(body, `href="/stats/day.example?from=`+today.AddDate(0, 0, -6).Format(time.DateOnly)+`&to=`+today.Format(time.DateOnly)+`" data-key="w"`) {
		t.Error("Last 7 days from the last 24 hours")
	}

	for _, c := range []struct{ query, want string }{
		{"period=7d", "period must be 24h (the last 24 hours); other periods are from and to"},
		{"period=24h&period=24h", "period must be sent once"},
		{"period=24h&from=2026-03-01", "period takes no from or to: 24h is the last 24 hours"},
		{"period=24h&interval=day", "interval day is not allowed for"},
		{"period=24h&interval=minute", "interval minute is for Today only"},
		{"period=%3Cscript%3Ealert(1)%3C/script%3E", "period must be 24h"},
	} {
		p := b.get("/stats/day.example?" + c.query)
		wantStatus(t, c.query, p, http.StatusUnprocessableEntity)
		if body := html.UnescapeString(p.body); !strings.Contains(body, c.want) || strings.Contains(p.body, "<script>alert") {
			t.Errorf("%s: the page does not say %q:\n%s", c.query, c.want, p.body)
		}
	}
}
