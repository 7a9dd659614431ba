package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func funnelsPath(site any) string { return fmt.Sprintf("/api/v1/websites/%v/funnels", site) }

func (e *env) storeFunnel(key string, site any, name string, steps ...any) map[string]any {
	e.T.Helper()
	res := e.Do(harness.Request{Method: "POST", Path: funnelsPath(site), Key: key, Form: funnelForm(name, steps...)})
	return want(e.T, res, http.StatusCreated)["data"].(map[string]any)
}

func funnelForm(name string, steps ...any) url.Values {
	f := url.Values{"name": {name}}
	for _, s := range steps {
		f.Add("steps", fmt.Sprint(s))
	}
	return f
}

func (e *env) funnelCount(key string, site any) float64 {
	e.T.Helper()
	res := e.Do(harness.Request{Path: funnelsPath(site), Key: key})
	return want(e.T, res, http.StatusOK)["meta"].(map[string]any)["total"].(float64)
}

// funnelVisits are the funnel tests' visits (country DE unless said), in the order of their
// hits: p a page, e an event. Day numbers are the visitors.
func funnelVisits() []repotest.Visit {
	d1, d2 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	v := func(day time.Time, visitor int32, country string, hits ...string) repotest.Visit {
		out := repotest.Visit{Day: day, Visitor: visitor, Values: map[stats.Name]string{stats.Country: country}}
		for _, h := range hits {
			if strings.HasPrefix(h, "/") {
				out.Pages, out.Order = append(out.Pages, h), out.Order+"p"
				continue
			}
			out.Events, out.EventNames, out.Order = append(out.Events, h+"::"), append(out.EventNames, h), out.Order+"e"
		}
		if len(out.Pages) > 0 {
			out.Values[stats.LandingPage], out.Values[stats.ExitPage] = out.Pages[0], out.Pages[len(out.Pages)-1]
		}
		return out
	}
	de, us := "DE:Germany", "US:United States"
	return []repotest.Visit{
		v(d1, 1, de, "/pricing", "Signup", "/welcome/a"),                                   // in order: 3 steps
		v(d1, 2, de, "Signup", "/pricing", "/welcome/x"),                                   // out of order: 1
		v(d1, 3, de, "/pricing", "/pricing", "Signup", "Signup", "/pricing", "/welcome/b"), // repeated: 3
		v(d1, 4, de, "/pricing", "Signup"),                                                 // split across two visits:
		v(d1, 4, de, "/welcome/a"),                                                         // 2, not 3
		v(d1, 5, de, "/about"),                                                             // never enters
		v(d1, 6, us, "/pricing", "Signup", "/welcome/z"),                                   // 3, from the US
		v(d1, 7, de, "Signup", "/welcome", "/welcome/a"),                                   // no step 1: never enters
		v(d2, 1, de, "/pricing"),                                                           // the next day: 1
	}
}

// funnelSite is a website with funnelVisits' rows, counted for funnels from 2026-03-01, its
// goals and the funnel /pricing, Signup, /welcome/*.
func (e *env) funnelSite(key string) (site int64, funnel any) {
	e.T.Helper()
	site = int64(e.store(key, "domain", "funnels.example")["id"].(float64))
	repotest.WriteVisitRows(e.T, e.DB, site, funnelVisits())
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE websites SET filters_from = '2026-03-01', funnels_from = '2026-03-01' WHERE id = $1`, site); err != nil {
		e.T.Fatal(err)
	}
	pricing := e.storeGoal(key, site, "kind", "pageview", "page", "/pricing")["id"]
	signup := e.storeGoal(key, site, "kind", "event", "event", "Signup")["id"]
	welcome := e.storeGoal(key, site, "kind", "pageview", "page", "/welcome/*", "display_name", "Welcome")["id"]
	return site, e.storeFunnel(key, site, "Signup path", pricing, signup, welcome)["id"]
}

// funnelNumbers is a funnel's answer as lines "goal visitors dropoff dropoff_rate rate
// rate_step" and "entering never_entering", and its meta.
func (e *env) funnelNumbers(key string, site, funnel any, query string) (string, map[string]any) {
	e.T.Helper()
	res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%v/funnels/%v?%s", site, funnel, query), Key: key})
	body := want(e.T, res, http.StatusOK)
	data := body["data"].(map[string]any)
	var lines []string
	for _, x := range data["steps"].([]any) {
		s := x.(map[string]any)
		lines = append(lines, fmt.Sprintf("%v %v %v %v %v %v", s["goal"], s["visitors"], s["dropoff"], s["dropoff_rate"], s["conversion_rate"], s["conversion_rate_step"]))
	}
	lines = append(lines, fmt.Sprintf("%v: %v %v", data["name"], data["entering_visitors"], data["never_entering_visitors"]))
	return strings.Join(lines, "\n"), body["meta"].(map[string]any)
}

// Steps count in the order of a visit's hits, pages and events interleaved; a visit that does
// them out of order stops where the order breaks, repeats count once, and a later visit of the
// same visitor does not continue an earlier one. Visitors are distinct per day, summed.
func TestFunnelNumbers(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site, funnel := e.funnelSite(key)
	cases := []struct{ query, want string }{
		{"from=2026-03-01&to=2026-03-02", `Visit /pricing 6 0 0 100 100
Signup 4 2 33.3 66.7 66.7
Welcome 3 1 25 50 75
Signup path: 6 2`},
		// Filtered: the visitor from the US is left out.
		{"from=2026-03-01&to=2026-03-02&filter[country]=DE:Germany", `Visit /pricing 5 0 0 100 100
Signup 3 2 40 60 60
Welcome 2 1 33.3 40 66.7
Signup path: 5 2`},
		{"from=2026-03-01&to=2026-03-02&filter_not[country]=DE", `Visit /pricing 1 0 0 100 100
Signup 1 0 0 100 100
Welcome 1 0 0 100 100
Signup path: 1 0`},
		// A filter no visit matches: zeros, and rates that would divide by 0 are 0.
		{"from=2026-03-01&to=2026-03-02&filter[browser]=Nothing", `Visit /pricing 0 0 0 100 100
Signup 0 0 0 0 0
Welcome 0 0 0 0 0
Signup path: 0 0`},
		{"from=2026-03-02&to=2026-03-02", `Visit /pricing 1 0 0 100 100
Signup 0 1 100 0 0
Welcome 0 0 0 0 0
Signup path: 1 0`},
	}
	for _, c := range cases {
		got, meta := e.funnelNumbers(key, site, funnel, c.query)
		if got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.query, got, c.want)
		}
		if len(meta) != 0 {
			t.Errorf("%s: meta %v, want none", c.query, meta)
		}
	}
}

// Past 10 M pageviews in the view a funnel is counted from the view's sample of visitors
// (those below stats.SampleCut, 0 at 1/2), scaled, and says so.
func TestFunnelNumbersSampled(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site, funnel := e.funnelSite(key)
	// The first three visits again by visitors in the sample (the others are not): the sample
	// is them, each counted twice.
	var sampled []repotest.Visit
	for _, v := range funnelVisits()[:3] {
		v.Visitor = -v.Visitor
		sampled = append(sampled, v)
	}
	repotest.WriteVisitRows(t, e.DB, site, sampled)
	repotest.CountPageviews(t, repository.New(e.DB, nil), site, day("2026-03-01"), 2*stats.MaxExactPageviews)
	got, meta := e.funnelNumbers(key, site, funnel, "from=2026-03-01&to=2026-03-02")
	want := `Visit /pricing 6 0 0 100 100
Signup 4 2 33.3 66.7 66.7
Welcome 4 0 0 66.7 100
Signup path: 6 0`
	if got != want {
		t.Errorf("sampled:\n%s\nwant\n%s", got, want)
	}
	if meta["sampled"] != 0.5 {
		t.Errorf("meta %v, want sampled 0.5", meta)
	}
}

// Funnels count from the first day whose rows keep the order of hits, and say so.
func TestFunnelsFrom(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site, funnel := e.funnelSite(key)
	if _, err := e.DB.Exec(`UPDATE websites SET funnels_from = '2026-03-02' WHERE id = $1`, site); err != nil {
		t.Fatal(err)
	}
	got, meta := e.funnelNumbers(key, site, funnel, "from=2026-03-01&to=2026-03-02")
	if want := "Visit /pricing 1 0 0 100 100\nSignup 0 1 100 0 0\nWelcome 0 0 0 0 0\nSignup path: 1 0"; got != want {
		t.Errorf("numbers\n%s\nwant\n%s", got, want)
	}
	if meta["funnels_from"] != "2026-03-02" {
		t.Errorf("meta %v, want funnels_from 2026-03-02", meta)
	}
	got, meta = e.funnelNumbers(key, site, funnel, "from=2026-02-01&to=2026-03-01")
	if !strings.HasSuffix(got, "Signup path: 0 0") || meta["funnels_from"] != "2026-03-02" {
		t.Errorf("a range before funnels_from: %s %v", got, meta)
	}

	// A range longer than one statement reads (31 days), whose chunks split the two days:
	// the same numbers as the two days alone.
	if err := e.Repo.EnsureVisitRowPartitions(context.Background(), time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.Exec(`UPDATE websites SET funnels_from = '2026-01-01', filters_from = '2026-01-01' WHERE id = $1`, site); err != nil {
		t.Fatal(err)
	}
	got, meta = e.funnelNumbers(key, site, funnel, "from=2026-01-30&to=2026-03-02")
	if want := "Visit /pricing 6 0 0 100 100\nSignup 4 2 33.3 66.7 66.7\nWelcome 3 1 25 50 75\nSignup path: 6 2"; got != want || len(meta) != 0 {
		t.Errorf("32 days: %s %v, want\n%s", got, meta, want)
	}
}

func TestFunnelsStoreListDelete(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]
	a := e.storeGoal(key, site, "kind", "pageview", "page", "/a")["id"]
	b := e.storeGoal(key, site, "kind", "event", "event", "B")["id"]
	c := e.storeGoal(key, site, "kind", "event", "event", "C")["id"]

	res := e.Do(harness.Request{Method: "POST", Path: funnelsPath(site), Key: key, Form: funnelForm("Zeta", c, a, b)})
	zeta := want(t, res, http.StatusCreated)["data"].(map[string]any)
	// Location names the new funnel, as a new website's does: its DELETE goes there.
	if loc := res.Header.Get("Location"); loc != fmt.Sprintf("%s/%v", funnelsPath(site), zeta["id"]) {
		t.Errorf("Location %q", loc)
	}
	if got := fmt.Sprintf("%v %v", zeta["name"], zeta["steps"]); got != fmt.Sprintf("Zeta [map[display_name:C goal_id:%v] map[display_name:Visit /a goal_id:%v] map[display_name:B goal_id:%v]]", c, a, b) {
		t.Errorf("funnel %s", got)
	}
	alpha := e.storeFunnel(key, site, "Alpha", a, b)
	list := want(t, e.Do(harness.Request{Path: funnelsPath(site), Key: key}), http.StatusOK)
	var names []string
	for _, f := range list["data"].([]any) {
		names = append(names, f.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, ","); got != "Alpha,Zeta" {
		t.Errorf("list %s", got)
	}

	res = e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", funnelsPath(site), alpha["id"]), Key: key})
	body := want(t, res, http.StatusOK)
	if body["id"] != alpha["id"] || body["object"] != "funnel" || body["deleted"] != true {
		t.Errorf("delete answered %v", body)
	}
	want(t, e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", funnelsPath(site), alpha["id"]), Key: key}), http.StatusNotFound)
	if n := e.funnelCount(key, site); n != 1 {
		t.Errorf("%v funnels left, want 1", n)
	}
}

// Deleting a goal removes its step from the funnels that use it; a funnel left with fewer than
// 2 steps goes with it.
func TestDeletingAGoalShortensItsFunnels(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]
	a := e.storeGoal(key, site, "kind", "pageview", "page", "/a")["id"]
	b := e.storeGoal(key, site, "kind", "event", "event", "B")["id"]
	c := e.storeGoal(key, site, "kind", "event", "event", "C")["id"]
	e.storeFunnel(key, site, "Three", a, b, c)
	e.storeFunnel(key, site, "Two", a, b)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(site), b), Key: key}), http.StatusOK)
	list := want(t, e.Do(harness.Request{Path: funnelsPath(site), Key: key}), http.StatusOK)["data"].([]any)
	if len(list) != 1 {
		t.Fatalf("funnels left %v, want Three only", list)
	}
	f := list[0].(map[string]any)
	if got := fmt.Sprintf("%v %v", f["name"], f["steps"]); got != fmt.Sprintf("Three [map[display_name:Visit /a goal_id:%v] map[display_name:C goal_id:%v]]", a, c) {
		t.Errorf("funnel left: %s", got)
	}
}

// Every refusal names its field and writes nothing.
func TestFunnelRefusals(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("a@example.com").Key, e.User("b@example.com").Key
	site := e.store(alice, "domain", "example.com")["id"]
	other := e.store(alice, "domain", "other.example")["id"]
	bobSite := e.store(bob, "domain", "bob.example")["id"]
	var goals []any
	for i := range 9 {
		goals = append(goals, e.storeGoal(alice, site, "kind", "event", "event", fmt.Sprintf("E%d", i))["id"])
	}
	otherGoal := e.storeGoal(alice, other, "kind", "event", "event", "O")["id"]
	bobGoal := e.storeGoal(bob, bobSite, "kind", "event", "event", "B")["id"]
	e.storeFunnel(alice, site, "Taken", goals[0], goals[1])
	cases := []struct {
		field string
		form  url.Values
	}{
		{"steps", funnelForm("One", goals[0])},
		{"steps", funnelForm("Nine", goals...)},
		{"steps", funnelForm("None")},
		{"steps", funnelForm("Unknown", goals[0], 999999)},
		{"steps", funnelForm("Another website's", goals[0], otherGoal)},
		{"steps", funnelForm("Another user's", goals[0], bobGoal)},
		{"steps", funnelForm("Twice", goals[0], goals[1], goals[0])},
		{"steps", funnelForm("Not a number", goals[0], "x")},
		{"name", funnelForm("Taken", goals[2], goals[3])},
		{"name", funnelForm("", goals[2], goals[3])},
		{"name", funnelForm(strings.Repeat("n", 121), goals[2], goals[3])},
		{"name", url.Values{"steps": {fmt.Sprint(goals[2]), fmt.Sprint(goals[3])}}},
		{"name", url.Values{"name": {"Twice", "Again"}, "steps": {fmt.Sprint(goals[2]), fmt.Sprint(goals[3])}}},
		{"favorite", url.Values{"name": {"X"}, "favorite": {"1"}, "steps": {fmt.Sprint(goals[2]), fmt.Sprint(goals[3])}}},
	}
	for _, c := range cases {
		res := e.Do(harness.Request{Method: "POST", Path: funnelsPath(site), Key: alice, Form: c.form})
		wantField(t, res, c.field)
	}
	if n := e.funnelCount(alice, site); n != 1 {
		t.Errorf("%v funnels after refusals, want 1", n)
	}
	for i := range stats.MaxFunnels - 1 {
		e.storeFunnel(alice, site, fmt.Sprintf("F%d", i), goals[i%9], goals[(i+1)%9])
	}
	wantField(t, e.Do(harness.Request{Method: "POST", Path: funnelsPath(site), Key: alice, Form: funnelForm("51st", goals[0], goals[2])}), "name")
	if n := e.funnelCount(alice, site); n != stats.MaxFunnels {
		t.Errorf("%v funnels, want %d", n, stats.MaxFunnels)
	}
}

// Another user's website, an unknown one and a funnel of another website answer 404, a refused
// field included, and change nothing.
func TestFunnelsOfAnotherAreNotFound(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("a@example.com").Key, e.User("b@example.com").Key
	aliceSite, aliceFunnel := e.funnelSite(alice)
	bobSite := e.store(bob, "domain", "bob.example")["id"]
	b1 := e.storeGoal(bob, bobSite, "kind", "event", "event", "B1")["id"]
	b2 := e.storeGoal(bob, bobSite, "kind", "event", "event", "B2")["id"]
	bobFunnel := e.storeFunnel(bob, bobSite, "Bob's", b1, b2)["id"]
	stats := func(site, funnel any) string {
		return fmt.Sprintf("/api/v1/stats/%v/funnels/%v?from=2026-03-01&to=2026-03-02", site, funnel)
	}
	for _, r := range []harness.Request{
		{Path: funnelsPath(aliceSite), Key: bob},
		{Path: funnelsPath(999999), Key: bob},
		{Method: "POST", Path: funnelsPath(aliceSite), Key: bob, Form: funnelForm("X", b1, b2)},
		{Method: "POST", Path: funnelsPath(aliceSite), Key: bob, Form: funnelForm("X", b1, b1)}, // refused by the handler
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", funnelsPath(aliceSite), aliceFunnel), Key: bob},
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", funnelsPath(bobSite), aliceFunnel), Key: bob},
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", funnelsPath(aliceSite), bobFunnel), Key: alice},
		{Path: stats(aliceSite, aliceFunnel), Key: bob},
		{Path: stats(aliceSite, bobFunnel), Key: alice},
		{Path: stats(bobSite, aliceFunnel), Key: bob},
		{Path: stats(aliceSite, 999999), Key: alice},
	} {
		want(t, e.Do(r), http.StatusNotFound)
	}
	if n := e.funnelCount(alice, aliceSite); n != 1 {
		t.Errorf("alice has %v funnels, want 1", n)
	}
	if n := e.funnelCount(bob, bobSite); n != 1 {
		t.Errorf("bob has %v funnels, want 1", n)
	}
	// Bad parameters of the numbers: 422.
	wantField(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%v/funnels/%v?from=2026-03-02&to=2026-03-01", aliceSite, aliceFunnel), Key: alice}), "to")
	wantField(t, e.Do(harness.Request{Path: stats(aliceSite, aliceFunnel) + "&filter[colour]=x", Key: alice}), "filter")
}
