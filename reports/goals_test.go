package reports_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The report lists each goal with its visitors and conversion rate over the period, in both
// parts; a website without goals has no such section.
func TestReportGoals(t *testing.T) {
	e := newEnv(t)
	o := e.User("owner@example.com")
	e.Clock.Set(time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC))
	a := e.site(o, "a.example", 1)
	b := e.site(o, "b.example", 1)
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	var visits []repotest.Visit
	for i := range 8 {
		pages := []string{"/"}
		if i < 3 {
			pages = append(pages, "/signup/done")
		}
		visits = append(visits, repotest.Visit{Day: day, Visitor: int32(i), Pages: pages,
			Values: map[stats.Name]string{stats.LandingPage: "/", stats.ExitPage: pages[len(pages)-1]}})
	}
	repotest.WriteVisitRows(t, e.DB, a, visits)
	e.pageview(a, "2026-10-05", "/", "", 8)
	e.pageview(b, "2026-10-05", "/", "", 8)
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = '2026-10-01' WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/websites/" + strconv.FormatInt(a, 10) + "/goals", Key: o.Key,
		Form: url.Values{"kind": {"pageview"}, "page": {"/signup/*"}, "display_name": {"Signed <up>"}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("goal: %d %s", res.Status, res.Body)
	}

	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(dueOctober)
	tick(t, r)
	m := decode(t, e.smtp.WaitFor(t, 1, 10*time.Second)[0])
	section := siteSection(t, m.text, "a.example")
	if !regexp.MustCompile(`Goals \(visitors, conversion rate\)\n +3 +37\.5 %  Signed <up>`).MatchString(section) {
		t.Errorf("text part without the goal line:\n%s", section)
	}
	if !strings.Contains(m.html, ">Signed &lt;up&gt;<") || !strings.Contains(m.html, ">37.5 %<") {
		t.Errorf("HTML part without the goal")
	}
	if strings.Contains(siteSection(t, m.text, "b.example"), "Goals") {
		t.Errorf("b.example has no goals: no section wanted")
	}
}
