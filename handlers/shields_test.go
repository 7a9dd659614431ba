package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The shields and the retention are website fields of the API: stored as the rules normalise
// them, cleared by an empty value, each bad value a 422 on its field that changes nothing.
func TestShieldsAndRetentionFields(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.FactsRetention = 400 })
	key := e.User("a@example.com").Key
	w := e.store(key, "domain", "example.com", "block_countries", "de\nUS", "block_pages", "/admin/*",
		"allowed_hostnames", "WWW.example.com\n*.example.com", "retention_days", "90")
	for k, v := range map[string]any{"block_countries": "DE\nUS", "block_pages": "/admin/*",
		"allowed_hostnames": "example.com\n*.example.com", "retention_days": 90.0} {
		if w[k] != v {
			t.Errorf("stored %s = %#v, want %#v", k, w[k], v)
		}
	}
	plain := e.store(key, "domain", "plain.example")
	for _, k := range []string{"block_countries", "block_pages", "allowed_hostnames", "retention_days"} {
		if v, ok := plain[k]; !ok || v != nil {
			t.Errorf("a website without shields: %s = %#v, want null", k, v)
		}
	}
	path := fmt.Sprintf("/api/v1/websites/%v", w["id"])
	lines := func(n int, f string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(f, i)
		}
		return strings.Join(out, "\n")
	}
	steps := []struct {
		name   string
		form   url.Values
		status int
		field  string
		want   map[string]any
	}{
		{"clear the countries", form("block_countries", ""), 200, "", map[string]any{"block_countries": nil, "block_pages": "/admin/*"}},
		{"new pages", form("block_pages", "/a\r\n/b|/c/*"), 200, "", map[string]any{"block_pages": "/a\n/b|/c/*"}},
		{"retention back to FACTS_RETENTION", form("retention_days", "0"), 200, "", map[string]any{"retention_days": nil}},
		{"retention at FACTS_RETENTION", form("retention_days", "400"), 200, "", map[string]any{"retention_days": 400.0}},
		{"retention of a month", form("retention_days", "32"), 200, "", map[string]any{"retention_days": 32.0}},
		{"an unknown country", form("block_countries", "DE\nXX"), 422, "block_countries", nil},
		{"251 countries", form("block_countries", strings.Repeat("DE\n", 251)), 422, "block_countries", nil},
		{"a pattern that is none", form("block_pages", "admin/*"), 422, "block_pages", nil},
		{"101 patterns", form("block_pages", lines(101, "/p%d")), 422, "block_pages", nil},
		{"a hostname that is none", form("allowed_hostnames", "https://example.com/"), 422, "allowed_hostnames", nil},
		{"51 hostnames", form("allowed_hostnames", lines(51, "h%d.example.com")), 422, "allowed_hostnames", nil},
		{"retention under a month", form("retention_days", "31"), 422, "retention_days", nil},
		{"retention past FACTS_RETENTION", form("retention_days", "401"), 422, "retention_days", nil},
		{"retention past the spec's bound", form("retention_days", "3661"), 422, "retention_days", nil},
		{"retention not a number", form("retention_days", "90d"), 422, "retention_days", nil},
		{"a list too long for the spec", form("block_pages", "/"+strings.Repeat("p", 30000)), 422, "block_pages", nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			e := e.in(t)
			e.Clock.Advance(time.Second)
			before := e.Do(harness.Request{Path: path, Key: key}).JSON(t)["data"].(map[string]any)
			res := e.Do(harness.Request{Method: http.MethodPatch, Path: path, Key: key, Form: s.form})
			if s.status == http.StatusUnprocessableEntity {
				wantField(t, res, s.field)
				after := e.Do(harness.Request{Path: path, Key: key}).JSON(t)["data"].(map[string]any)
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Fatalf("a refused update changed the website:\n%v\n%v", before, after)
				}
				return
			}
			got := want(t, res, s.status)["data"].(map[string]any)
			for k, v := range s.want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
		})
	}
	// The message names the bound.
	res := e.Do(harness.Request{Method: http.MethodPatch, Path: path, Key: key, Form: form("block_pages", lines(101, "/p%d"))})
	if !strings.Contains(string(res.Body), "has 101 entries: at most 100") {
		t.Errorf("101 patterns: %s", res.Body)
	}
	res = e.Do(harness.Request{Method: http.MethodPatch, Path: path, Key: key, Form: form("retention_days", "401")})
	if !strings.Contains(string(res.Body), "32 to 400 days") {
		t.Errorf("retention past FACTS_RETENTION: %s", res.Body)
	}
}
