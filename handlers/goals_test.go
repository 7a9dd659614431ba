package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func goalsPath(site any) string { return fmt.Sprintf("/api/v1/websites/%v/goals", site) }

func (e *env) storeGoal(key string, site any, kv ...string) map[string]any {
	e.T.Helper()
	res := e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: key, Form: form(kv...)})
	return want(e.T, res, http.StatusCreated)["data"].(map[string]any)
}

func (e *env) goalCount(key string, site any) float64 {
	e.T.Helper()
	res := e.Do(harness.Request{Path: goalsPath(site) + "?per_page=10", Key: key})
	return want(e.T, res, http.StatusOK)["meta"].(map[string]any)["total"].(float64)
}

func TestGoalsStoreListDelete(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]

	res := e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: key, Form: form("kind", "event", "event", "Outbound Link: Click", "currency", "EUR")})
	ev := want(t, res, http.StatusCreated)["data"].(map[string]any)
	// Location names the new goal, as a new website's does: its DELETE goes there.
	if loc := res.Header.Get("Location"); loc != fmt.Sprintf("%s/%v", goalsPath(site), ev["id"]) {
		t.Errorf("Location %q", loc)
	}
	wantGoal := map[string]any{"kind": "event", "page": nil, "event": "Outbound Link: Click",
		"display_name": "Outbound Link: Click", "currency": "EUR"}
	for k, v := range wantGoal {
		if ev[k] != v {
			t.Errorf("event goal %s = %#v, want %#v", k, ev[k], v)
		}
	}
	pv := e.storeGoal(key, site, "kind", "pageview", "page", "/blog/*|/news")
	if pv["display_name"] != "Visit /blog/*|/news" || pv["page"] != "/blog/*|/news" || pv["event"] != nil || pv["currency"] != nil {
		t.Errorf("pageview goal %v", pv)
	}
	named := e.storeGoal(key, site, "kind", "pageview", "page", "/", "display_name", "Home")

	list := want(t, e.Do(harness.Request{Path: goalsPath(site), Key: key}), http.StatusOK)
	var names []string
	for _, g := range list["data"].([]any) {
		names = append(names, g.(map[string]any)["display_name"].(string))
	}
	if got := strings.Join(names, ","); got != "Home,Outbound Link: Click,Visit /blog/*|/news" {
		t.Errorf("list %s", got)
	}

	res = e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(site), named["id"]), Key: key})
	body := want(t, res, http.StatusOK)
	if body["id"] != named["id"] || body["object"] != "goal" || body["deleted"] != true {
		t.Errorf("delete answered %v", body)
	}
	if n := e.goalCount(key, site); n != 2 {
		t.Errorf("%v goals left, want 2", n)
	}
	res = e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(site), named["id"]), Key: key})
	want(t, res, http.StatusNotFound)
}

// Every refusal names its field and writes nothing.
func TestGoalRefusals(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]
	e.storeGoal(key, site, "kind", "event", "event", "Signup")
	long := strings.Repeat("x", 121)
	cases := []struct {
		field string
		form  []string
	}{
		{"kind", []string{"kind", "download"}},
		{"kind", []string{"page", "/a"}},
		{"page", []string{"kind", "pageview"}},
		{"page", []string{"kind", "pageview", "page", "blog"}},
		{"page", []string{"kind", "pageview", "page", "/a|b"}},
		{"page", []string{"kind", "pageview", "page", ""}},
		{"page", []string{"kind", "pageview", "page", "/" + strings.Repeat("a", 255)}},
		{"page", []string{"kind", "event", "event", "E", "page", "/a"}},
		{"event", []string{"kind", "event"}},
		{"event", []string{"kind", "event", "event", ""}},
		{"event", []string{"kind", "event", "event", strings.Repeat("e", 65)}},
		{"event", []string{"kind", "pageview", "page", "/a", "event", "E"}},
		{"currency", []string{"kind", "event", "event", "E", "currency", "eur"}},
		{"currency", []string{"kind", "pageview", "page", "/a", "currency", "EUR"}},
		{"display_name", []string{"kind", "event", "event", "E", "display_name", ""}},
		{"display_name", []string{"kind", "event", "event", "E", "display_name", long}},
		{"display_name", []string{"kind", "event", "event", "Signup"}},
		{"display_name", []string{"kind", "pageview", "page", "/a", "display_name", "Signup"}},
		{"favorite", []string{"kind", "event", "event", "E", "favorite", "1"}},
	}
	for _, c := range cases {
		res := e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: key, Form: form(c.form...)})
		wantField(t, res, c.field)
	}
	if n := e.goalCount(key, site); n != 1 {
		t.Errorf("%v goals after refusals, want 1", n)
	}
}

// Another user's website, an unknown one and a goal of another website answer 404, a refused
// field included, and change nothing.
func TestGoalsOfAnotherAreNotFound(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.User("a@example.com").Key, e.User("b@example.com").Key
	aliceSite := e.store(alice, "domain", "alice.example")["id"]
	bobSite := e.store(bob, "domain", "bob.example")["id"]
	aliceGoal := e.storeGoal(alice, aliceSite, "kind", "event", "event", "Signup")["id"]
	bobGoal := e.storeGoal(bob, bobSite, "kind", "event", "event", "Signup")["id"]

	for _, r := range []harness.Request{
		{Path: goalsPath(aliceSite), Key: bob},
		{Path: goalsPath(999999), Key: bob},
		{Method: "POST", Path: goalsPath(aliceSite), Key: bob, Form: form("kind", "event", "event", "X")},
		{Method: "POST", Path: goalsPath(aliceSite), Key: bob, Form: form("kind", "event")},
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(aliceSite), aliceGoal), Key: bob},
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(bobSite), aliceGoal), Key: bob},
		{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(aliceSite), bobGoal), Key: alice},
	} {
		want(t, e.Do(r), http.StatusNotFound)
	}
	if n := e.goalCount(alice, aliceSite); n != 1 {
		t.Errorf("alice has %v goals, want 1", n)
	}
	if n := e.goalCount(bob, bobSite); n != 1 {
		t.Errorf("bob has %v goals, want 1", n)
	}
}

// The 201st goal is refused, even when many requests race for the last places.
func TestGoalLimitUnderParallelRequests(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]
	for i := range stats.MaxGoals - 5 {
		e.storeGoal(key, site, "kind", "event", "event", fmt.Sprintf("e%d", i))
	}
	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: key, Form: form("kind", "event", "event", fmt.Sprintf("race%d", i))})
			statuses <- res.Status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusUnprocessableEntity:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 5 {
		t.Errorf("%d of the racing goals created, want 5", created)
	}
	if n := e.goalCount(key, site); n != stats.MaxGoals {
		t.Errorf("%v goals, want %d", n, stats.MaxGoals)
	}
	wantField(t, e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: key, Form: form("kind", "event", "event", "one more")}), "kind")
}

// A website's goals go with it.
func TestGoalsGoWithTheirWebsite(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.store(key, "domain", "example.com")["id"]
	e.storeGoal(key, site, "kind", "event", "event", "Signup")
	want(t, e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("/api/v1/websites/%v", site), Key: key}), http.StatusOK)
	var n int
	if err := e.DB.Get(&n, `SELECT count(*) FROM goals`); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d goals left after their website was deleted", n)
	}
}
