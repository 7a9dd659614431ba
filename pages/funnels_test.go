package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
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

// funnelValues is an add-a-funnel form: its name and the step boxes in order ("" an empty one).
func funnelValues(name string, steps ...string) url.Values {
	v := url.Values{"name": {name}}
	for _, s := range steps {
		v.Add("steps", s)
	}
	return v
}

// The settings page makes a funnel of goals picked in order (empty boxes skipped), moves its
// steps, removes it, and says before what removing a goal does to the funnels; every refusal
// is a readable message and writes nothing.
func TestSettingsPageFunnels(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "funnels.example")
	b := e.browser().signIn(owner)
	edit := fmt.Sprintf("/websites/%d/edit", id)
	add := fmt.Sprintf("/websites/%d/funnels", id)
	if p := b.get(edit); !strings.Contains(p.body, "No funnels yet.") || !strings.Contains(p.body, "A funnel needs at least two goals") {
		t.Fatalf("no empty funnel list:\n%s", p.body)
	}
	var ids []string
	for _, g := range []url.Values{
		goalValues("kind", "pageview", "page", "/pricing"),
		goalValues("kind", "event", "event", "Signup"),
		goalValues("kind", "pageview", "page", "/welcome/*", "display_name", "Welcome"),
	} {
		wantStatus(t, "add a goal", b.post(fmt.Sprintf("/websites/%d/goals", id), g), http.StatusSeeOther)
	}
	goals, err := e.Repo.Goals(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, g := range goals {
		byName[g.DisplayName] = fmt.Sprint(g.ID)
	}
	ids = []string{byName["Visit /pricing"], byName["Signup"], byName["Welcome"]}

	wantStatus(t, "add a funnel", b.post(add, funnelValues("Signup path", ids[0], "", ids[1], ids[2], "", "", "", "")), http.StatusSeeOther)
	funnels, err := e.Repo.Funnels(context.Background(), id)
	if err != nil || len(funnels) != 1 {
		t.Fatalf("funnels %+v (%v)", funnels, err)
	}
	if got := fmt.Sprint(funnels[0].Steps); got != fmt.Sprintf("[{%s Visit /pricing} {%s Signup} {%s Welcome}]", ids[0], ids[1], ids[2]) {
		t.Errorf("steps %s", got)
	}
	p := b.get(edit + "?notice=funnel-added")
	for _, s := range []string{"The funnel was added.", "Signup path", "Used by the funnel Signup path."} {
		if !strings.Contains(html.UnescapeString(p.body), s) {
			t.Errorf("settings page without %q", s)
		}
	}

	refusals := []struct {
		form    url.Values
		message string
	}{
		{funnelValues("One", ids[0], "", ""), "must be 2 to 8 goals"},
		{funnelValues("Twice", ids[0], ids[0]), "is given twice"},
		{funnelValues("Unknown", ids[0], "999999"), "must each be one of the website's goals"},
		{funnelValues("Not a number", ids[0], "x"), "must each be one of the website's goals"},
		{funnelValues("Signup path", ids[1], ids[2]), "has already been taken"},
		{funnelValues("", ids[1], ids[2]), "must be 1 to 120 characters"},
		{funnelValues(strings.Repeat("n", 121), ids[1], ids[2]), "must be 1 to 120 characters"},
		{url.Values{"name": {"X"}, "steps": {ids[1], ids[2]}, "extra": {"1"}}, "extra is not accepted here"},
	}
	for _, r := range refusals {
		p := b.post(add, r.form)
		wantStatus(t, "refused funnel "+r.form.Encode(), p, http.StatusUnprocessableEntity)
		if body := html.UnescapeString(p.body); !strings.Contains(body, "The funnel was not added") || !strings.Contains(body, r.message) {
			t.Errorf("%s: the page does not say %q", r.form.Encode(), r.message)
		}
	}
	if funnels, _ := e.Repo.Funnels(context.Background(), id); len(funnels) != 1 {
		t.Fatalf("%d funnels after the refusals, want 1", len(funnels))
	}

	move := fmt.Sprintf("/websites/%d/funnels/%d/move", id, funnels[0].ID)
	wantStatus(t, "move step 3 up", b.post(move, url.Values{"step": {"3"}, "move": {"up"}}), http.StatusSeeOther)
	wantStatus(t, "move step 1 up", b.post(move, url.Values{"step": {"1"}, "move": {"up"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "move step 3 down", b.post(move, url.Values{"step": {"3"}, "move": {"down"}}), http.StatusUnprocessableEntity)
	// Only "up" and "down" move a step: an empty or other word is refused, not read as down.
	for _, word := range []string{"", "p d", "sideways"} {
		wantStatus(t, "move "+word, b.post(move, url.Values{"step": {"1"}, "move": {word}}), http.StatusUnprocessableEntity)
	}
	wantStatus(t, "move without CSRF", b.postRaw(move, url.Values{"step": {"1"}, "move": {"down"}}), http.StatusForbidden)
	if f, _ := e.Repo.Funnel(context.Background(), id, funnels[0].ID); fmt.Sprint(f.Steps) != fmt.Sprintf("[{%s Visit /pricing} {%s Welcome} {%s Signup}]", ids[0], ids[2], ids[1]) {
		t.Errorf("steps after moving the third up: %v", f.Steps)
	}

	// Another user cannot add, move or remove.
	other := e.browser().signIn(e.UserWithPassword("other@example.com"))
	remove := fmt.Sprintf("/websites/%d/funnels/%d/remove", id, funnels[0].ID)
	wantStatus(t, "another's add", other.post(add, funnelValues("X", ids[0], ids[1])), http.StatusNotFound)
	wantStatus(t, "another's move", other.post(move, url.Values{"step": {"1"}, "move": {"down"}}), http.StatusNotFound)
	wantStatus(t, "another's remove", other.post(remove, url.Values{}), http.StatusNotFound)
	wantStatus(t, "remove without CSRF", b.postRaw(remove, url.Values{}), http.StatusForbidden)

	// A two-step funnel goes with one of its goals, and the page says so before.
	wantStatus(t, "add a two-step funnel", b.post(add, funnelValues("Short", ids[0], ids[1])), http.StatusSeeOther)
	if body := html.UnescapeString(b.get(edit).body); !strings.Contains(body, "Removing it also removes Short (left with one step).") {
		t.Errorf("the page does not warn that removing a goal removes the funnel Short")
	}
	wantStatus(t, "remove a goal", b.post(fmt.Sprintf("/websites/%d/goals/%s/remove", id, ids[1]), url.Values{}), http.StatusSeeOther)
	funnels, _ = e.Repo.Funnels(context.Background(), id)
	if len(funnels) != 1 || funnels[0].Name != "Signup path" || len(funnels[0].Steps) != 2 {
		t.Fatalf("funnels after removing Signup: %+v", funnels)
	}
	wantStatus(t, "remove", b.post(remove, url.Values{}), http.StatusSeeOther)
	wantStatus(t, "remove again", b.post(remove, url.Values{}), http.StatusNotFound)
	if funnels, _ = e.Repo.Funnels(context.Background(), id); len(funnels) != 0 {
		t.Errorf("funnels left: %+v", funnels)
	}
}

// funnelSite is a website with visits that go through a funnel /pricing, Signup, /welcome/*
// in order, out of order or part of the way, over two days, its goals and two funnels;
// it answers the website's id and the funnels' ids.
func (e *env) funnelSite(owner harness.User, domain string) (int64, []int64) {
	e.T.Helper()
	id := e.Site(owner.Key, domain)
	e.seedMonth(id) // counters, so that the dashboard shows numbers rather than its guide
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	var visits []repotest.Visit
	for d := range 2 {
		for i := range 60 {
			v := repotest.Visit{Day: today.AddDate(0, 0, -d), Visitor: int32(i), Values: map[stats.Name]string{stats.Country: "DE:Germany"}}
			hits := [][]string{{"/pricing", "Signup", "/welcome/a"}, {"Signup", "/pricing"}, {"/pricing", "/about"}, {"/about"}}[i%4]
			if i%7 == 0 {
				v.Values[stats.Country] = "US:United States"
			}
			for _, h := range hits {
				if strings.HasPrefix(h, "/") {
					v.Pages, v.Order = append(v.Pages, h), v.Order+"p"
				} else {
					v.Events, v.EventNames, v.Order = append(v.Events, h+"::"), append(v.EventNames, h), v.Order+"e"
				}
			}
			v.Values[stats.LandingPage], v.Values[stats.ExitPage] = v.Pages[0], v.Pages[len(v.Pages)-1]
			visits = append(visits, v)
		}
	}
	repotest.WriteVisitRows(e.T, e.DB, id, visits)
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = $2, funnels_from = $2 WHERE id = $1`, id, today.AddDate(0, 0, -1)); err != nil {
		e.T.Fatal(err)
	}
	var goals []string
	for _, g := range []url.Values{
		goalValues("kind", "pageview", "page", "/pricing"),
		goalValues("kind", "event", "event", "Signup"),
		goalValues("kind", "pageview", "page", "/welcome/*", "display_name", "Welcome"),
	} {
		status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key, g)
		if status != http.StatusCreated {
			e.T.Fatalf("goal: %d %s", status, body)
		}
		var out struct{ Data struct{ ID int64 } }
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			e.T.Fatal(err)
		}
		goals = append(goals, fmt.Sprint(out.Data.ID))
	}
	var funnels []int64
	for _, f := range []url.Values{funnelValues("Signup path", goals...), funnelValues("Pricing to signup", goals[0], goals[1])} {
		status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/funnels", id), owner.Key, f)
		if status != http.StatusCreated {
			e.T.Fatalf("funnel: %d %s", status, body)
		}
		var out struct{ Data struct{ ID int64 } }
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			e.T.Fatal(err)
		}
		funnels = append(funnels, out.Data.ID)
	}
	return id, funnels
}

// newSiteOfOneVisit is a website added today (its visit rows, ordered hits and counters start
// today) whose one visit went to /pricing and signed up, with those two goals and a funnel of
// them.
func (e *env) newSiteOfOneVisit(owner harness.User, domain string) int64 {
	e.T.Helper()
	id := e.Site(owner.Key, domain)
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	day := today.Format(time.DateOnly)
	repotest.WriteVisitRows(e.T, e.DB, id, []repotest.Visit{{Day: today, Visitor: 1, Pages: []string{"/pricing"},
		Events: []string{"Signup::"}, EventNames: []string{"Signup"}, Order: "pe",
		Values: map[stats.Name]string{stats.LandingPage: "/pricing", stats.ExitPage: "/pricing"}}})
	e.exec(`UPDATE websites SET filters_from = $2, funnels_from = $2 WHERE id = $1`, id, today)
	e.Count(id, day, "pageview", map[string]int64{day: 1})
	var goals []string
	for _, g := range []url.Values{goalValues("kind", "pageview", "page", "/pricing"), goalValues("kind", "event", "event", "Signup")} {
		status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key, g)
		var out struct{ Data struct{ ID int64 } }
		if status != http.StatusCreated || json.Unmarshal([]byte(body), &out) != nil {
			e.T.Fatalf("goal: %d %s", status, body)
		}
		goals = append(goals, fmt.Sprint(out.Data.ID))
	}
	if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/funnels", id), owner.Key, funnelValues("Signup", goals...)); status != http.StatusCreated {
		e.T.Fatalf("funnel: %d %s", status, body)
	}
	return id
}

// The notes that funnels and filtered numbers start on a day appear only when the range holds
// earlier days with numbers: not on a website added today, whatever the range; on one that
// counted before.
func TestStartNotesOnlyForDaysWithNumbers(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.newSiteOfOneVisit(owner, "new.example")
	b := e.browser()
	notes := func(path string) (funnel, filtered bool) {
		t.Helper()
		p := b.get(encodePath(path))
		wantStatus(t, path, p, http.StatusOK)
		return strings.Contains(p.body, "Funnels count from"), strings.Contains(p.body, "With filters, ")
	}
	for _, path := range []string{"/stats/new.example", "/stats/new.example?filter[page]=/pricing",
		"/stats/new.example/page?filter[page]=/pricing", "/stats/new.example?from=2025-03-21&to=2026-03-20&filter[page]=/pricing"} {
		if funnel, filtered := notes(path); funnel || filtered {
			t.Errorf("%s of a website added today: a note on the funnel (%v) or on filtered numbers (%v)", path, funnel, filtered)
		}
	}
	tenDaysAgo := e.Clock.Now().UTC().AddDate(0, 0, -10).Format(time.DateOnly)
	e.Count(id, tenDaysAgo, "pageview", map[string]int64{tenDaysAgo: 3})
	if funnel, filtered := notes("/stats/new.example?filter[page]=/pricing"); !funnel || !filtered {
		t.Errorf("a range with days counted before: a note on the funnel %v, on filtered numbers %v; want both", funnel, filtered)
	}
	if _, filtered := notes("/stats/new.example/page?filter[page]=/pricing"); !filtered {
		t.Error("the full list of a range with days counted before has no note on filtered numbers")
	}
}

// apiFunnelLines are the API's numbers of a funnel as the dashboard writes them.
func (e *env) apiFunnelLines(owner harness.User, id, funnel int64, query string) []string {
	e.T.Helper()
	status, body := e.api("GET", fmt.Sprintf("/api/v1/stats/%d/funnels/%d?%s", id, funnel, query), owner.Key, nil)
	if status != http.StatusOK {
		e.T.Fatalf("funnel numbers: %d %s", status, body)
	}
	var out struct {
		Data struct {
			Steps []struct {
				Goal               string
				Visitors, Dropoff  int64
				DropoffRate        float64 `json:"dropoff_rate"`
				ConversionRate     float64 `json:"conversion_rate"`
				ConversionRateStep float64 `json:"conversion_rate_step"`
			}
			Entering int64 `json:"entering_visitors"`
			Never    int64 `json:"never_entering_visitors"`
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		e.T.Fatal(err)
	}
	rate := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) + " %" }
	var lines []string
	for i, s := range out.Data.Steps {
		if i > 0 {
			lines = append(lines, fmt.Sprintf("↓ %d left (%s); %s went on", s.Dropoff, rate(s.DropoffRate), rate(s.ConversionRateStep)))
		}
		lines = append(lines, fmt.Sprintf("%s · %s", visitorsText(s.Visitors), rate(s.ConversionRate)))
	}
	return append(lines, fmt.Sprintf("%s entered the funnel; %d never did.", visitorsText(out.Data.Entering), out.Data.Never))
}

// visitorsText is a count of visitors as a person writes it.
func visitorsText(n int64) string { return spelled(n, "visitor", "visitors") }

// spelled is a count with its noun as a person writes it: singular for one.
func spelled(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// A count of one is written in the singular on the funnel's bars ("1 visitor", never "1
// visitors").
func TestDashboardFunnelOfOneVisitor(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.newSiteOfOneVisit(owner, "one.example")
	day := e.Clock.Now().UTC().Format(time.DateOnly)
	p := e.browser().get("/stats/one.example?from=" + day + "&to=" + day)
	wantStatus(t, "dashboard", p, http.StatusOK)
	body := html.UnescapeString(p.body)
	for _, want := range []string{"1 visitor · 100.0 %", "1 visitor entered the funnel"} {
		if !strings.Contains(body, want) {
			t.Errorf("the funnel does not say %q", want)
		}
	}
	if regexp.MustCompile(`(^|[^0-9\x{202f}])1 visitors`).MatchString(body) {
		t.Error("the dashboard writes 1 visitors")
	}
}

// The dashboard shows the funnel chosen (the first by name by default) with the API's numbers,
// filtered as the page is, and links to the website's other funnels.
func TestDashboardFunnel(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id, funnels := e.funnelSite(owner, "funnel.example")
	b := e.browser()
	today := e.Clock.Now().UTC().Format(time.DateOnly)
	yesterday := e.Clock.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	rng := "from=" + yesterday + "&to=" + today
	for _, c := range []struct {
		query  string
		funnel int64
		name   string
	}{
		{rng, funnels[1], "Pricing to signup"}, // first by name
		{rng + "&funnel=" + fmt.Sprint(funnels[0]), funnels[0], "Signup path"},
		{rng + "&funnel=" + fmt.Sprint(funnels[0]) + "&filter%5Bcountry%5D=US%3AUnited+States", funnels[0], "Signup path"},
	} {
		p := b.get("/stats/funnel.example?" + c.query)
		wantStatus(t, c.query, p, http.StatusOK)
		body := html.UnescapeString(p.body)
		if !strings.Contains(body, "Funnel: "+c.name) {
			t.Errorf("%s: the dashboard does not show the funnel %s", c.query, c.name)
		}
		apiQuery := strings.Replace(c.query, "&funnel="+fmt.Sprint(c.funnel), "", 1)
		for _, line := range e.apiFunnelLines(owner, id, c.funnel, apiQuery) {
			if !strings.Contains(body, line) {
				t.Errorf("%s: the dashboard does not say %q", c.query, line)
			}
		}
	}
	p := b.get("/stats/funnel.example?" + rng)
	if !strings.Contains(html.UnescapeString(p.body), "funnel="+fmt.Sprint(funnels[0])) {
		t.Errorf("no link to the other funnel")
	}
	wantStatus(t, "a funnel that is not a number", b.get("/stats/funnel.example?funnel=x"), http.StatusUnprocessableEntity)
}
