package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// sites sends a Sites API call: body a JSON text (sent as JSON) or url.Values (a form).
func (e *env) sites(key, method, path string, body any) harness.Response {
	e.T.Helper()
	r := harness.Request{Method: method, Path: path, Key: key}
	switch b := body.(type) {
	case string:
		r.Body, r.Headers = b, map[string]string{"Content-Type": "application/json"}
	case url.Values:
		r.Form = b
	}
	return e.Do(r)
}

// wantPlausible checks a status and, on errors, Plausible's {"error": sentence} with the
// sentence containing part.
func wantPlausible(t testing.TB, res harness.Response, status int, part string) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	body := res.JSON(t)
	if status >= 400 {
		msg, _ := body["error"].(string)
		if len(body) != 1 || !strings.Contains(msg, part) {
			t.Fatalf("error body %s, want only an error containing %q", res.Body, part)
		}
	}
	return body
}

func TestPlausibleSites(t *testing.T) {
	e := newEnv(t)
	owner, other := e.User("owner@example.com"), e.User("other@example.com")
	e.Site(other.Key, "others.example")

	t.Run("create, as JSON and as a form, and the refusals", func(t *testing.T) {
		e := e.in(t)
		got := wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", `{"domain": "one.example", "timezone": "Europe/Berlin"}`), http.StatusOK, "")
		if got["domain"] != "one.example" || got["timezone"] != "Europe/Berlin" || fmt.Sprint(got["custom_properties"]) != "[]" {
			t.Errorf("created %v", got)
		}
		got = wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", url.Values{"domain": {"https://www.Two.example/x"}}), http.StatusOK, "")
		if got["domain"] != "two.example" || got["timezone"] != "UTC" {
			t.Errorf("created %v", got)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", `{"domain": "others.example"}`), http.StatusBadRequest, "domain: has already been taken")
		wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", url.Values{"timezone": {"UTC"}}), http.StatusBadRequest, "Parameter `domain` is required to create a site")
		wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", `{"domain": "three.example", "timezone": "Mars/Olympus"}`), http.StatusBadRequest, "timezone: ")
		wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", `{"domain": "three.example", "team_id": "x"}`), http.StatusBadRequest, "team_id")
		wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites", `{"domain": `), http.StatusBadRequest, "")
		wantPlausible(t, e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/sites", Key: owner.Key, Body: "domain=x.example",
			Headers: map[string]string{"Content-Type": "text/plain"}}), http.StatusUnsupportedMediaType,
			"must be application/json or a form (application/x-www-form-urlencoded or multipart/form-data)")
		wantPlausible(t, e.sites("", http.MethodPost, "/api/v1/sites", `{"domain": "three.example"}`), http.StatusUnauthorized, "Missing API key")
		wantPlausible(t, e.sites("nope", http.MethodGet, "/api/v1/sites", nil), http.StatusUnauthorized, "Invalid API key.")
	})

	t.Run("get, update, and another user's site", func(t *testing.T) {
		e := e.in(t)
		got := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/one.example", nil), http.StatusOK, "")
		if got["domain"] != "one.example" {
			t.Errorf("got %v", got)
		}
		for _, path := range []string{"/api/v1/sites/others.example", "/api/v1/sites/unknown.example"} {
			wantPlausible(t, e.sites(owner.Key, http.MethodGet, path, nil), http.StatusNotFound, "Site could not be found")
			wantPlausible(t, e.sites(owner.Key, http.MethodDelete, path, nil), http.StatusNotFound, "Site could not be found")
			wantPlausible(t, e.sites(owner.Key, http.MethodPut, path, `{"domain": "x.example"}`), http.StatusNotFound, "Site could not be found")
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/one.example", `{"domain": "ONE.example"}`), http.StatusOK, "")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/one.example", url.Values{"domain": {"new.example"}}), http.StatusBadRequest, "domain: a website's domain cannot be changed")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/one.example", url.Values{"domain": {"bad domain"}}), http.StatusBadRequest, "domain: ")
	})

	t.Run("list pages by cursor", func(t *testing.T) {
		e := e.in(t)
		for i := range 3 {
			e.Site(owner.Key, fmt.Sprintf("page%d.example", i))
		}
		var seen []string
		after := ""
		for range 10 {
			path := "/api/v1/sites?limit=2"
			if after != "" {
				path += "&after=" + url.QueryEscape(after)
			}
			got := wantPlausible(t, e.sites(owner.Key, http.MethodGet, path, nil), http.StatusOK, "")
			for _, s := range got["sites"].([]any) {
				seen = append(seen, s.(map[string]any)["domain"].(string))
			}
			meta := got["meta"].(map[string]any)
			if meta["limit"] != float64(2) {
				t.Fatalf("meta %v", meta)
			}
			if meta["after"] == nil {
				break
			}
			after = meta["after"].(string)
			back := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites?limit=2&before="+url.QueryEscape(after), nil), http.StatusOK, "")
			if n := len(back["sites"].([]any)); n != min(2, len(seen)-1) {
				t.Errorf("before the last entry: %d sites, want %d", n, min(2, len(seen)-1))
			}
		}
		want := "page2.example page1.example page0.example two.example one.example"
		if strings.Join(seen, " ") != want {
			t.Errorf("sites %v, want %s (newest first, never another user's)", seen, want)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites?limit=1001", nil), http.StatusBadRequest, "limit must be at most 1000")
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites?limit=0", nil), http.StatusBadRequest, "limit must be at least 1")
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites?after=bm9wZQ", nil), http.StatusBadRequest, "after is not a cursor")
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites?after=%25%25", nil), http.StatusBadRequest, "after is not a cursor")
	})

	t.Run("a stats key gets 403 on every call", func(t *testing.T) {
		e := e.in(t)
		statsKey, _, err := e.Repo.CreateScopedAPIKey(t.Context(), owner.ID, "stats", repository.ScopeStatsRead)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ method, path string }{{http.MethodGet, "/api/v1/sites"}, {http.MethodGet, "/api/v1/sites/one.example"},
			{http.MethodGet, "/api/v1/sites/goals?site_id=one.example"}, {http.MethodPost, "/api/v1/sites"}} {
			wantPlausible(t, e.sites(statsKey, c.method, c.path, nil), http.StatusForbidden, "stats:read")
		}
	})

	t.Run("shared links: found again by name", func(t *testing.T) {
		e := e.in(t)
		first := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"site_id": "one.example", "name": "WordPress"}`), http.StatusOK, "")
		again := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links?site_id=one.example", url.Values{"name": {"WordPress"}}), http.StatusOK, "")
		u, _ := first["url"].(string)
		if first["name"] != "WordPress" || !strings.Contains(u, "/share/one.example?auth=") || again["url"] != u {
			t.Errorf("first %v, again %v", first, again)
		}
		other := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"site_id": "one.example", "name": "Other"}`), http.StatusOK, "")
		if other["url"] == u {
			t.Error("two names, one address")
		}
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if res := e.Do(harness.Request{Path: parsed.RequestURI()}); res.Status != http.StatusOK {
			t.Errorf("the link's address answers %d", res.Status)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"name": "x"}`), http.StatusBadRequest, "Parameter `site_id` is required to create a shared link")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"site_id": "one.example"}`), http.StatusBadRequest, "Parameter `name` is required to create a shared link")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"site_id": "others.example", "name": "x"}`), http.StatusNotFound, "Site could not be found")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links", `{"site_id": "one.example", "name": "`+strings.Repeat("n", 121)+`"}`), http.StatusBadRequest, "name: ")
	})

	t.Run("goals: find or create, list, delete", func(t *testing.T) {
		e := e.in(t)
		g := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example", "goal_type": "event", "event_name": "Signup"}`), http.StatusOK, "")
		again := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", url.Values{"site_id": {"one.example"}, "goal_type": {"event"}, "event_name": {"Signup"}}), http.StatusOK, "")
		if g["id"] != again["id"] || g["display_name"] != "Signup" || g["goal_type"] != "event" || g["page_path"] != nil || g["domain"] != "one.example" {
			t.Errorf("goal %v, again %v", g, again)
		}
		p := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example", "goal_type": "page", "page_path": "/register"}`), http.StatusOK, "")
		if p["display_name"] != "Visit /register" || p["event_name"] != nil {
			t.Errorf("page goal %v", p)
		}
		list := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/goals?site_id=one.example", nil), http.StatusOK, "")
		goals := list["goals"].([]any)
		if len(goals) != 2 || goals[0].(map[string]any)["id"] != p["id"] {
			t.Errorf("goals %v, want the page goal first", goals)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example", "goal_type": "event"}`), http.StatusBadRequest, "Parameter `event_name` is required to create a goal")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example"}`), http.StatusBadRequest, "Parameter `goal_type` is required to create a goal")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example", "goal_type": "visit", "page_path": "/"}`), http.StatusBadRequest, "goal_type: ")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/goals", `{"site_id": "one.example", "goal_type": "page", "page_path": ""}`), http.StatusBadRequest, "page_path: ")
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/goals", nil), http.StatusBadRequest, "Parameter `site_id` is required to list goals")
		id := fmt.Sprint(g["id"])
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/goals/"+id, nil), http.StatusBadRequest, "Parameter `site_id` is required to delete a goal")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/goals/"+id, `{"site_id": "others.example"}`), http.StatusNotFound, "Site could not be found")
		got := wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/goals/"+id, `{"site_id": "one.example"}`), http.StatusOK, "")
		if got["deleted"] != true {
			t.Errorf("deleted %v", got)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/goals/"+id+"?site_id=one.example", nil), http.StatusNotFound, "Goal could not be found")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/goals/x1?site_id=one.example", nil), http.StatusNotFound, "Goal could not be found")
	})

	t.Run("custom properties", func(t *testing.T) {
		e := e.in(t)
		for range 2 {
			got := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "one.example", "property": "author"}`), http.StatusOK, "")
			if got["created"] != true {
				t.Errorf("declared %v", got)
			}
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", url.Values{"site_id": {"one.example"}, "property": {"title"}}), http.StatusOK, "")
		list := e.sites(owner.Key, http.MethodGet, "/api/v1/sites/custom-props?site_id=one.example", nil)
		if string(list.Body) != `{"custom_properties":[{"property":"author"},{"property":"title"}]}`+"\n" {
			t.Errorf("list %s", list.Body)
		}
		site := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/one.example", nil), http.StatusOK, "")
		if fmt.Sprint(site["custom_properties"]) != "[author title]" {
			t.Errorf("site %v", site)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/custom-props/author?site_id=one.example", nil), http.StatusOK, "")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/custom-props/never", `{"site_id": "one.example"}`), http.StatusOK, "")
		list = e.sites(owner.Key, http.MethodGet, "/api/v1/sites/custom-props?site_id=one.example", nil)
		if string(list.Body) != `{"custom_properties":[{"property":"title"}]}`+"\n" {
			t.Errorf("list %s", list.Body)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "one.example", "key": "author"}`), http.StatusBadRequest, "Parameter `property` is required to create a custom property")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "one.example", "property": " "}`), http.StatusBadRequest, "Parameter `property` is required")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "one.example", "property": "`+strings.Repeat("k", 301)+`"}`), http.StatusBadRequest, "property: ")
	})

	t.Run("guests are the members and invitations", func(t *testing.T) {
		e := e.in(t)
		viewer := e.User("viewer@example.com")
		site, err := e.Repo.WebsiteByDomain(t.Context(), "one.example")
		if err != nil {
			t.Fatal(err)
		}
		e.Member(site.ID, owner, viewer, repository.RoleViewer)
		got := wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/guests", `{"site_id": "one.example", "email": "Alice@Example.com", "role": "editor"}`), http.StatusOK, "")
		if got["email"] != "Alice@Example.com" || got["role"] != "editor" || got["status"] != "invited" {
			t.Errorf("guest %v", got)
		}
		got = wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/guests", url.Values{"site_id": {"one.example"}, "email": {"viewer@example.com"}, "role": {"editor"}}), http.StatusOK, "")
		if got["status"] != "accepted" || got["role"] != "viewer" {
			t.Errorf("an existing member is found as they are: %v", got)
		}
		list := e.sites(owner.Key, http.MethodGet, "/api/v1/sites/guests?site_id=one.example", nil)
		var page struct {
			Guests []map[string]string `json:"guests"`
		}
		if err := json.Unmarshal(list.Body, &page); err != nil || len(page.Guests) != 2 || page.Guests[0]["status"] != "invited" || page.Guests[1]["email"] != "viewer@example.com" {
			t.Errorf("guests %s", list.Body)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/guests", `{"site_id": "one.example", "email": "not an address", "role": "viewer"}`), http.StatusBadRequest, "email: ")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/guests", `{"site_id": "one.example", "email": "b@example.com", "role": "admin"}`), http.StatusBadRequest, "Possible values: `viewer` or `editor`")
		wantPlausible(t, e.sites(viewer.Key, http.MethodPut, "/api/v1/sites/guests", `{"site_id": "one.example", "email": "b@example.com", "role": "viewer"}`), http.StatusForbidden, "role")
		wantPlausible(t, e.sites(viewer.Key, http.MethodGet, "/api/v1/sites/one.example", nil), http.StatusOK, "")
		wantPlausible(t, e.sites(viewer.Key, http.MethodDelete, "/api/v1/sites/one.example", nil), http.StatusForbidden, "role")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/guests/viewer@example.com?site_id=one.example", nil), http.StatusOK, "")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/guests/alice@example.com", `{"site_id": "one.example"}`), http.StatusOK, "")
		wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/guests/nobody@example.com?site_id=one.example", nil), http.StatusOK, "")
		list = e.sites(owner.Key, http.MethodGet, "/api/v1/sites/guests?site_id=one.example", nil)
		if string(list.Body) != `{"guests":[],"meta":{"after":null,"before":null,"limit":100}}`+"\n" {
			t.Errorf("guests after removal %s", list.Body)
		}
		wantPlausible(t, e.sites(viewer.Key, http.MethodGet, "/api/v1/sites/one.example", nil), http.StatusNotFound, "Site could not be found")
	})

	t.Run("a custom property sent as key, as provider-plausible sends it", func(t *testing.T) {
		e := e.in(t)
		e.Site(owner.Key, "props.example")
		// Plausible's answer: the property is missing; the unknown fields do not hide it.
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "props.example", "key": "author", "description": "Who"}`),
			http.StatusBadRequest, "Parameter `property` is required to create a custom property")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", url.Values{"site_id": {"props.example"}, "key": {"author"}}),
			http.StatusBadRequest, "Parameter `property` is required to create a custom property")
		// An unknown field beside every required one is still named.
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", `{"site_id": "props.example", "property": "author", "key": "author"}`),
			http.StatusBadRequest, "key is not accepted here")
		wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/custom-props", url.Values{"site_id": {"props.example"}, "property": {"author"}, "key": {"author"}}),
			http.StatusBadRequest, "key is not accepted here")
		if got := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/custom-props?site_id=props.example", nil), http.StatusOK, ""); fmt.Sprint(got["custom_properties"]) != "[]" {
			t.Errorf("declared %v", got)
		}
	})

	t.Run("multipart forms, as go-plausible sends them", func(t *testing.T) {
		e := e.in(t)
		multipart := func(key, method, path string, body string) harness.Response {
			return e.Do(harness.Request{Method: method, Path: path, Key: key, Body: body,
				Headers: map[string]string{"Content-Type": "multipart/form-data; boundary=b0undary"}})
		}
		field := func(name, value string) string {
			return "--b0undary\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n"
		}
		got := wantPlausible(t, multipart(owner.Key, http.MethodPost, "/api/v1/sites", field("domain", "multi.example")+field("timezone", "Europe/Lisbon")+"--b0undary--\r\n"), http.StatusOK, "")
		if got["domain"] != "multi.example" || got["timezone"] != "Europe/Lisbon" {
			t.Errorf("created %v", got)
		}
		got = wantPlausible(t, multipart(owner.Key, http.MethodPut, "/api/v1/sites/shared-links?site_id=multi.example", field("site_id", "multi.example")+field("name", "WordPress")+"--b0undary--\r\n"), http.StatusOK, "")
		if got["name"] != "WordPress" {
			t.Errorf("link %v", got)
		}
		// The same rules as the other forms: an unknown field, a field twice.
		wantPlausible(t, multipart(owner.Key, http.MethodPost, "/api/v1/sites", field("domain", "multi2.example")+field("team_id", "1")+"--b0undary--\r\n"), http.StatusBadRequest, "team_id")
		wantPlausible(t, multipart(owner.Key, http.MethodPost, "/api/v1/sites", field("domain", "multi2.example")+field("domain", "multi3.example")+"--b0undary--\r\n"), http.StatusBadRequest, "domain")
		// A file is no field; a body that does not parse, or has no boundary, is refused.
		file := "--b0undary\r\nContent-Disposition: form-data; name=\"domain\"; filename=\"d.txt\"\r\n\r\nmulti2.example\r\n--b0undary--\r\n"
		wantPlausible(t, multipart(owner.Key, http.MethodPost, "/api/v1/sites", file), http.StatusBadRequest, "is a file")
		wantPlausible(t, multipart(owner.Key, http.MethodPost, "/api/v1/sites", field("domain", "multi2.example")), http.StatusBadRequest, "could not be read")
		wantPlausible(t, e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/sites", Key: owner.Key, Body: field("domain", "multi2.example"),
			Headers: map[string]string{"Content-Type": "multipart/form-data"}}), http.StatusBadRequest, "no boundary")
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/multi2.example", nil), http.StatusNotFound, "Site could not be found")
		// Only the Sites API reads multipart: the phpAnalytics API's forms stay urlencoded.
		res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/websites", Key: owner.Key, Body: field("domain", "multi2.example") + "--b0undary--\r\n",
			Headers: map[string]string{"Content-Type": "multipart/form-data; boundary=b0undary"}})
		if res.Status != http.StatusUnsupportedMediaType || !strings.Contains(string(res.Body), "The request body must be application/x-www-form-urlencoded.") {
			t.Errorf("phpAnalytics API with multipart: %d %s, want 415 naming the form only (it takes no JSON)", res.Status, res.Body)
		}
	})

	t.Run("delete", func(t *testing.T) {
		e := e.in(t)
		got := wantPlausible(t, e.sites(owner.Key, http.MethodDelete, "/api/v1/sites/two.example", nil), http.StatusOK, "")
		if got["deleted"] != true {
			t.Errorf("deleted %v", got)
		}
		wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/two.example", nil), http.StatusNotFound, "Site could not be found")
	})
}

// TestPlausibleSitesFixedNames: a method the Sites API's site operation has, on a fixed name
// that lacks it, answers as Plausible, which takes the name for a domain: 404; and the site
// operation reads its domain from the path alone.
func TestPlausibleSitesFixedNames(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	e.Site(owner.Key, "one.example")
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/sites/shared-links?site_id=one.example"},
		{http.MethodDelete, "/api/v1/sites/shared-links?site_id=one.example&name=WordPress"},
		{http.MethodDelete, "/api/v1/sites/goals?site_id=one.example"},
		{http.MethodDelete, "/api/v1/sites/custom-props?site_id=one.example"},
		{http.MethodDelete, "/api/v1/sites/guests?site_id=one.example"},
	} {
		res := e.sites(owner.Key, c.method, c.path, nil)
		wantPlausible(t, res, http.StatusNotFound, "Site could not be found")
		if res.Header.Get("Allow") != "" {
			t.Errorf("%s %s: Allow %q on a 404", c.method, c.path, res.Header.Get("Allow"))
		}
	}
	// go-plausible adds ?site_id= to every call of a site, the path's too: Plausible's path
	// parameter wins over the query's, and the query's is not read.
	e.Site(owner.Key, "two.example")
	for _, q := range []string{"one.example", "two.example", "unknown.example"} {
		got := wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/one.example?site_id="+q, nil), http.StatusOK, "")
		if got["domain"] != "one.example" {
			t.Errorf("?site_id=%s: %v", q, got)
		}
	}
	wantPlausible(t, e.sites(owner.Key, http.MethodGet, "/api/v1/sites/unknown.example?site_id=one.example", nil), http.StatusNotFound, "Site could not be found")
	// A body's field is read from the body only: the same field in the URL's query is not a
	// field (Go's ParseForm would merge it into r.Form), so a form without it is refused and
	// nothing is made.
	wantPlausible(t, e.sites(owner.Key, http.MethodPost, "/api/v1/sites?domain=query.example", url.Values{"timezone": {"UTC"}}),
		http.StatusBadRequest, "Parameter `domain` is required to create a site")
	wantPlausible(t, e.sites(owner.Key, http.MethodPut, "/api/v1/sites/shared-links?name=FromQuery", url.Values{"site_id": {"one.example"}}),
		http.StatusBadRequest, "name")
	if res := e.sites(owner.Key, http.MethodGet, "/api/v1/sites/query.example", nil); res.Status != http.StatusNotFound {
		t.Errorf("a domain sent in the query made a site: %d %s", res.Status, res.Body)
	}
	// A method no site operation has stays a 405; and so does any other API path.
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/sites/goals"},
		{http.MethodPatch, "/api/v1/sites/one.example"},
		{http.MethodPost, "/api/v1/sites/goals/1"},
	} {
		if res := e.sites(owner.Key, c.method, c.path, nil); res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d %s, want 405", c.method, c.path, res.Status, res.Body)
		}
	}
}
