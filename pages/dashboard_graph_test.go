package pages_test

import (
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// eventsCard is the Events headline number, a link to the graph of events.
var eventsCard = regexp.MustCompile(`<a class="card total metric-card" href="([^"]*graph_metric=events[^"]*)"[^>]*>\s*<div class="label">Events</div>\s*<div class="number">([^<]*)</div>`)

func digits(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.NewReplacer("\u202f", "", ",", "").Replace(html.UnescapeString(s)), 10, 64)
	if err != nil {
		t.Fatalf("not a count: %q", s)
	}
	return n
}

// The graph of events: its card is a link to it, its days sum to the card (the daily event
// counters, every name and property), and its hours come from the visit rows, the hourly
// counters having no events.
func TestDashboardGraphOfEvents(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "events.example")
	e.seedMonth(id)
	b := e.browser()
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	week := "from=" + today.AddDate(0, 0, -6).Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)
	p := b.get("/stats/events.example?" + week)
	wantStatus(t, "dashboard", p, http.StatusOK)
	card := eventsCard.FindStringSubmatch(p.body)
	if card == nil {
		t.Fatalf("the Events card is not a link to its graph:\n%s", p.body)
	}
	p = b.get(html.UnescapeString(card[1]))
	wantStatus(t, "graph of events", p, http.StatusOK)
	if !strings.Contains(p.body, "Events per day") {
		t.Errorf("the graph is not of events per day")
	}
	var sum int64
	rows := chartRowRE.FindAllStringSubmatch(p.body, -1)
	for _, r := range rows {
		sum += digits(t, r[1])
	}
	if len(rows) != 7 || sum != digits(t, card[2]) || sum == 0 {
		t.Errorf("%d days summing to %d events, the card says %s", len(rows), sum, card[2])
	}

	// Today by the hour: the events of the visit rows, in the hour their visit started.
	repotest.WriteVisitRows(t, e.DB, id, []repotest.Visit{
		{Day: today, Visitor: 1, Hour: 9, Pages: []string{"/"}, Events: []string{"Signup::", "Signup::"}},
		{Day: today, Visitor: 2, Hour: 14, Pages: []string{"/"}, Events: []string{"Signup::", "Purchase:5:USD", "Signup::"}},
	})
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = $2 WHERE id = $1`, id, today.AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	day := today.Format(time.DateOnly)
	p = b.get("/stats/events.example?graph_metric=events&from=" + day + "&to=" + day)
	wantStatus(t, "events of today", p, http.StatusOK)
	hours := chartRowRE.FindAllStringSubmatch(p.body, -1)
	if len(hours) != 24 || hours[9][1] != "2" || hours[14][1] != "3" || hours[10][1] != "0" || !strings.Contains(p.body, "Events per hour") {
		t.Errorf("events by the hour %v", hours)
	}
}

// The cards under a goal filter: the conversion rate's is a link to its graph; without a
// goal filter graph_metric=conversion_rate is a readable 422.
func TestDashboardGraphMetricRefusals(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "metrics.example")
	e.seedMonth(id)
	b := e.browser()
	for _, c := range []struct{ query, want string }{
		{"graph_metric=conversion_rate", "graph_metric conversion_rate is drawn under a goal filter only (filter[goal]=NAME)"},
		{"graph_metric=conversion_rate&filter%5Bbrowser%5D=Chrome", "graph_metric conversion_rate is drawn under a goal filter only"},
		{"graph_metric=Events", "graph_metric must be one of visitors, visits, pageviews, views_per_visit, bounce_rate, visit_duration, events, conversion_rate (under a goal filter)"},
		{"graph_metric=events&graph_metric=visits", "graph_metric must be sent once"},
		{"graph_metric=%3Cscript%3Ealert(1)%3C/script%3E&filter%5Bgoal%5D=Signup", "graph_metric must be one of"},
	} {
		p := b.get("/stats/metrics.example?" + c.query)
		wantStatus(t, c.query, p, http.StatusUnprocessableEntity)
		if body := html.UnescapeString(p.body); !strings.Contains(body, c.want) || strings.Contains(p.body, "<script>alert") {
			t.Errorf("%s: the page does not say %q:\n%s", c.query, c.want, p.body)
		}
	}
	for _, q := range []string{"graph_metric=events", "graph_metric=events&interval=hour&from=2026-03-14&to=2026-03-20",
		"graph_metric=events&filter%5Bbrowser%5D=Chrome&interval=week"} {
		wantStatus(t, q, b.get("/stats/metrics.example?"+q), http.StatusOK)
	}
}

// Minutes are the realtime view's: Today's interval switch leads there (a link to another
// page, not swapped in place), and the realtime view's switch leads back to Today by the hour.
func TestTodayMinutesAreTheRealtimeView(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "minutes.example")
	e.seedMonth(id)
	b := e.browser()
	today := e.Clock.Now().UTC().Format(time.DateOnly)
	p := b.get("/stats/minutes.example?from=" + today + "&to=" + today)
	wantStatus(t, "today", p, http.StatusOK)
	if !strings.Contains(p.body, `<li><a href="/stats/minutes.example/realtime">Minutes</a></li>`) {
		t.Errorf("Today has no link to its minutes:\n%s", p.body)
	}
	week := b.get("/stats/minutes.example?from=2026-03-14&to=" + today)
	if strings.Contains(week.body, ">Minutes</a>") {
		t.Error("a week's interval switch has minutes")
	}
	rt := b.get("/stats/minutes.example/realtime")
	wantStatus(t, "realtime", rt, http.StatusOK)
	if want := `href="/stats/minutes.example?from=` + today + `&amp;to=` + today + `">Hours (today)</a>`; !strings.Contains(rt.body, want) {
		t.Errorf("the realtime view has no way to today by the hour %s:\n%s", want, rt.body)
	}
}
