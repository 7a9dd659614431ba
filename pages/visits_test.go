package pages_test

import (
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// visitDays writes random collected days (from..to) to a website with the stats writer and
// marks the website as counting visits since since.
func (e *env) visitDays(id int64, from, to, since string) []repotest.VisitDay {
	e.T.Helper()
	rng := rand.New(rand.NewPCG(uint64(id), 5))
	var days []repotest.VisitDay
	for d := mustDay(from); !d.After(mustDay(to)); d = d.AddDate(0, 0, 1) {
		days = append(days, repotest.RandomVisitDay(rng, d, 100+rng.IntN(300)))
	}
	repotest.WriteVisitDays(e.T, e.Repo, id, days)
	e.exec(`UPDATE websites SET visits_from = $1 WHERE id = $2`, since, id)
	return days
}

func (e *env) exec(query string, args ...any) {
	e.T.Helper()
	if _, err := e.DB.Exec(query, args...); err != nil {
		e.T.Fatal(err)
	}
}

func mustDay(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// sums is a range's counters, summed here from the fixture.
type sums struct{ visitors, visits, pageviews, events, bounces, seconds, timed int64 }

func sumFixture(days []repotest.VisitDay, from, to string) sums {
	s := repotest.SumVisitDays(days, mustDay(from), mustDay(to))
	return sums{s.Visitors, s.Visits, s.Pageviews, s.Events, s.Bounces, s.VisitSeconds, s.TimedVisits}
}

// shown is how the dashboard must write the seven headline numbers, computed with floats.
func (s sums) shown() []string {
	group := func(n int64) string {
		d := strconv.FormatInt(n, 10)
		for i := len(d) - 3; i > 0; i -= 3 {
			d = d[:i] + "\u202f" + d[i:]
		}
		return d
	}
	ratio := func(a, b int64, scale float64) float64 {
		if b == 0 {
			return 0
		}
		return math.Round(float64(a)/float64(b)*scale) / scale
	}
	secs := int64(ratio(s.seconds, s.timed, 1))
	dur := fmt.Sprintf("%d s", secs)
	if secs >= 60 {
		dur = fmt.Sprintf("%d min %d s", secs/60, secs%60)
		if secs%60 == 0 {
			dur = fmt.Sprintf("%d min", secs/60)
		}
	}
	// Nothing to divide: a dash, not a 0 that reads as measured.
	perVisit := strconv.FormatFloat(ratio(s.pageviews, s.visits, 100), 'f', -1, 64)
	if s.visits == 0 {
		perVisit = "–"
	}
	bounce := strconv.FormatFloat(ratio(s.bounces*100, s.timed, 10), 'f', -1, 64) + "%"
	if s.timed == 0 {
		bounce, dur = "–", "–"
	}
	return []string{
		group(s.visitors), group(s.visits), group(s.pageviews),
		perVisit, bounce, dur, group(s.events),
	}
}

var (
	numberRE = regexp.MustCompile(`<div class="number">([^<]*)</div>`)
	beforeRE = regexp.MustCompile(`<span class="muted">vs\. ([^<]*)</span>`)
	titleRE  = regexp.MustCompile(`<rect class="slot"[^>]*><title>([^<]*)</title>`)
)

func TestDashboardHeadlineNumbers(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	days := e.visitDays(id, "2026-01-05", "2026-03-20", "2026-01-01")
	b := e.browser()

	for _, c := range []struct{ query, from, to, prevFrom, prevTo string }{
		{"", "2026-02-19", "2026-03-20", "2026-01-20", "2026-02-18"}, // the last 30 days
		{"?from=2026-03-01&to=2026-03-07", "2026-03-01", "2026-03-07", "2026-02-22", "2026-02-28"},
		{"?from=2026-03-20&to=2026-03-20", "2026-03-20", "2026-03-20", "2026-03-19", "2026-03-19"},
		{"?from=2025-03-01&to=2025-03-07", "2025-03-01", "2025-03-07", "2025-02-22", "2025-02-28"}, // nothing
	} {
		p := b.get("/stats/example.com" + c.query)
		wantStatus(t, c.query, p, http.StatusOK)
		var got []string
		for _, m := range numberRE.FindAllStringSubmatch(p.body, -1) {
			got = append(got, html.UnescapeString(m[1]))
		}
		if want := sumFixture(days, c.from, c.to).shown(); strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: numbers\n got %q\nwant %q", c.query, got, want)
		}
		var before []string
		for _, m := range beforeRE.FindAllStringSubmatch(p.body, -1) {
			before = append(before, html.UnescapeString(m[1]))
		}
		if want := sumFixture(days, c.prevFrom, c.prevTo).shown(); strings.Join(before, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: previous\n got %q\nwant %q", c.query, before, want)
		}
		for _, label := range []string{"Unique visitors", "Visits", "Pageviews", "Views per visit", "Bounce rate", "Visit duration", "Events",
			"people, counted once a day", "visits of one pageview, no event"} {
			if !strings.Contains(p.body, label) {
				t.Errorf("%s: no %q", c.query, label)
			}
		}
		// 2025 is before the changeover (2026-01-01), but none of its days holds counts: no
		// range counted the old way, no notice.
		if strings.Contains(p.body, `class="range-note"`) {
			t.Errorf("%s: a notice shown", c.query)
		}
	}
}

func TestDashboardChartByHourUpToTwoDays(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	days := e.visitDays(id, "2026-03-18", "2026-03-20", "2026-01-01")
	b := e.browser()

	titles := func(query string) []string {
		p := b.get("/stats/example.com" + query)
		wantStatus(t, query, p, http.StatusOK)
		var out []string
		for _, m := range titleRE.FindAllStringSubmatch(p.body, -1) {
			out = append(out, strings.ReplaceAll(html.UnescapeString(m[1]), "\u202f", ""))
		}
		return out
	}
	// The graph draws unique visitors, or the pageviews of graph_metric=pageviews.
	hourTitles := func(d repotest.VisitDay, pageviews bool) []string {
		var out []string
		for h, c := range d.Hours {
			n := spelled(c.Visitors, "unique visitor", "unique visitors")
			if pageviews {
				n = spelled(c.Pageviews, "pageview", "pageviews")
			}
			out = append(out, fmt.Sprintf("%s %02d:00: %s", d.Day.Format(time.DateOnly), h, n))
		}
		return out
	}
	if got, want := titles("?from=2026-03-20&to=2026-03-20"), hourTitles(days[2], false); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("one day:\n got %q\nwant %q", got, want)
	}
	if got, want := titles("?from=2026-03-19&to=2026-03-20&graph_metric=pageviews"), append(hourTitles(days[1], true), hourTitles(days[2], true)...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("two days:\n got %q\nwant %q", got, want)
	}
	var want []string
	for _, d := range days {
		want = append(want, fmt.Sprintf("%s: %s", d.Day.Format(time.DateOnly), spelled(d.Pageviews, "pageview", "pageviews")))
	}
	if got := titles("?from=2026-03-18&to=2026-03-20&graph_metric=pageviews"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("three days, by day:\n got %q\nwant %q", got, want)
	}
}

func TestDashboardNotices(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	e.visitDays(id, "2026-02-01", "2026-03-20", "2026-03-10") // counts in the 20 days before March too
	b := e.browser()
	notice := func(query string) string {
		p := b.get("/stats/example.com" + query)
		wantStatus(t, query, p, http.StatusOK)
		i := strings.Index(p.body, `<div class="range-note"`)
		if i < 0 {
			return ""
		}
		return html.UnescapeString(p.body[i : i+strings.Index(p.body[i:], "</div>")])
	}
	if n := notice("?from=2026-03-15&to=2026-03-16"); n != "" {
		t.Errorf("range and comparison after the changeover: %s", n)
	}
	if n := notice("?from=2026-03-12&to=2026-03-16"); !strings.Contains(n, "Days before 10 Mar 2026 (in the 5 days before)") {
		t.Errorf("the comparison starts before the changeover: %q", n)
	}
	if n := notice("?from=2026-03-01&to=2026-03-20"); !strings.Contains(n, "(in this range and the 20 days before)") ||
		!strings.Contains(n, "pageviews that came from another site") {
		t.Errorf("both start before: %q", n)
	}
	e.exec(`INSERT INTO imported_days (website_id, day, source) VALUES ($1, '2026-03-14', 'phpanalytics'), ($1, '2026-03-15', 'phpanalytics'), ($1, '2026-03-11', 'plausible')`, id)
	n := notice("?from=2026-03-14&to=2026-03-16")
	if !strings.Contains(n, "2 days of this range were imported from phpAnalytics") || !strings.Contains(n, "1 day of the 3 days before was imported from Plausible.") {
		t.Errorf("imported days: %q", n)
	}
}

// realtimeRows inserts what collection's flush writes for the realtime view, around the clock's
// now: pageviews per minute, the latest pageviews (one with markup in its path), nodes' counts.
func (e *env) realtimeRows(id int64) {
	e.T.Helper()
	now := e.Clock.Now()
	e.exec(`INSERT INTO realtime_minutes (website_id, minute, pageviews) VALUES ($1, $2, 3), ($1, $3, 7)`,
		id, now.Truncate(time.Minute), now.Truncate(time.Minute).Add(-12*time.Minute))
	e.exec(`INSERT INTO realtime_visitors (node, website_id, visitors, flushed_at) VALUES ('a', $1, 4, $2), ('b', $1, 2, $3)`,
		id, now.Add(-time.Second), now.Add(-20*time.Second))
	for i, page := range []string{"/pricing", `/<script>alert("rt")</script>`, "/docs"} {
		e.exec(`INSERT INTO realtime_recent (website_id, at, page, referrer, country, browser, device) VALUES ($1, $2, $3, $4, 'DE:Germany', 'Firefox', 'desktop')`,
			id, now.Add(-time.Duration(5+100*i)*time.Second), page, []string{"news.ycombinator.com", "<img src=x onerror=alert(3)>", ""}[i])
	}
}

func TestRealtimePage(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	other := e.UserWithPassword("other@example.com")
	ids := map[string]int64{
		"public.example":   e.Site(owner.Key, "public.example"),
		"private.example":  e.Site(owner.Key, "private.example", "privacy", "1"),
		"password.example": e.Site(owner.Key, "password.example", "privacy", "2", "password", "open sesame"),
	}
	for _, id := range ids {
		e.realtimeRows(id)
		// The flush that writes realtime rows writes counters too: the dashboard, not the
		// first-run guide, is shown.
		e.Count(id, time.Now().UTC().Format(time.DateOnly), "page", map[string]int64{"/pricing": 1})
	}
	stranger, ownerB, otherB := e.browser(), e.browser().signIn(owner), e.browser().signIn(other)

	// Everyone who may read the dashboard reads the numbers; only the owner the latest pageviews.
	numbersOnly := func(who string, p page) {
		t.Helper()
		wantStatus(t, who, p, http.StatusOK)
		if !strings.Contains(p.body, `<div class="realtime-now">4</div>`) || !strings.Contains(p.body, `<div class="realtime-now">10</div>`) {
			t.Errorf("%s: current visitors 4 (the stale node left out) and 10 pageviews not shown", who)
		}
		if strings.Contains(p.body, "/pricing") || strings.Contains(p.body, "Latest pageviews") || strings.Contains(p.body, "news.ycombinator.com") {
			t.Errorf("%s sees the latest pageviews", who)
		}
		if cc := p.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q", who, cc)
		}
	}
	numbersOnly("stranger on a public website", stranger.get("/stats/public.example/realtime"))
	numbersOnly("another user on a public website", otherB.get("/stats/public.example/realtime"))
	wantStatus(t, "stranger on a private website", stranger.get("/stats/private.example/realtime"), http.StatusNotFound)
	wantStatus(t, "another user on a private website", otherB.get("/stats/private.example/realtime"), http.StatusNotFound)
	wantStatus(t, "stranger on a password website", stranger.get("/stats/password.example/realtime"), http.StatusUnauthorized)
	// The password form on the realtime page grants the website and comes back to it.
	holder := e.browser()
	p := holder.post("/stats/password.example/realtime", url.Values{"password": {"open sesame"}})
	wantStatus(t, "right password", p, http.StatusSeeOther)
	numbersOnly("password holder", holder.get("/stats/password.example/realtime"))

	for domain := range ids {
		p := ownerB.get("/stats/" + domain + "/realtime")
		wantStatus(t, "owner", p, http.StatusOK)
		for _, want := range []string{"Latest pageviews", "/pricing", "news.ycombinator.com", "5 s ago", "1 min ago", "3 min ago", "Germany",
			`/&lt;script&gt;alert(&#34;rt&#34;)&lt;/script&gt;`, `&lt;img src=x onerror=alert(3)&gt;`, "Direct / none"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("owner of %s: %q missing", domain, want)
			}
		}
		if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") {
			t.Errorf("owner of %s: a stranger's markup is live on the page", domain)
		}
	}
	// The dashboard links to it and says how many are on the website now.
	p = stranger.get("/stats/public.example")
	if !strings.Contains(p.body, `<strong>4</strong> visitors in the last 5 minutes · <a href="/stats/public.example/realtime">Realtime view</a>`) {
		t.Errorf("dashboard: no current visitors with a link to the realtime view")
	}
}

// Over a quarter the chart draws a bar a week (a year is 53 bars, not 365 hairlines), each
// the sum of its days in the range, the first week's from the range's first day.
func TestDashboardChartByWeek(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	days := e.visitDays(id, "2026-01-05", "2026-03-20", "2026-01-01")
	p := e.browser().get("/stats/example.com?from=2025-12-03&to=2026-03-31") // 119 days, from a Wednesday
	wantStatus(t, "a quarter and more", p, http.StatusOK)
	var got []string
	for _, m := range titleRE.FindAllStringSubmatch(p.body, -1) {
		got = append(got, strings.ReplaceAll(html.UnescapeString(m[1]), "\u202f", ""))
	}
	var want []string
	for w := mustDay("2025-12-01"); !w.After(mustDay("2026-03-31")); w = w.AddDate(0, 0, 7) {
		var pv, vi int64
		for _, d := range days {
			if !d.Day.Before(w) && d.Day.Before(w.AddDate(0, 0, 7)) {
				pv, vi = pv+d.Pageviews, vi+d.Visitors
			}
		}
		want = append(want, fmt.Sprintf("week of %s: %s", w.Format(time.DateOnly), spelled(vi, "unique visitor", "unique visitors")))
	}
	if len(want) != 18 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("weeks:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(p.body, "Unique visitors per week") {
		t.Error("the chart does not say it is per week")
	}
}
