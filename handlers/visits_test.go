package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// visitsEnv is a website with the counters of days collected by visits, written by the stats
// writer: 70 random days from 2026-01-20 (across a month's end and, in Berlin, nothing odd),
// plus a day before the changeover (visits and visitors, no timed visits, no hours).
func visitsEnv(t *testing.T, opts ...func(*app.Config)) (*env, string, int64, []repotest.VisitDay) {
	t.Helper()
	e := newEnv(t, opts...)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	rng := rand.New(rand.NewPCG(16, 8))
	var days []repotest.VisitDay
	old := repotest.VisitDay{Day: day("2026-01-19"), Visitors: 40, Visits: 40, Pageviews: 90, Events: map[string]int64{"Old::": 2}}
	days = append(days, old)
	for i := range 70 {
		if i%9 == 4 {
			continue // a day without anything: an empty bucket
		}
		days = append(days, repotest.RandomVisitDay(rng, day("2026-01-20").AddDate(0, 0, i), 50+rng.IntN(400)))
	}
	repotest.WriteVisitDays(t, e.Repo, id, days)
	return e, key, id, days
}

// expected is a range's or a bucket's numbers, computed here from the fixture with floats and
// math.Round, not by the code under test.
type expected struct {
	visitors, visits, pageviews, events, bounces, seconds, timed int64
}

func (x expected) bounceRate() float64 {
	if x.timed == 0 {
		return 0
	}
	return math.Round(float64(x.bounces)/float64(x.timed)*1000) / 10
}

func (x expected) duration() float64 {
	if x.timed == 0 {
		return 0
	}
	return math.Round(float64(x.seconds) / float64(x.timed))
}

func (x expected) viewsPerVisit() float64 {
	if x.visits == 0 {
		return 0
	}
	return math.Round(float64(x.pageviews)/float64(x.visits)*100) / 100
}

func sumDays(days []repotest.VisitDay, from, to time.Time) expected {
	s := repotest.SumVisitDays(days, from, to)
	return expected{s.Visitors, s.Visits, s.Pageviews, s.Events, s.Bounces, s.VisitSeconds, s.TimedVisits}
}

func TestSummaryMatchesTheCounters(t *testing.T) {
	e, key, id, days := visitsEnv(t)
	ranges := [][2]string{
		{"2026-01-19", "2026-01-19"}, // before the changeover only: no bounce rate, no duration
		{"2026-01-19", "2026-03-30"},
		{"2026-01-20", "2026-01-20"},
		{"2026-02-01", "2026-02-28"},
		{"2026-01-25", "2026-03-03"},
		{"2026-01-24", "2026-01-24"}, // an empty day: every number 0
		{"2025-01-01", "2025-12-31"}, // nothing at all
	}
	check := func(t *testing.T) {
		for _, r := range ranges {
			x := sumDays(days, day(r[0]), day(r[1]))
			body := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=%s&to=%s", id, r[0], r[1]), Key: key}), 200)
			got := body["data"].(map[string]any)
			wantData := map[string]float64{
				"visitors": float64(x.visitors), "visits": float64(x.visits), "pageviews": float64(x.pageviews),
				"events": float64(x.events), "bounce_rate": x.bounceRate(), "visit_duration": x.duration(),
				"views_per_visit": x.viewsPerVisit(),
			}
			for k, v := range wantData {
				if got[k] != v {
					t.Errorf("%s..%s: %s = %v, want %v (all: %v)", r[0], r[1], k, got[k], v, got)
				}
			}
			if len(got) != len(wantData) {
				t.Errorf("fields %v", got)
			}
		}
	}
	t.Run("daily rows", check)
	// The same through the weekly and monthly rollups.
	if err := e.Repo.RollUp(context.Background(), day("2026-06-01")); err != nil {
		t.Fatal(err)
	}
	t.Run("rollups", check)

	// Integers are JSON integers, and one decimal stays one.
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-01-19&to=2026-01-19", id), Key: key})
	if !strings.Contains(string(res.Body), `"visitors":40,`) || !strings.Contains(string(res.Body), `"bounce_rate":0,`) {
		t.Fatalf("body %s", res.Body)
	}
}

type seriesEntry struct {
	Date          string  `json:"date"`
	Visitors      int64   `json:"visitors"`
	Visits        int64   `json:"visits"`
	Pageviews     int64   `json:"pageviews"`
	BounceRate    float64 `json:"bounce_rate"`
	VisitDuration float64 `json:"visit_duration"`
}

type seriesPage struct {
	Data  []seriesEntry  `json:"data"`
	Meta  map[string]any `json:"meta"`
	Links map[string]any `json:"links"`
}

func (e *env) series(t *testing.T, key string, id int64, query string) seriesPage {
	t.Helper()
	res := e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/timeseries?%s", id, query), Key: key})
	want(t, res, 200)
	var p seriesPage
	if err := json.Unmarshal(res.Body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (x expected) entry(date string) seriesEntry {
	return seriesEntry{Date: date, Visitors: x.visitors, Visits: x.visits, Pageviews: x.pageviews,
		BounceRate: x.bounceRate(), VisitDuration: x.duration()}
}

func TestTimeseriesByDayAndMonth(t *testing.T) {
	e, key, id, days := visitsEnv(t)
	// Days: one entry a day, oldest first, empty days included.
	from, to := day("2026-01-17"), day("2026-03-31")
	got := e.series(t, key, id, "from=2026-01-17&to=2026-03-31")
	var wantDays []seriesEntry
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		wantDays = append(wantDays, sumDays(days, d, d).entry(d.Format(time.DateOnly)))
	}
	compareSeries(t, got.Data, wantDays)
	if got.Meta["total"] != float64(len(wantDays)) || got.Meta["per_page"] != 1000.0 {
		t.Fatalf("meta %v", got.Meta)
	}
	// interval=day is the default.
	compareSeries(t, e.series(t, key, id, "from=2026-01-17&to=2026-03-31&interval=day").Data, wantDays)

	// Months: the edges count only their days in the range.
	got = e.series(t, key, id, "from=2026-01-25&to=2026-03-10&interval=month")
	compareSeries(t, got.Data, []seriesEntry{
		sumDays(days, day("2026-01-25"), day("2026-01-31")).entry("2026-01"),
		sumDays(days, day("2026-02-01"), day("2026-02-28")).entry("2026-02"),
		sumDays(days, day("2026-03-01"), day("2026-03-10")).entry("2026-03"),
	})

	// Paging: per_page and page cut the list; links keep the other parameters.
	got = e.series(t, key, id, "from=2026-01-17&to=2026-03-31&per_page=30&page=3")
	compareSeries(t, got.Data, wantDays[60:])
	if got.Meta["last_page"] != 3.0 || got.Meta["from"] != 61.0 || got.Meta["to"] != float64(len(wantDays)) {
		t.Fatalf("meta %v", got.Meta)
	}
	if prev, _ := got.Links["prev"].(string); !strings.Contains(prev, "per_page=30") || !strings.Contains(prev, "page=2") {
		t.Fatalf("links %v", got.Links)
	}
	got = e.series(t, key, id, "from=2026-01-17&to=2026-03-31&per_page=30&page=4")
	if len(got.Data) != 0 || got.Meta["from"] != nil {
		t.Fatalf("past the end: %v", got.Meta)
	}
}

func compareSeries(t *testing.T, got, want []seriesEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestTimeseriesByHourInTheTimeZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	e, key, id, days := visitsEnv(t, func(c *app.Config) { c.Location = berlin })
	hourOf := func(d repotest.VisitDay, h int) seriesEntry {
		c := d.Hours[h]
		x := expected{visitors: c.Visitors, visits: c.Visits, pageviews: c.Pageviews, bounces: c.Bounces, seconds: c.VisitSeconds, timed: c.Visits}
		// Berlin is UTC+1 in winter: hour h starts at h-1 UTC (of the day before, for 00).
		return x.entry(time.Date(d.Day.Year(), d.Day.Month(), d.Day.Day(), h, 0, 0, 0, time.UTC).Add(-time.Hour).Format(time.RFC3339))
	}
	var wantHours []seriesEntry
	for d := day("2026-02-01"); !d.After(day("2026-02-03")); d = d.AddDate(0, 0, 1) {
		fixture := repotest.VisitDay{Day: d} // 2026-02-02 is empty
		for _, f := range days {
			if f.Day.Equal(d) {
				fixture = f
			}
		}
		for h := range 24 {
			wantHours = append(wantHours, hourOf(fixture, h))
		}
	}
	got := e.series(t, key, id, "from=2026-02-01&to=2026-02-03&interval=hour")
	compareSeries(t, got.Data, wantHours)
	if got.Data[0].Date != "2026-01-31T23:00:00Z" {
		t.Fatalf("first hour %s", got.Data[0].Date)
	}
	// The day before the changeover has no hourly counters: 24 empty hours.
	got = e.series(t, key, id, "from=2026-01-19&to=2026-01-19&interval=hour")
	if len(got.Data) != 24 || got.Data[0] != (seriesEntry{Date: "2026-01-18T23:00:00Z"}) {
		t.Fatalf("hours %v", got.Data)
	}
	// 31 days of hours in one default page: 744 entries.
	got = e.series(t, key, id, "from=2026-02-01&to=2026-03-03&interval=hour")
	if len(got.Data) != 31*24 || got.Meta["total"] != float64(31*24) {
		t.Fatalf("%d hours, meta %v", len(got.Data), got.Meta)
	}
	// Daylight saving time: the spring day has 23 hours (02:00 is skipped), the autumn day
	// 24 (02:00 comes twice and is one entry, at the first).
	got = e.series(t, key, id, "from=2026-03-29&to=2026-03-29&interval=hour")
	if len(got.Data) != 23 || got.Data[2].Date != "2026-03-29T01:00:00Z" {
		t.Fatalf("spring: %d hours, third %v", len(got.Data), got.Data[2])
	}
	got = e.series(t, key, id, "from=2026-10-25&to=2026-10-25&interval=hour")
	if len(got.Data) != 24 || got.Data[2].Date != "2026-10-25T00:00:00Z" || got.Data[3].Date != "2026-10-25T02:00:00Z" {
		t.Fatalf("autumn: %d hours, %v", len(got.Data), got.Data[:4])
	}
}

func TestVisitsEndpointsRefuseBadInput(t *testing.T) {
	e, key, id, _ := visitsEnv(t)
	other := e.User("b@example.com").Key
	summary := func(q string) string { return fmt.Sprintf("/api/v1/stats/%d/summary?%s", id, q) }
	series := func(q string) string { return fmt.Sprintf("/api/v1/stats/%d/timeseries?%s", id, q) }
	cases := []struct{ path, field string }{
		{summary("to=2026-01-31"), "from"},
		{summary("from=2026-01-01"), "to"},
		{summary("from=2026-02-01&to=2026-01-31"), "to"},
		{summary("from=0000-12-31&to=2026-01-31"), "from"},
		{summary("from=2026-01-01&to=10000-01-01"), "to"},
		{summary("from=2026-02-30&to=2026-03-01"), "from"},
		{summary("from=2026-01-01&from=2026-01-02&to=2026-03-01"), "from"},
		{series("from=2026-01-01&to=2026-02-01&interval=hour"), "interval"}, // 32 days
		{series("from=2016-01-01&to=2026-01-08&interval=day"), "interval"},  // 3,661 days
		{series("from=2016-01-01&to=2026-01-08"), "interval"},               // the default is day
		{series("from=2026-01-01&to=2026-01-02&interval=week"), "interval"},
		{series("from=2026-01-01&to=2026-01-02&interval="), "interval"},
		{series("from=2026-01-01&to=2026-01-02&interval=HOUR"), "interval"},
		{series("from=2026-01-02&to=2026-01-01&interval=hour"), "to"},
		{series("from=2026-01-01&to=2026-01-02&per_page=0"), "per_page"},
		{series("from=2026-01-01&to=2026-01-02&per_page=1001"), "per_page"},
		{series("from=2026-01-01&to=2026-01-02&page=0"), "page"},
		{series("from=0000-01-01&to=2026-01-02&interval=month"), "from"},
		{series("from=0001-01-01&to=9999-12-31&interval=month"), "interval"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Path: c.path, Key: key}), c.field)
		})
	}
	// The edges are allowed: 31 days of hours, 3,660 of days, 10,000 months.
	for _, q := range []string{
		"from=2026-01-01&to=2026-01-31&interval=hour",
		"from=2016-01-01&to=2026-01-07&interval=day",
		"from=1200-01-01&to=2033-04-30&interval=month&page=10",
	} {
		want(t, e.Do(harness.Request{Path: series(q), Key: key}), 200)
	}
	// Auth first; another user's website is an unknown one.
	for _, path := range []string{summary("from=2026-02-01&to=2026-01-31"), series("interval=week"), fmt.Sprintf("/api/v1/stats/%d/realtime", id)} {
		want(t, e.Do(harness.Request{Path: path}), http.StatusUnauthorized)
	}
	for _, path := range []string{summary("from=2026-01-01&to=2026-01-31"), series("from=2026-01-01&to=2026-01-31"), fmt.Sprintf("/api/v1/stats/%d/realtime", id)} {
		want(t, e.Do(harness.Request{Path: path, Key: other}), http.StatusNotFound)
		want(t, e.Do(harness.Request{Path: strings.Replace(path, fmt.Sprint(id), "999999", 1), Key: key}), http.StatusNotFound)
	}
}

// realtimeRows inserts realtime rows as collection's flush would, around now: pageviews per
// minute, recent pageviews (one whose path is markup), and nodes' visitor counts, with rows
// just outside every window that must not be read.
func realtimeRows(t *testing.T, e *env, id int64) (minutes map[int]int64, recent []string) {
	t.Helper()
	now := e.Clock.Now()
	current := now.Truncate(time.Minute)
	minutes = map[int]int64{0: 4, 1: 2, 7: 9, 29: 1} // minutes ago -> pageviews
	for ago, n := range minutes {
		e.exec(t, `INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, $3)`, id, current.Add(-time.Duration(ago)*time.Minute), n)
	}
	e.exec(t, `INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, 50)`, id, current.Add(-30*time.Minute))
	e.exec(t, `INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, 60)`, id+1000, current)
	for node, c := range map[string]struct {
		n   int
		ago time.Duration
	}{"a": {3, 2 * time.Second}, "b": {2, 9 * time.Second}, "stale": {5, 11 * time.Second}} {
		e.exec(t, `INSERT INTO realtime_visitors (node, website_id, visitors, flushed_at) VALUES ($1, $2, $3, $4)`, node, id, c.n, now.Add(-c.ago))
	}
	// 30 pageviews, one every 50 s from 10 s ago: the 25 newest are within 30 minutes.
	for i := range 30 {
		page := fmt.Sprintf("/p%d", i)
		if i == 1 {
			page = `/<script>alert(1)</script>`
		}
		e.exec(t, `INSERT INTO realtime_recent (website_id, at, page, referrer, country, browser, device) VALUES ($1, $2, $3, $4, 'DE:Germany', 'Firefox', 'desktop')`,
			id, now.Add(-time.Duration(10+50*i)*time.Second), page, fmt.Sprintf("ref%d.example", i))
		if i < 25 {
			recent = append(recent, page)
		}
	}
	e.exec(t, `INSERT INTO realtime_recent (website_id, at, page, referrer, country, browser, device) VALUES ($1, $2, '/old', '', '', '', '')`, id, now.Add(-31*time.Minute))
	return minutes, recent
}

func (e *env) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := e.DB.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func TestRealtime(t *testing.T) {
	e, key, id, _ := visitsEnv(t)
	minutes, recent := realtimeRows(t, e, id)
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/realtime", id), Key: key})
	want(t, res, 200)
	var body struct {
		Data struct {
			Visitors  int64   `json:"visitors"`
			Pageviews []int64 `json:"pageviews"`
			Recent    []struct {
				Page       string `json:"page"`
				Referrer   string `json:"referrer"`
				Country    string `json:"country"`
				SecondsAgo int64  `json:"seconds_ago"`
			} `json:"recent"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatal(err)
	}
	d := body.Data
	if d.Visitors != 5 {
		t.Errorf("visitors %d, want 3 + 2 (the stale node left out)", d.Visitors)
	}
	// Plausible's realtime/visitors is the same count, a bare integer, by domain.
	domain := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/websites/%d", id), Key: key}), 200)["data"].(map[string]any)["domain"].(string)
	if res := e.Do(harness.Request{Path: "/api/v1/stats/realtime/visitors?site_id=" + domain, Key: key}); res.Status != 200 || string(res.Body) != "5" { // bare: go-plausible reads it with strconv.Atoi
		t.Errorf("realtime/visitors: %d %s, want 5", res.Status, res.Body)
	}
	wantMinutes := make([]int64, 30)
	for ago, n := range minutes {
		wantMinutes[29-ago] = n
	}
	if fmt.Sprint(d.Pageviews) != fmt.Sprint(wantMinutes) {
		t.Errorf("pageviews %v, want %v", d.Pageviews, wantMinutes)
	}
	if len(d.Recent) != 25 {
		t.Fatalf("%d recent", len(d.Recent))
	}
	for i, r := range d.Recent {
		if r.Page != recent[i] || r.SecondsAgo != int64(10+50*i) || r.Referrer != fmt.Sprintf("ref%d.example", i) || r.Country != "DE:Germany" {
			t.Errorf("recent %d: %+v", i, r)
		}
	}
	// Markup in a path is data: JSON escapes it, and the answer is JSON, never HTML.
	if strings.Contains(string(res.Body), "<script>") || !strings.Contains(string(res.Body), `\u003cscript\u003e`) {
		t.Errorf("path not escaped: %s", res.Body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}

	// A website with nothing: zeros, 30 of them, and an empty list.
	id2 := int64(e.store(key, "domain", "quiet.example")["id"].(float64))
	res = e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/realtime", id2), Key: key})
	want(t, res, 200)
	if !strings.Contains(string(res.Body), `"visitors":0`) || !strings.Contains(string(res.Body), `"recent":[]`) ||
		!strings.Contains(string(res.Body), `"pageviews":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]`) {
		t.Errorf("empty realtime: %s", res.Body)
	}
}
