package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// POST /api/v1/websites/{id}/reset deletes a range (or every day) once the domain is typed;
// every bad field is a 422 naming it that deletes nothing, another user's website a 404.
func TestResetWebsiteStats(t *testing.T) {
	e := newEnv(t)
	owner, other := e.User("a@example.com"), e.User("b@example.com")
	id := e.Site(owner.Key, "reset.example")
	for _, day := range []string{"2026-03-01", "2026-03-02", "2026-03-03"} {
		e.Count(id, day, "pageview", map[string]int64{day: 5})
	}
	rows := func() int {
		var n int
		if err := e.DB.Get(&n, `SELECT count(*) FROM stats WHERE website_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	path := fmt.Sprintf("/api/v1/websites/%d/reset", id)
	reset := func(key string, form url.Values) harness.Response {
		return e.Do(harness.Request{Method: http.MethodPost, Path: path, Key: key, Form: form})
	}
	bad := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no confirm", form("from", "2026-03-01", "to", "2026-03-01"), "confirm"},
		{"the wrong domain", form("confirm", "other.example"), "confirm"},
		{"the domain with www.", form("confirm", "www.reset.example"), "confirm"},
		{"from without to", form("confirm", "reset.example", "from", "2026-03-01"), "to"},
		{"to without from", form("confirm", "reset.example", "to", "2026-03-01"), "from"},
		{"from after to", form("confirm", "reset.example", "from", "2026-03-02", "to", "2026-03-01"), "from"},
		{"not a date", form("confirm", "reset.example", "from", "2026-13-01", "to", "2026-03-01"), "from"},
		{"an unknown field", form("confirm", "reset.example", "all", "1"), "all"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			wantField(t, reset(owner.Key, c.form), c.field)
			if n := rows(); n != 3 {
				t.Fatalf("a refused reset deleted: %d rows left", n)
			}
		})
	}
	want(t, reset(other.Key, form("confirm", "reset.example")), http.StatusNotFound)
	want(t, reset("", form("confirm", "reset.example")), http.StatusUnauthorized)
	if n := rows(); n != 3 {
		t.Fatalf("another user's reset deleted: %d rows left", n)
	}
	res := reset(owner.Key, form("confirm", " Reset.Example ", "from", "2026-03-02", "to", "2026-03-02"))
	data := want(t, res, http.StatusOK)["data"].(map[string]any)
	if data["from"] != "2026-03-02" || data["to"] != "2026-03-02" || data["reset_at"] != "2026-03-04T05:06:07Z" {
		t.Fatalf("reset answered %v", data)
	}
	if n := rows(); n != 2 {
		t.Fatalf("a reset of one day left %d rows, want 2", n)
	}
	data = want(t, reset(owner.Key, form("confirm", "reset.example")), http.StatusOK)["data"].(map[string]any)
	if data["from"] != nil || data["to"] != "2026-03-04" {
		t.Fatalf("a reset of every day answered %v", data)
	}
	if n := rows(); n != 0 {
		t.Fatalf("a reset of every day left %d rows", n)
	}
	// The message says what to type.
	res = reset(owner.Key, form("confirm", "nope"))
	if !strings.Contains(string(res.Body), "must be the website's domain, reset.example, typed to confirm the deletion") {
		t.Fatalf("wrong domain: %s", res.Body)
	}
}
