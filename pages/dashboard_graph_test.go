package pages_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
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

// seedMinutes writes a website's minutes as the collector does (AddVisitBatch): n minutes from
// start, minute i counting what count says (sawtooth: i%5 visitors, i%3 visits and 2*i%7
// pageviews); rows with none are left out.
func (e *env) seedMinutes(id int64, start time.Time, n int, count func(i int) repository.RealtimeMinute) {
	e.T.Helper()
	b := repository.VisitBatch{ID: uuid.NewString()}
	for i := range n {
		m := count(i)
		m.WebsiteID, m.Minute = id, start.Add(time.Duration(i)*time.Minute)
		if m.Visitors > 0 || m.Pageviews > 0 {
			b.Minutes = append(b.Minutes, m)
		}
	}
	if _, err := e.Repo.AddVisitBatch(context.Background(), b, 100); err != nil {
		e.T.Fatal(err)
	}
}

func sawtooth(i int) repository.RealtimeMinute {
	return repository.RealtimeMinute{Visitors: int64(i % 5), Visits: int64(i % 3), Pageviews: int64(2 * i % 7)}
}

// Today by the minute, in a +05:45 zone: from the website's midnight (18:15 UTC the day before)
// to the current minute, a point a minute from the minutes kept, the comparison's day a week
// before as its dashed line. Today's interval switch offers it; the cards of metrics a minute
// does not count, and every link that adds a filter, lead out of it (to hours), as the minutes
// count the whole website; the realtime view's switch still leads back to Today by the hour.
func TestTodayByTheMinute(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "minutes.example", "timezone", "Asia/Kathmandu")
	e.seedMonth(id)
	midnight := time.Date(2026, 3, 19, 18, 15, 0, 0, time.UTC)        // 2026-03-20 00:00 in Kathmandu
	soFar := 17*60 + 45 + 1                                           // 12:00 UTC is 17:45 there
	e.seedMinutes(id, midnight.Add(-7*24*time.Hour), 24*60, sawtooth) // the same day a week before
	e.seedMinutes(id, midnight, soFar, sawtooth)
	e.seedMinutes(id, midnight.Add(-time.Minute), 1, func(int) repository.RealtimeMinute { return repository.RealtimeMinute{Visitors: 9, Pageviews: 9} }) // the day before
	b := e.browser()
	const today = "from=2026-03-20&to=2026-03-20"
	hours := b.get("/stats/minutes.example?" + today)
	wantStatus(t, "today", hours, http.StatusOK)
	if !strings.Contains(hours.body, `<li><a href="/stats/minutes.example?from=2026-03-20&amp;interval=minute&amp;to=2026-03-20" data-key="i" data-swap="interval-Minutes">Minutes</a></li>`) {
		t.Errorf("Today's interval switch has no minutes:\n%s", hours.body)
	}
	p := b.get("/stats/minutes.example?" + today + "&interval=minute")
	wantStatus(t, "by the minute", p, http.StatusOK)
	slot := regexp.MustCompile(`<rect class="slot"[^>]*><title>([^<]*)</title>`)
	slots := slot.FindAllStringSubmatch(p.body, -1)
	if len(slots) != soFar || !strings.Contains(p.body, ">Unique visitors per minute</h2>") {
		t.Fatalf("%d minutes drawn, want %d:\n%s", len(slots), soFar, p.body)
	}
	t.Logf("by the minute, %d minutes: %d bytes", soFar, len(p.body))
	ticks := regexp.MustCompile(`<svg class="graph chart-wide"(?s:.*?)</svg>`).FindString(p.body)
	var labels []string
	for _, m := range regexp.MustCompile(`<text x="[^"]*" y="[^"]*" text-anchor="middle">([^<]*)</text>`).FindAllStringSubmatch(ticks, -1) {
		labels = append(labels, m[1])
	}
	if got := strings.Join(labels, " "); got != "20 Mar 03:00 06:00 09:00 12:00 15:00" {
		t.Errorf("the axis of minutes says %q, want the hours", got)
	}
	for _, c := range []struct {
		i    int
		want string
	}{{0, "2026-03-20 00:00: 0 unique visitors"}, {1, "2026-03-20 00:01: 1 unique visitor"}, {64, "2026-03-20 01:04: 4 unique visitors"}, {soFar - 2, "2026-03-20 17:44: 4 unique visitors"}, {soFar - 1, "2026-03-20 17:45: 0 unique visitors"}} {
		if got := html.UnescapeString(slots[c.i][1]); got != c.want {
			t.Errorf("minute %d: %q, want %q", c.i, got, c.want)
		}
	}
	pageviews := b.get("/stats/minutes.example?" + today + "&interval=minute&graph_metric=pageviews&comparison=previous_period")
	wantStatus(t, "pageviews compared", pageviews, http.StatusOK)
	slots = slot.FindAllStringSubmatch(pageviews.body, -1)
	if len(slots) != soFar || html.UnescapeString(slots[3][1]) != "2026-03-20 00:03: 6 pageviews; compared with 2026-03-13 00:03: 6 pageviews (±0%)" ||
		!strings.Contains(pageviews.body, `class="cmp-line"`) {
		t.Errorf("pageviews by the minute against a week before: %d points, %q", len(slots), slots[3][1])
	}
	for _, link := range []struct{ what, pattern string }{
		{"the bounce rate's card", `href="(/stats/minutes.example\?[^"]*graph_metric=bounce_rate[^"]*)"`},
		{"a page's filter", `href="(/stats/minutes.example\?[^"]*filter%5Bpage%5D=[^"]*)"`},
	} {
		m := regexp.MustCompile(link.pattern).FindStringSubmatch(p.body)
		if m == nil || strings.Contains(m[1], "interval") {
			t.Errorf("%s: %v keeps the minutes", link.what, m)
			continue
		}
		wantStatus(t, link.what, b.get(html.UnescapeString(m[1])), http.StatusOK)
	}
	if !regexp.MustCompile(`href="[^"]*graph_metric=pageviews[^"]*interval=minute`).MatchString(p.body) {
		t.Error("the pageviews' card leaves the minutes")
	}
	rt := b.get("/stats/minutes.example/realtime")
	wantStatus(t, "realtime", rt, http.StatusOK)
	if want := `href="/stats/minutes.example?from=2026-03-20&amp;to=2026-03-20">Hours (today)</a>`; !strings.Contains(rt.body, want) {
		t.Errorf("the realtime view has no way to today by the hour %s:\n%s", want, rt.body)
	}
}
