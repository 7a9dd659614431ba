package reports_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
)

// The report's visits, bounce rate and visit duration, against sums of the fixture computed
// here; the note on days before the changeover and imported days; a stranger's path inert.
func TestReportVisitNumbers(t *testing.T) {
	e := newEnv(t)
	o := e.User("owner@example.com")
	e.Clock.Set(time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC))
	a := e.site(o, "a.example", 1)
	b := e.site(o, "b.example", 1)
	rng := rand.New(rand.NewPCG(6, 6))
	var days []repotest.VisitDay
	for d := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC); d.Month() <= 10; d = d.AddDate(0, 0, 1) {
		days = append(days, repotest.RandomVisitDay(rng, d, 200+rng.IntN(200)))
	}
	repotest.WriteVisitDays(t, e.Repo, a, days)
	repotest.WriteVisitDays(t, e.Repo, b, days)
	e.pageview(a, "2026-10-03", `/<script>alert("report")</script>`, "", 5000)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := e.DB.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE websites SET visits_from = '2026-09-01' WHERE id = $1`, a)
	exec(`UPDATE websites SET visits_from = '2026-10-15' WHERE id = $1`, b)
	exec(`INSERT INTO imported_days (website_id, day, source) VALUES ($1, '2026-09-02', 'phpanalytics')`, b)

	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(dueOctober)
	tick(t, r)
	m := decode(t, e.smtp.WaitFor(t, 1, 10*time.Second)[0])

	sum := func(month time.Month) (visits, bounces, seconds, timed, pageviews int64) {
		for _, d := range days {
			if d.Day.Month() == month {
				visits, bounces, seconds, timed, pageviews = visits+d.Visits, bounces+d.Bounces, seconds+d.VisitSeconds, timed+d.TimedVisits, pageviews+d.Pageviews
			}
		}
		return
	}
	v10, b10, s10, t10, _ := sum(10)
	v9, b9, s9, t9, _ := sum(9)
	rate := func(b, t int64) string {
		return strconv.FormatFloat(math.Round(float64(b)/float64(t)*1000)/10, 'f', -1, 64) + "%"
	}
	dur := func(s, t int64) string {
		secs := int64(math.Round(float64(s) / float64(t)))
		if secs < 60 {
			return fmt.Sprintf("%d s", secs)
		}
		if secs%60 == 0 {
			return fmt.Sprintf("%d min", secs/60)
		}
		return fmt.Sprintf("%d min %d s", secs/60, secs%60)
	}
	thousands := func(n int64) string {
		s := strconv.FormatInt(n, 10)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	section := siteSection(t, m.text, "a.example")
	for _, want := range []string{
		fmt.Sprintf(`Visits +%s +\S+ vs\. previous month \(%s\)`, thousands(v10), thousands(v9)),
		fmt.Sprintf(`Bounce rate +%s +\S+ vs\. previous month \(%s\)`, regexp.QuoteMeta(rate(b10, t10)), regexp.QuoteMeta(rate(b9, t9))),
		fmt.Sprintf(`Visit duration +%s +\S+ vs\. previous month \(%s\)`, dur(s10, t10), dur(s9, t9)),
	} {
		if !regexp.MustCompile(want).MatchString(section) {
			t.Errorf("text part lacks %q:\n%s", want, section)
		}
	}
	for _, want := range []string{">" + thousands(v10) + "<", ">" + rate(b10, t10) + "<", ">" + dur(s10, t10) + "<", "Unique visitors", "visits of one pageview, no event"} {
		if !strings.Contains(m.html, want) {
			t.Errorf("HTML part lacks %q", want)
		}
	}
	if strings.Contains(section, "Note:") {
		t.Errorf("a.example counted visits all along: no note wanted:\n%s", section)
	}
	// b.example: October starts before its changeover, and September holds an imported day.
	other := siteSection(t, m.text, "b.example")
	for _, want := range []string{
		"Note: Days before 15 Oct 2026 (in October 2026 and September 2026) were counted before visits were recognised",
		"Note: 1 day of September 2026 was imported from phpAnalytics",
	} {
		if !strings.Contains(other, want) || !strings.Contains(m.html, strings.TrimPrefix(want, "Note: ")) {
			t.Errorf("b.example lacks %q in a part:\n%s", want, other)
		}
	}
	// The stranger's path is text in both parts.
	if strings.Contains(m.html, "<script>") || !strings.Contains(m.html, "/&lt;script&gt;alert(&#34;report&#34;)&lt;/script&gt;") {
		t.Errorf("the path is not escaped in the HTML part")
	}
	if !strings.Contains(section, `/<script>alert("report")</script>`) {
		t.Errorf("the text part lacks the path as is:\n%s", section)
	}
}
