package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
)

// fakeClock is the clock every part of a test's service reads.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Add(d time.Duration) { c.ns.Add(int64(d)) }
func (c *fakeClock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func at(day, clock string) time.Time {
	t, _ := time.Parse("2006-01-02 15:04:05", day+" "+clock)
	return t
}
func pageHit(domain, path, referrer string) string {
	return body("https://"+domain+path, referrer, "1280x800")
}

// apiStats reads a statistic of a website through GET /api/v1/stats/{id} (every value, summed
// over the days from..to): what a client of the API sees.
func (c *collectEnv) apiStats(id int64, name, from, to string) map[string]int64 {
	c.T.Helper()
	out := map[string]int64{}
	for page := 1; ; page++ {
		req := httptest.NewRequest("GET", fmt.Sprintf("http://api.test/api/v1/stats/%d?name=%s&from=%s&to=%s&per_page=100&page=%d", id, name, from, to, page), nil)
		req.Header.Set("Authorization", "Bearer "+c.key)
		res := c.DoRequest(req)
		if res.Status != http.StatusOK {
			c.T.Fatalf("stats %s: %d %s", name, res.Status, res.Body)
		}
		var body struct {
			Data []struct {
				Value string `json:"value"`
				Count int64  `json:"count"`
			} `json:"data"`
			Meta struct {
				LastPage int `json:"last_page"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil {
			c.T.Fatal(err)
		}
		for _, e := range body.Data {
			out[e.Value] += e.Count
		}
		if page >= body.Meta.LastPage {
			return out
		}
	}
}

// internal reads an internal counter (not a name of the API) of a day from the stats table.
func (c *collectEnv) internal(id int64, name, date string) map[string]int64 {
	c.T.Helper()
	var rows []struct {
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := c.DB.Select(&rows, `SELECT value, count FROM stats WHERE website_id = $1 AND name = $2 AND date = $3`, id, name, date); err != nil {
		c.T.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Value] = r.Count
	}
	return out
}

func (c *collectEnv) flush() {
	c.T.Helper()
	if err := c.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		c.T.Fatal(err)
	}
}

// step is one moment of a visit scenario: a hit (body, from a client), a wait, or a flush.
type step struct {
	wait  time.Duration
	body  string // "" for no hit
	ua    string
	flush bool
}

// The visit scenarios of docs/visits.md with a fake clock, each on a website of its own,
// checked through the stats API (and the internal counters behind the summary in the table).
// Each runs twice: flushing only at the end, and flushing after every step, so that the
// deltas a visit sends as it goes on (an exit page that moves, a bounce that ends) meet rows
// written by earlier flushes.
func TestVisitScenarios(t *testing.T) {
	const d1, d2 = "2026-03-04", "2026-03-05"
	type want struct {
		day                      string
		visitors, visits, views  int64
		landing, exit, referrers map[string]int64
		bounces, seconds, timed  int64
	}
	cases := []struct {
		name  string
		start time.Time
		steps func(domain string) []step
		want  []want
		rows  []string // the visits' rows (visitRow.String)
	}{
		{"one page", at(d1, "10:00:00"),
			func(d string) []step { return []step{{body: pageHit(d, "/a", "")}} },
			[]want{{d1, 1, 1, 1, m("/a", 1), m("/a", 1), m("", 1), 1, 0, 1}},
			[]string{`2026-03-04 10h ref="" /a>/a pageviews=1 bounce=true seconds=0 pages=[/a] events=[]`}},
		{"two pages", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "https://news.ycombinator.com/item")}, {wait: 40 * time.Second, body: pageHit(d, "/b", "https://"+d+"/a")}}
			},
			[]want{{d1, 1, 1, 2, m("/a", 1), m("/b", 1), m("news.ycombinator.com", 1), 0, 40, 1}},
			[]string{`2026-03-04 10h ref="news.ycombinator.com" /a>/b pageviews=2 bounce=false seconds=40 pages=[/a /b] events=[]`}},
		{"a gap longer than the timeout starts a second visit, not a second visitor", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "")}, {wait: 20 * time.Second, body: pageHit(d, "/b", "")},
					{wait: 31 * time.Minute, body: pageHit(d, "/c", "https://www.bing.com/")}}
			},
			[]want{{d1, 1, 2, 3, m("/a", 1, "/c", 1), m("/b", 1, "/c", 1), m("", 1, "www.bing.com", 1), 1, 20, 2}},
			[]string{`2026-03-04 10h ref="" /a>/b pageviews=2 bounce=false seconds=20 pages=[/a /b] events=[]`,
				`2026-03-04 10h ref="www.bing.com" /c>/c pageviews=1 bounce=true seconds=0 pages=[/c] events=[]`}},
		{"an event ends a bounce and is no pageview", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "")}, {wait: 5 * time.Second, body: `{"page":"https://` + d + `/a","event":{"name":"Signup"}}`}}
			},
			[]want{{d1, 1, 1, 1, m("/a", 1), m("/a", 1), m("", 1), 0, 5, 1}},
			[]string{`2026-03-04 10h ref="" /a>/a pageviews=1 bounce=false seconds=5 pages=[/a] events=[Signup::]`}},
		{"an event with no open visit starts one, on its page", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: `{"page":"https://` + d + `/e","event":{"name":"Download"}}`}, {wait: 3 * time.Second, body: pageHit(d, "/p", "")},
					{wait: 3 * time.Second, body: pageHit(d, "/q", "")}}
			},
			[]want{{d1, 1, 1, 2, m("/p", 1), m("/q", 1), m("", 1), 0, 6, 1}},
			[]string{`2026-03-04 10h ref="" /p>/q pageviews=2 bounce=false seconds=6 pages=[/p /q] events=[Download::]`}},
		{"a referrer of the website itself is the empty referrer", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "https://www."+d+"/x")}, {wait: time.Second, body: pageHit(d, "/b", "https://www.google.de/")}}
			},
			[]want{{d1, 1, 1, 2, m("/a", 1), m("/b", 1), m("", 1), 0, 1, 1}},
			[]string{`2026-03-04 10h ref="" /a>/b pageviews=2 bounce=false seconds=1 pages=[/a /b] events=[]`}},
		{"a visit crossing midnight belongs to the day it started", at(d1, "23:50:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "")}, {wait: 15 * time.Minute, body: pageHit(d, "/b", "")}}
			},
			[]want{{d1, 1, 1, 1, m("/a", 1), m("/b", 1), m("", 1), 0, 900, 1}, {d2, 0, 0, 1, m(), m(), m(), 0, 0, 0}},
			// The row is the visit's day's, as its counters, with both pageviews.
			[]string{`2026-03-04 23h ref="" /a>/b pageviews=2 bounce=false seconds=900 pages=[/a /b] events=[]`}},
		{"two browsers at one address are two visitors", at(d1, "10:00:00"),
			func(d string) []step {
				return []step{{body: pageHit(d, "/a", "")}, {body: pageHit(d, "/a", ""), ua: ingest.SafariIPhoneUA}}
			},
			[]want{{d1, 2, 2, 2, m("/a", 2), m("/a", 2), m("", 2), 2, 0, 2}},
			[]string{`2026-03-04 10h ref="" /a>/a pageviews=1 bounce=true seconds=0 pages=[/a] events=[]`,
				`2026-03-04 10h ref="" /a>/a pageviews=1 bounce=true seconds=0 pages=[/a] events=[]`}},
	}
	for _, flushEach := range []bool{false, true} {
		for i, c := range cases {
			t.Run(fmt.Sprintf("%s/flush each step %v", c.name, flushEach), func(t *testing.T) {
				clock := newClock(c.start)
				e := newCollectEnv(t, app.Config{Now: clock.Now})
				domain := fmt.Sprintf("scenario%d.test", i)
				id := e.site(domain)
				for _, s := range c.steps(domain) {
					clock.Add(s.wait)
					if s.body != "" {
						if res := e.send(hit{body: s.body, ua: s.ua}); res.Status != http.StatusAccepted {
							t.Fatalf("status %d: %s", res.Status, res.Body)
						}
					}
					if flushEach {
						e.flush()
					}
				}
				clock.Add(time.Hour) // every visit has ended
				e.flush()
				for _, w := range c.want {
					got := fmt.Sprint(e.apiStats(id, "visitor", w.day, w.day)[w.day], e.apiStats(id, "visit", w.day, w.day)[w.day],
						e.apiStats(id, "pageview", w.day, w.day)[w.day], e.apiStats(id, "landing_page", w.day, w.day),
						e.apiStats(id, "exit_page", w.day, w.day), e.apiStats(id, "referrer", w.day, w.day),
						e.internal(id, "bounce", w.day)[w.day], e.internal(id, "visit_seconds", w.day)[w.day], e.internal(id, "timed_visit", w.day)[w.day])
					wantText := fmt.Sprint(w.visitors, w.visits, w.views, w.landing, w.exit, w.referrers, w.bounces, w.seconds, w.timed)
					if got != wantText {
						t.Errorf("%s: visitors visits pageviews landing exit referrer bounces seconds timed\n got  %s\n want %s", w.day, got, wantText)
					}
				}
				var rows []string
				for _, r := range e.visitRows(id) {
					rows = append(rows, r.String())
				}
				if got, want := strings.Join(rows, "\n"), strings.Join(c.rows, "\n"); got != want {
					t.Errorf("visit rows\n got  %s\n want %s", got, want)
				}
				var zero int
				if err := e.DB.Get(&zero, `SELECT count(*) FROM stats WHERE count <= 0`); err != nil || zero != 0 {
					t.Errorf("%d rows count 0 or less (%v)", zero, err)
				}
			})
		}
	}
}

// m is a map of values to counts: m("/a", 1, "/b", 2).
func m(kv ...any) map[string]int64 {
	out := map[string]int64{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = int64(kv[i+1].(int))
	}
	return out
}

// The hourly counters: visitors with a hit in the hour, pageviews in it, visits by the hour they
// started.
func TestHourlyCounters(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:50:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("hours.test")
	e.send(hit{body: pageHit("hours.test", "/a", "")})
	e.flush()
	clock.Add(15 * time.Minute) // 11:05, the same visit
	e.send(hit{body: pageHit("hours.test", "/b", "")})
	e.send(hit{body: pageHit("hours.test", "/c", ""), ua: ingest.SafariIPhoneUA})
	clock.Add(time.Hour)
	e.flush()
	got := fmt.Sprint(e.internal(id, "visitor_hour", "2026-03-04"), e.internal(id, "pageview_hour", "2026-03-04"),
		e.internal(id, "visit_hour", "2026-03-04"), e.internal(id, "bounce_hour", "2026-03-04"), e.internal(id, "visit_seconds_hour", "2026-03-04"))
	want := fmt.Sprint(m("10", 1, "11", 2), m("10", 1, "11", 2), m("10", 1, "11", 1), m("11", 1), m("10", 900))
	if got != want {
		t.Fatalf("visitor_hour pageview_hour visit_hour bounce_hour visit_seconds_hour\n got  %s\n want %s", got, want)
	}
}

// Past MAX_OPEN_VISITS the least recent visit ends early, and past its bound a client address
// opens no more visits (each of its hits is then a visit of its own): memory stays bounded, the
// counts stay whole, and the metric says so.
func TestOpenVisitBounds(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, MaxOpenVisits: 64, MaxVisitsPerAddress: 5})
	id := e.site("bounds.test")
	for i := range 200 {
		clock.Add(time.Second)
		h := hit{body: pageHit("bounds.test", "/", ""), remote: fmt.Sprintf("198.51.100.%d:1", i%250+1)}
		if res := e.send(h); res.Status != http.StatusAccepted {
			t.Fatalf("status %d", res.Status)
		}
	}
	if open := e.App.Pipeline.Visits.Open(); open > 64 {
		t.Errorf("%d visits open, want at most MAX_OPEN_VISITS 64", open)
	}
	// One address, a new user agent on every hit: a flood.
	for i := range 20 {
		e.send(hit{body: pageHit("bounds.test", "/", ""), remote: "203.0.113.9:1", ua: fmt.Sprintf("Mozilla/5.0 Flood/%d", i)})
	}
	clock.Add(time.Hour)
	e.flush()
	if got := e.apiStats(id, "visit", "2026-03-04", "2026-03-04")["2026-03-04"]; got != 220 {
		t.Errorf("%d visits, want 220", got)
	}
	if got := e.apiStats(id, "visitor", "2026-03-04", "2026-03-04")["2026-03-04"]; got != 220 {
		t.Errorf("%d visitors, want 220", got)
	}
	maxOpen := e.Metric("analytics_visits_ended_early_total", "reason", "max_open")
	byAddress := e.Metric("analytics_visits_ended_early_total", "reason", "address_bound")
	if maxOpen < 200-64 || byAddress != 15 {
		t.Errorf("ended early: max_open %v (want >= 136), address_bound %v (want 15)", maxOpen, byAddress)
	}
}

// Without the salt of the day a node answers 503 rather than invent one, and counts again once
// the salt job has run.
func TestNoSaltAnswers503(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	e.site("salt.test")
	clock.Add(3 * 24 * time.Hour) // the salt job has not run since
	res := e.send(hit{body: pageHit("salt.test", "/", "")})
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("without a salt: %d %s, want 503 with Retry-After", res.Status, res.Body)
	}
	if err := e.App.Pipeline.Ready(context.Background()); err == nil {
		t.Error("/readyz/collect says ready without the salt of the day")
	}
	if err := e.App.Pipeline.RefreshSalts(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := e.send(hit{body: pageHit("salt.test", "/", "")}); res.Status != http.StatusAccepted {
		t.Fatalf("after the salt job: %d", res.Status)
	}
	var days []string
	if err := e.DB.Select(&days, `SELECT to_char(day, 'YYYY-MM-DD') FROM visitor_salts ORDER BY day`); err != nil {
		t.Fatal(err)
	}
	// Today's and tomorrow's, and yesterday's for visits that cross midnight; the 4th and
	// 5th are gone with the membership kept under them.
	if fmt.Sprint(days) != "[2026-03-06 2026-03-07 2026-03-08]" {
		t.Errorf("salts of %v", days)
	}
}

// Two nodes on one database count one visitor once a day, however the hits are spread; and a
// node that restarts in the middle of a visit starts a new visit, never a new visitor.
func TestTwoNodesAndARestartCountOneVisitor(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	a := newCollectEnv(t, app.Config{Now: clock.Now, Node: "node-a"})
	id := a.site("nodes.test")
	nodeB := func(name string) *collectEnv {
		return a.node(func(c *app.Config) { c.Node = name; c.Geo = nil })
	}
	b := nodeB("node-b")
	a.send(hit{body: pageHit("nodes.test", "/a", "")})
	b.send(hit{body: pageHit("nodes.test", "/a", "")}) // before either flushed
	a.flush()
	b.flush()
	clock.Add(time.Minute)
	b.send(hit{body: pageHit("nodes.test", "/b", "")})
	b.flush()
	// node-a stops (SIGTERM: its visit ends, its counts are written) and comes back.
	if err := a.App.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	restarted := nodeB("node-a")
	clock.Add(time.Minute)
	restarted.send(hit{body: pageHit("nodes.test", "/c", "")})
	clock.Add(time.Hour)
	restarted.flush()
	b.flush()
	day := "2026-03-04"
	got := fmt.Sprint(a.apiStats(id, "visitor", day, day)[day], a.apiStats(id, "visit", day, day)[day], a.apiStats(id, "pageview", day, day)[day],
		a.apiStats(id, "landing_page", day, day), a.apiStats(id, "exit_page", day, day), a.internal(id, "visitor_hour", day))
	want := fmt.Sprint(1, 3, 4, m("/a", 2, "/c", 1), m("/a", 1, "/b", 1, "/c", 1), m("10", 1))
	if got != want {
		t.Fatalf("visitor visit pageview landing exit visitor_hour\n got  %s\n want %s", got, want)
	}
}

// Counts through the API against numbers computed independently from generated traffic: random
// visitors (address and browser), random pages and gaps around the timeout, random flushes.
func TestGeneratedTrafficCounts(t *testing.T) {
	clock := newClock(at("2026-03-04", "09:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, VisitTimeout: 10 * time.Minute})
	id := e.site("gen.test")
	rng := rand.New(rand.NewPCG(16, 8))
	uas := []string{ingest.ChromeWindowsUA, ingest.SafariIPhoneUA}
	type visitor struct {
		addr, ua   string
		last       time.Time
		open       bool
		start      time.Time
		pages      []string
		events     int
		landing    string
		everEvents bool
	}
	var people []*visitor
	for i := range 30 {
		people = append(people, &visitor{addr: fmt.Sprintf("198.51.100.%d:1", i/2+1), ua: uas[i%2]})
	}
	wantVisits, wantViews, wantBounces, wantSeconds := int64(0), int64(0), int64(0), int64(0)
	landing, exit := map[string]int64{}, map[string]int64{}
	seen := map[*visitor]bool{}
	var wantRows []string // each visit's row: what it did, as visitRowSummary says
	closeVisit := func(p *visitor) {
		if !p.open {
			return
		}
		p.open = false
		wantVisits++
		if len(p.pages) == 1 && p.events == 0 {
			wantBounces++
		}
		wantSeconds += int64(p.last.Sub(p.start) / time.Second)
		first, last := p.landing, p.landing
		if len(p.pages) > 0 {
			first, last = p.pages[0], p.pages[len(p.pages)-1]
		}
		landing[first]++
		exit[last]++
		wantRows = append(wantRows, visitRowSummary(first, last, p.pages, p.events, int(p.last.Sub(p.start)/time.Second), len(p.pages) == 1 && p.events == 0))
	}
	for range 400 {
		clock.Add(time.Duration(rng.IntN(40)) * time.Second)
		now := clock.Now()
		p := people[rng.IntN(len(people))]
		if p.open && now.Sub(p.last) >= 10*time.Minute {
			closeVisit(p)
		}
		if rng.IntN(20) == 0 {
			clock.Add(11 * time.Minute) // everybody's visit times out
			now = clock.Now()
			for _, q := range people {
				closeVisit(q)
			}
		}
		page := fmt.Sprintf("/p%d", rng.IntN(6))
		isEvent := rng.IntN(8) == 0
		if !p.open {
			p.open, p.start, p.pages, p.events, p.landing = true, now, nil, 0, page
		}
		p.last = now
		seen[p] = true
		var b string
		if isEvent {
			p.events++
			b = `{"page":"https://gen.test` + page + `","event":{"name":"E"}}`
		} else {
			p.pages = append(p.pages, page)
			wantViews++
			b = pageHit("gen.test", page, "")
		}
		if res := e.send(hit{body: b, remote: p.addr, ua: p.ua}); res.Status != http.StatusAccepted {
			t.Fatalf("status %d", res.Status)
		}
		if rng.IntN(10) == 0 {
			e.flush()
		}
	}
	for _, p := range people {
		closeVisit(p)
	}
	clock.Add(time.Hour)
	e.flush()
	day := "2026-03-04"
	got := fmt.Sprint(e.apiStats(id, "visitor", day, day)[day], e.apiStats(id, "visit", day, day)[day], e.apiStats(id, "pageview", day, day)[day],
		e.apiStats(id, "landing_page", day, day), e.apiStats(id, "exit_page", day, day),
		e.internal(id, "bounce", day)[day], e.internal(id, "visit_seconds", day)[day])
	want := fmt.Sprint(int64(len(seen)), wantVisits, wantViews, nonZero(landing), nonZero(exit), wantBounces, wantSeconds)
	if got != want {
		t.Fatalf("visitor visit pageview landing exit bounce seconds\n got  %s\n want %s", got, want)
	}
	var gotRows []string
	for _, r := range e.visitRows(id) {
		gotRows = append(gotRows, visitRowSummary(r.LandingPage, r.ExitPage, r.Pages, len(r.Events), r.Seconds, r.Bounce))
	}
	slices.Sort(gotRows)
	slices.Sort(wantRows)
	if g, w := strings.Join(gotRows, "\n"), strings.Join(wantRows, "\n"); g != w {
		t.Fatalf("visit rows (one a visit)\n got  %s\n want %s", g, w)
	}
}

// visitRowSummary is what the generated traffic knows of a visit's row.
func visitRowSummary(landing, exit string, pages []string, events, seconds int, bounce bool) string {
	return fmt.Sprintf("%s>%s pages=%v events=%d seconds=%d bounce=%v", landing, exit, pages, events, seconds, bounce)
}

func nonZero(in map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range in {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}
