package reports_test

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit"
	"github.com/analytics-service/analytics/testkit/harness"
)

// october is the fixture of most tests: an owner with two websites with email 1 and one
// with email 0, a second owner with only an email-0 website, and a third whose only email-1
// website was added after October ended. The reports of October are due on 1 November 06:00.
type october struct {
	owner, quiet, late harness.User
	a, b, c            int64 // a.example, b.example (email 1), c.example (email 0)
}

var dueOctober = time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)

func setupOctober(e *env) october {
	e.T.Helper()
	var f october
	f.owner = e.User("owner@example.com")
	f.quiet = e.User("quiet@example.com")
	f.late = e.User("late@example.com")
	e.Clock.Set(time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)) // after September: none is due for it
	f.a = e.site(f.owner, "a.example", 1)
	f.b = e.site(f.owner, "b.example", 1)
	f.c = e.site(f.owner, "c.example", 0)
	e.site(f.quiet, "quiet.example", 0)
	e.Clock.Set(time.Date(2026, 11, 1, 0, 30, 0, 0, time.UTC))
	e.site(f.late, "late.example", 1)

	// a.example in October: 1,253 visits and pageviews, plus 100 pageviews that are no visit.
	e.pageview(f.a, "2026-10-01", "/", "", 1000)
	e.pageview(f.a, "2026-10-15", "/blog", "google.com", 200)
	e.pageview(f.a, "2026-10-31", "/<b>x</b>", "news.example", 34)
	for _, p := range []string{"/c", "/a", "/b"} { // a tie: the API orders it by value
		e.pageview(f.a, "2026-10-20", p, "", 5)
	}
	e.pageview(f.a, "2026-10-21", "/d", "", 4)
	e.Count(f.a, "2026-10-10", "pageview", map[string]int64{"2026-10-10": 100})
	// Outside October: the day before and the day after.
	e.pageview(f.a, "2026-09-30", "/", "", 1100)
	e.pageview(f.a, "2026-11-01", "/", "", 7)
	// b.example had visits in September only; c.example (email 0) had some in October.
	e.pageview(f.b, "2026-09-12", "/", "", 10)
	e.pageview(f.c, "2026-10-12", "/", "", 99)
	return f
}

func TestReportContentMatchesTheStatsAPI(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	r, reg := e.reporter(e.Repo, e.smtp.URL())

	e.Clock.Set(dueOctober.Add(-time.Second))
	tick(t, r)
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages before 06:00 on the 1st", n)
	}
	e.Clock.Set(dueOctober)
	tick(t, r)
	got := e.smtp.WaitFor(t, 1, 10*time.Second)
	tick(t, r) // nothing more
	if got = e.smtp.Messages(); len(got) != 1 {
		t.Fatalf("%d messages, want 1 (owner@ only: quiet@ has only email 0, late@'s website is newer than October)", len(got))
	}
	if strings.Join(got[0].To, ",") != "owner@example.com" || got[0].From != "reports@example.test" {
		t.Fatalf("envelope from %q to %v", got[0].From, got[0].To)
	}
	m := decode(t, got[0])

	// Headers.
	wantID := fmt.Sprintf("<report-%d-month-2026-10@example.test>", f.owner.ID)
	for name, want := range map[string]string{
		"Subject":               "Analytics report for October 2026",
		"Message-Id":            wantID,
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"To":                    "<owner@example.com>",
	} {
		if got := m.get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if from := m.get("From"); !strings.Contains(from, "<reports@example.test>") {
		t.Errorf("From: %q", from)
	}
	unsub := m.get("List-Unsubscribe")
	if !regexp.MustCompile(`^<https://stats\.example\.test/unsubscribe/[0-9A-Za-z._-]+>$`).MatchString(unsub) {
		t.Errorf("List-Unsubscribe: %q", unsub)
	}
	if !strings.Contains(m.text, "Stop all of them: "+strings.Trim(unsub, "<>")) {
		t.Errorf("the text part does not offer the List-Unsubscribe link")
	}

	// Numbers: the API's sums for the same range.
	visitors := e.apiSum(f.owner, f.a, "visitor", "2026-10-01", "2026-10-31")
	pageviews := e.apiSum(f.owner, f.a, "pageview", "2026-10-01", "2026-10-31")
	before := e.apiSum(f.owner, f.a, "visitor", "2026-09-01", "2026-09-30")
	if visitors != 1253 || pageviews != 1353 || before != 1100 {
		t.Fatalf("fixture: API says visitors %d, pageviews %d, September %d", visitors, pageviews, before)
	}
	section := siteSection(t, m.text, "a.example")
	for _, want := range []string{
		`Visitors +1,253 +\+14% vs\. previous month \(1,100\)`,
		`Pageviews +1,353 +\+23% vs\. previous month \(1,100\)`,
	} {
		if !regexp.MustCompile(want).MatchString(section) {
			t.Errorf("text part of a.example lacks %q:\n%s", want, section)
		}
	}
	if !regexp.MustCompile(`Visitors +0 +−100% vs\. previous month \(10\)`).MatchString(siteSection(t, m.text, "b.example")) {
		t.Errorf("b.example: want 0 visitors, −100%% on 10:\n%s", m.text)
	}
	if strings.Contains(m.text, "c.example") || strings.Contains(m.html, "c.example") {
		t.Error("a website with email 0 is in the report")
	}

	// Top 5 pages and referrers: the first five of the API's default order.
	checkTop(t, section, "Top pages (pageviews)", e.apiStats(f.owner, f.a, "page", "2026-10-01", "2026-10-31"), "")
	checkTop(t, section, "Top referrers (visits)", e.apiStats(f.owner, f.a, "referrer", "2026-10-01", "2026-10-31"), "(direct or unknown)")

	// Links: the stats page of the period, and the website's own unsubscribe link.
	stats := "https://stats.example.test/stats/a.example?from=2026-10-01&to=2026-10-31"
	if !strings.Contains(section, "\n"+stats+"\n") {
		t.Errorf("text part lacks the stats link %s:\n%s", stats, section)
	}
	if !strings.Contains(m.html, `href="`+strings.ReplaceAll(stats, "&", "&amp;")+`"`) {
		t.Errorf("HTML part lacks the stats link")
	}
	if !regexp.MustCompile(`Stop the reports for a\.example:\nhttps://stats\.example\.test/unsubscribe/\S+\n`).MatchString(section) {
		t.Errorf("text part lacks a.example's unsubscribe link:\n%s", section)
	}

	// A stranger's page path: escaped in HTML, as is (and harmless) in text.
	if !strings.Contains(m.html, "/&lt;b&gt;x&lt;/b&gt;") || strings.Contains(m.html, "<b>x</b>") {
		t.Errorf("the page /<b>x</b> is not escaped in the HTML part")
	}
	if !strings.Contains(section, "        34  /<b>x</b>\n") {
		t.Errorf("the text part lacks the page /<b>x</b> as is:\n%s", section)
	}
	for _, n := range []string{">1,253<", ">1,353<", "+14% ", "+23% "} {
		if !strings.Contains(html.UnescapeString(m.html), n) {
			t.Errorf("HTML part lacks %s", n)
		}
	}

	if testing.Verbose() {
		t.Logf("TEXT:\n%s\nHTML:\n%s", m.text, m.html)
	}
	// Recorded and counted.
	ds := e.deliveries()
	if len(ds) != 1 || ds[0].UserID != f.owner.ID || ds[0].Status != "sent" || ds[0].Start != "2026-10-01" || ds[0].Attempts != 1 {
		t.Fatalf("deliveries %+v", ds)
	}
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_sent_total"); v != 1 {
		t.Errorf("sent counter %v", v)
	}
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_oldest_unsent_age_seconds"); v != 0 {
		t.Errorf("oldest unsent %v, want 0", v)
	}
}

// siteSection is one website's part of the text: from its name to the next blank line after
// its unsubscribe link.
func siteSection(t testing.TB, text, domain string) string {
	t.Helper()
	start := strings.Index(text, "\n"+domain+"\n")
	if start < 0 {
		t.Fatalf("no section for %s:\n%s", domain, text)
	}
	rest := text[start+1:]
	end := strings.Index(rest, "/unsubscribe/")
	end += strings.Index(rest[end:], "\n")
	return rest[:end+1]
}

// checkTop compares the lines of a top list in the text part with the API's first entries.
func checkTop(t testing.TB, section, title string, api []repository.StatEntry, empty string) {
	t.Helper()
	i := strings.Index(section, title+"\n")
	if i < 0 {
		t.Fatalf("no %q in:\n%s", title, section)
	}
	lines := strings.Split(section[i+len(title)+1:], "\n")
	if len(api) > 5 {
		api = api[:5]
	}
	for j, want := range api {
		value := want.Value
		if value == "" {
			value = empty
		}
		line := regexp.MustCompile(`^ +([0-9,]+)  (.*)$`).FindStringSubmatch(lines[j])
		if line == nil || strings.ReplaceAll(line[1], ",", "") != fmt.Sprint(want.Count) || line[2] != value {
			t.Errorf("%s line %d: %q, want %d %q (the API's order)", title, j+1, lines[j], want.Count, value)
		}
	}
	if lines[len(api)] != "" {
		t.Errorf("%s has more than %d lines: %q", title, len(api), lines[len(api)])
	}
}

var _ = http.MethodGet
