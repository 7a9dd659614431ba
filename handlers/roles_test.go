package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// Every call of the API checked from each role: a key acts with its user's roles, a website
// the user has no role on answers 404 exactly like an unknown id, and a change the role does
// not allow answers 403 (with nothing changed).
func TestRolesThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	site := e.Site(owner.Key, "example.com")
	id := fmt.Sprint(site)
	goal := e.storeGoal(owner.Key, site, "kind", "pageview", "page", "/signup")["id"]
	e.storeGoal(owner.Key, site, "kind", "pageview", "page", "/pricing")
	users := map[repository.Role]harness.User{repository.RoleOwner: owner}
	for _, role := range repository.MemberRoles {
		u := e.User(string(role) + "@example.com")
		e.Member(site, owner, u, role)
		users[role] = u
	}
	stranger := e.User("stranger@example.com")
	e.Site(stranger.Key, "stranger.example")

	reads := []string{"/api/v1/websites/" + id, "/api/v1/websites/" + id + "/goals", "/api/v1/websites/" + id + "/funnels",
		"/api/v1/stats/" + id + "?name=page&from=2026-03-01&to=2026-03-04",
		"/api/v1/stats/" + id + "/summary?from=2026-03-01&to=2026-03-04",
		"/api/v1/stats/" + id + "/timeseries?from=2026-03-01&to=2026-03-04",
		"/api/v1/stats/" + id + "/realtime"}
	for role, u := range users {
		for _, path := range reads {
			want(t, e.Do(harness.Request{Path: path, Key: u.Key}), http.StatusOK)
		}
		// The list has the shared website, with the user's role.
		list := want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: u.Key}), http.StatusOK)["data"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["role"] != string(role) {
			t.Errorf("%s lists %v", role, list)
		}
	}
	for _, path := range reads {
		wantNotFound(t, e.Do(harness.Request{Path: path, Key: stranger.Key}))
	}
	if list := want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: stranger.Key}), http.StatusOK)["data"].([]any); len(list) != 1 {
		t.Errorf("the stranger lists %v", list)
	}

	// Changes: what each role may do; a refused one changes nothing.
	type change struct {
		method, path string
		form         []string
		need         repository.Role
		ok           int
	}
	for role, u := range users {
		changes := []change{
			{"PATCH", "/api/v1/websites/" + id, []string{"favorite", "true"}, repository.RoleEditor, 200},
			{"PUT", "/api/v1/websites/" + id, []string{"exclude_bots", "0"}, repository.RoleEditor, 200},
			{"POST", "/api/v1/websites/" + id + "/goals", []string{"kind", "event", "event", "Signup of " + string(role)}, repository.RoleEditor, 201},
			{"POST", "/api/v1/websites/" + id + "/funnels", []string{"name", "F", "steps", fmt.Sprint(goal), "steps", fmt.Sprint(goal)}, repository.RoleEditor, 422},
			// A user's own traffic alerts, set where the settings are; a reset deletes data.
			{"PUT", "/api/v1/websites/" + id + "/alerts", []string{"spike_threshold", "5"}, repository.RoleEditor, 200},
			{"POST", "/api/v1/websites/" + id + "/reset", []string{"confirm", "example.com", "from", "2026-03-01", "to", "2026-03-01"}, repository.RoleAdmin, 200},
		}
		for _, c := range changes {
			res := e.Do(harness.Request{Method: c.method, Path: c.path, Key: u.Key, Form: form(c.form...)})
			switch {
			case role.Can(c.need) && res.Status != c.ok:
				t.Errorf("%s %s %s: %d, want %d: %s", role, c.method, c.path, res.Status, c.ok, res.Body)
			case !role.Can(c.need):
				want(t, res, http.StatusForbidden)
			}
			wantNotFound(t, e.Do(harness.Request{Method: c.method, Path: c.path, Key: stranger.Key, Form: form(c.form...)}))
		}
		// Deleting a goal: editors and up; the viewer's refusal leaves it.
		del := e.Do(harness.Request{Method: "DELETE", Path: fmt.Sprintf("%s/%v", goalsPath(site), goal), Key: u.Key})
		if role.Can(repository.RoleEditor) {
			if del.Status != http.StatusOK && del.Status != http.StatusNotFound { // gone since
				t.Errorf("%s deletes a goal: %d %s", role, del.Status, del.Body)
			}
		} else {
			want(t, del, http.StatusForbidden)
		}
	}
	// A viewer's refused write came before the validator's fields: 403 for a bad field too.
	want(t, e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: users[repository.RoleViewer].Key, Form: form("kind", "event")}), http.StatusForbidden)
	wantNotFound(t, e.Do(harness.Request{Method: "POST", Path: goalsPath(site), Key: stranger.Key, Form: form("kind", "event")}))

	// Deleting the website: the owner only.
	for _, role := range repository.MemberRoles {
		want(t, e.Do(harness.Request{Method: "DELETE", Path: "/api/v1/websites/" + id, Key: users[role].Key}), http.StatusForbidden)
	}
	wantNotFound(t, e.Do(harness.Request{Method: "DELETE", Path: "/api/v1/websites/" + id, Key: stranger.Key}))
	want(t, e.Do(harness.Request{Path: "/api/v1/websites/" + id, Key: owner.Key}), http.StatusOK)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: "/api/v1/websites/" + id, Key: owner.Key}), http.StatusOK)
	for _, role := range repository.MemberRoles {
		wantNotFound(t, e.Do(harness.Request{Path: "/api/v1/websites/" + id, Key: users[role].Key}))
	}
}

// The query API reads a website for any role on it, and answers anyone else as it answers an
// unknown site.
func TestQueryAPIForMembers(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	site := e.Site(owner.Key, "example.com")
	viewer := e.User("viewer@example.com")
	e.Member(site, owner, viewer, repository.RoleViewer)
	stranger := e.User("stranger@example.com")
	body := `{"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d"}`
	for _, c := range []struct {
		key    string
		status int
	}{{owner.Key, 200}, {viewer.Key, 200}, {stranger.Key, 401}} {
		res := e.Do(harness.Request{Method: "POST", Path: "/api/v2/query", Key: c.key, Body: body,
			Headers: map[string]string{"Content-Type": "application/json"}})
		if res.Status != c.status {
			t.Errorf("query: %d, want %d: %s", res.Status, c.status, res.Body)
		}
	}
}

func wantNotFound(t testing.TB, res harness.Response) {
	t.Helper()
	body := want(t, res, http.StatusNotFound)
	if body["message"] != "Website not found." {
		t.Errorf("404 body %v", body)
	}
}
