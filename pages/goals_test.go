package pages_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func goalValues(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// The settings page lists a website's goals, adds one and removes one; every refusal is a
// readable message beside its field and writes nothing.
func TestSettingsPageGoals(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "goals.example")
	b := e.browser().signIn(owner)
	edit := fmt.Sprintf("/websites/%d/edit", id)
	add := fmt.Sprintf("/websites/%d/goals", id)

	if p := b.get(edit); !strings.Contains(p.body, "No goals yet.") {
		t.Fatalf("no empty goal list:\n%s", p.body)
	}
	p := b.post(add, goalValues("kind", "event", "event", "Outbound Link: Click", "page", "/typed before", "currency", "EUR"))
	wantStatus(t, "add an event goal", p, http.StatusSeeOther)
	p = b.post(add, goalValues("kind", "pageview", "page", "/blog/*", "display_name", "Reads the blog"))
	wantStatus(t, "add a pageview goal", p, http.StatusSeeOther)
	p = b.get(edit + "?notice=goal-added")
	for _, s := range []string{"The goal was added.", "Outbound Link: Click", "EUR", "Reads the blog", "<code>/blog/*</code>"} {
		if !strings.Contains(p.body, s) {
			t.Errorf("settings page without %q", s)
		}
	}

	refusals := []struct {
		form    url.Values
		message string
	}{
		{goalValues("kind", "pageview", "page", "blog"), "must start with /"},
		{goalValues("kind", "pageview", "page", ""), "must be 1 to 255 characters"},
		{goalValues("kind", "event", "event", ""), "must be 1 to 64 characters"},
		{goalValues("kind", "event", "event", "E", "currency", "eur"), "must be an ISO 4217 code"},
		{goalValues("kind", "pageview", "page", "/x", "currency", "EUR"), "is accepted for event goals only"},
		{goalValues("kind", "event", "event", "Reads the blog"), "has already been taken"},
		{goalValues("kind", "download"), "must be one of pageview, event"},
		{goalValues("kind", "event", "event", "E", "extra", "1"), "extra is not accepted here"},
	}
	for _, r := range refusals {
		p := b.post(add, r.form)
		wantStatus(t, "refused goal "+r.form.Encode(), p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, "The goal was not added") || !strings.Contains(p.body, r.message) {
			t.Errorf("%s: the page does not say %q", r.form.Encode(), r.message)
		}
	}
	// Text PostgreSQL cannot store is refused for every form, before the goal's rules.
	p = b.post(add, goalValues("kind", "event", "event", "E\x00"))
	wantStatus(t, "NUL in the event name", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.body, stats.TextRule) {
		t.Errorf("NUL in the event name: the page does not say %q", stats.TextRule)
	}
	goals, err := e.Repo.Goals(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(goals) != 2 {
		t.Fatalf("%d goals after the refusals, want 2: %+v", len(goals), goals)
	}
	if goals[0].Event != "Outbound Link: Click" || goals[0].Page != "" || goals[0].Currency != "EUR" {
		t.Errorf("event goal stored as %+v", goals[0])
	}

	// Without the CSRF token nothing is written.
	wantStatus(t, "no CSRF token", b.postRaw(add, goalValues("kind", "event", "event", "Forged")), http.StatusForbidden)
	remove := fmt.Sprintf("/websites/%d/goals/%d/remove", id, goals[1].ID)
	wantStatus(t, "remove without CSRF", b.postRaw(remove, url.Values{}), http.StatusForbidden)

	// Another user cannot see, add or remove them.
	other := e.browser().signIn(e.UserWithPassword("other@example.com"))
	wantStatus(t, "another's add", other.post(add, goalValues("kind", "event", "event", "X")), http.StatusNotFound)
	wantStatus(t, "another's remove", other.post(remove, url.Values{}), http.StatusNotFound)

	wantStatus(t, "remove", b.post(remove, url.Values{}), http.StatusSeeOther)
	wantStatus(t, "remove again", b.post(remove, url.Values{}), http.StatusNotFound)
	if goals, _ = e.Repo.Goals(context.Background(), id); len(goals) != 1 || goals[0].DisplayName != "Outbound Link: Click" {
		t.Errorf("after the removal: %+v", goals)
	}
}

// The dashboard's Goals panel: each goal with its uniques, total and conversion rate, each a
// link that filters the dashboard by it; its CSV holds the same numbers.
func TestDashboardGoalsPanel(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "panel.example")
	e.Count(id, "2026-03-01", "page", map[string]int64{"/": 3})
	d1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	visit := func(visitor int32, pages []string, events, names []string) repotest.Visit {
		return repotest.Visit{Day: d1, Visitor: visitor, Pages: pages, Events: events, EventNames: names,
			Values: map[stats.Name]string{stats.LandingPage: pages[0], stats.ExitPage: pages[len(pages)-1]}}
	}
	repotest.WriteVisitRows(t, e.DB, id, []repotest.Visit{
		visit(1, []string{"/", "/signup/done"}, []string{"Signup::"}, []string{"Signup"}),
		visit(2, []string{"/signup/done"}, nil, nil),
		visit(3, []string{"/"}, nil, nil),
		visit(4, []string{"/blog"}, nil, nil),
	})
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = '2026-03-01' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, g := range []url.Values{
		goalValues("kind", "pageview", "page", "/signup/*", "display_name", "Signed up"),
		goalValues("kind", "event", "event", "Signup"),
	} {
		if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key, g); status != http.StatusCreated {
			t.Fatalf("goal: %d %s", status, body)
		}
	}
	b := e.browser().signIn(owner)
	p := b.get("/stats/panel.example?from=2026-03-01&to=2026-03-01")
	wantStatus(t, "dashboard", p, http.StatusOK)
	panel := p.body[strings.Index(p.body, `id="top-goals"`):]
	panel = panel[:strings.Index(panel, "</section>")]
	rows := regexp.MustCompile(`<a class="filter-link" href="([^"]+)">([^<]+)</a></td>\s*<td class="num">(\d+)</td>\s*<td class="num">(\d+)</td>\s*<td class="num">([^<]+)</td>`).FindAllStringSubmatch(panel, -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r[2:], " "))
	}
	if want := "Signed up 2 2 50.0 %|Signup 1 1 25.0 %"; strings.Join(got, "|") != want {
		t.Fatalf("Goals panel rows %q, want %q\n%s", got, want, panel)
	}
	link := html.UnescapeString(rows[0][1])
	if !strings.Contains(link, "filter%5Bgoal%5D=Signed+up") {
		t.Fatalf("the goal's link %q does not filter by it", link)
	}
	filtered := b.get(strings.TrimPrefix(link, e.public))
	wantStatus(t, "dashboard filtered by a goal", filtered, http.StatusOK)
	if !strings.Contains(filtered.body, "Goal") || !strings.Contains(filtered.body, "Signed up") {
		t.Errorf("no goal chip on the filtered dashboard")
	}

	csv := b.get("/stats/panel.example/export?from=2026-03-01&to=2026-03-01&name=goals")
	wantStatus(t, "goals CSV", csv, http.StatusOK)
	if want := "goal,visitors,events,conversion_rate,revenue\r\nSigned up,2,2,50.0,\r\nSignup,1,1,25.0,\r\n"; csv.body != want {
		t.Errorf("goals CSV %q, want %q", csv.body, want)
	}
}

// goalsOf gives a website the visit rows of its last ten days (a fifth of the visits sign up,
// some read the blog) and three goals, one with a long name and a markup name.
func (e *env) goalsOf(owner harness.User, id int64) {
	e.T.Helper()
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	var visits []repotest.Visit
	for d := range 10 {
		for i := range 40 {
			pages := []string{"/", "/pricing"}
			var events, names []string
			if i%5 == 0 {
				events, names = []string{"Signup::"}, []string{"Signup"}
			}
			if i%3 == 0 {
				pages = append(pages, "/blog/how-we-count-visitors-without-cookies")
			}
			visits = append(visits, repotest.Visit{Day: today.AddDate(0, 0, -d), Visitor: int32(i), Pages: pages, Events: events, EventNames: names,
				Values: map[stats.Name]string{stats.LandingPage: "/", stats.ExitPage: pages[len(pages)-1]}})
		}
	}
	repotest.WriteVisitRows(e.T, e.DB, id, visits)
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = $2 WHERE id = $1`, id, today.AddDate(0, 0, -9)); err != nil {
		e.T.Fatal(err)
	}
	for _, g := range []url.Values{
		goalValues("kind", "event", "event", "Signup"),
		goalValues("kind", "pageview", "page", "/blog/*", "display_name", "Read an article of the blog all the way to its very last paragraph"),
		goalValues("kind", "pageview", "page", "/<b>|/pricing"),
	} {
		if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key, g); status != http.StatusCreated {
			e.T.Fatalf("goal: %d %s", status, body)
		}
	}
}
