package ingest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The shields count nothing of a blocked country's visitors, of a blocked page's hits, or of
// a page whose host is not allowed, and answer those hits 202 as counted ones; a hit that is
// not blocked counts as usual, its visit included.
func TestShields(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("shield.test",
		"block_countries", "us\nJP\nus", // any case, repeats dropped
		"block_pages", "/admin/*\n/preview|/draft/*",
		"allowed_hostnames", "shield.test\n*.cdn.test")
	const (
		newYork   = "198.51.100.7:1" // US
		singapore = "192.0.2.10:1"
		tokyo     = "[2001:db8:1::9]:1" // JP
	)
	plausible := func(url string) string {
		return fmt.Sprintf(`{"n":"pageview","u":%q,"d":"shield.test"}`, url)
	}
	cases := []struct {
		name   string
		hit    hit
		reason string // "" counted
	}{
		{"blocked country", hit{body: body("https://shield.test/", "", ""), remote: newYork}, "blocked_country"},
		{"another blocked country", hit{body: body("https://shield.test/", "", ""), remote: tokyo}, "blocked_country"},
		{"blocked page", hit{body: body("https://shield.test/admin/users", "", ""), remote: singapore}, "blocked_page"},
		{"blocked page, its query aside", hit{body: body("https://shield.test/preview?id=7", "", ""), remote: singapore}, "blocked_page"},
		{"blocked alternative", hit{body: body("https://shield.test/draft/a", "", ""), remote: singapore}, "blocked_page"},
		{"an event of a blocked page", hit{body: `{"page":"https://shield.test/admin/x","event":{"name":"Click"}}`, remote: singapore}, "blocked_page"},
		{"engagement of a blocked page", hit{body: `{"n":"engagement","u":"https://shield.test/admin/x","d":"shield.test","e":5000}`, remote: singapore}, "blocked_page"},
		{"hostname not allowed", hit{body: plausible("https://staging.other.test/"), remote: singapore}, "hostname_not_allowed"},
		{"hostname not allowed, only like one", hit{body: plausible("https://cdn.test/"), remote: singapore}, "hostname_not_allowed"},
		{"page outside the patterns", hit{body: body("https://shield.test/admin", "", ""), remote: singapore}, ""},
		{"www. of an allowed hostname", hit{body: body("https://www.shield.test/", "", ""), remote: singapore}, ""},
		{"an allowed hostname's pattern", hit{body: plausible("https://eu.cdn.test/docs"), remote: singapore}, ""},
	}
	counted := 0
	for _, c := range cases {
		res := e.send(c.hit)
		if res.Status != http.StatusAccepted || len(res.Body) != 0 {
			t.Fatalf("%s: %d %s, want 202 and no body", c.name, res.Status, res.Body)
		}
		if c.reason == "" {
			counted++
		}
	}
	want := map[string]float64{}
	for _, c := range cases {
		if c.reason != "" {
			want[c.reason]++
		}
	}
	for reason, n := range want {
		if got := e.Metric("analytics_events_ignored_total", "reason", reason); got != n {
			t.Errorf("ignored{reason=%s} = %v, want %v", reason, got, n)
		}
	}
	got := e.stats(id)
	wantStats(t, counts{"pageview": got["pageview"], "page": got["page"], "country": got["country"]}, counts{
		"pageview": {day: int64(counted)},
		"page":     {"/admin": 1, "/": 1, "/docs": 1},
		"country":  {"SG:Singapore": 1}, // one visit: the same address and browser
	})
}

// A change of the shields applies on the node that made it at once, and on every other node
// when its settings reload ("reload website settings", every SETTINGS_TTL); no hit reads the
// database to know them.
func TestShieldsReachOtherNodes(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	id := e.site("nodes.test")
	other := e.node(func(*app.Config) {})
	page := hit{body: body("https://nodes.test/private/a", "", "")}
	res := e.Do(harness.Request{Method: http.MethodPatch, Path: fmt.Sprintf("/api/v1/websites/%d", id), Key: e.key,
		Form: url.Values{"block_pages": {"/private/*"}}})
	if res.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", res.Status, res.Body)
	}
	e.send(page)
	other.send(page) // the other node's cache is as it was: counted there
	if n := other.Metric("analytics_events_ignored_total", "reason", "blocked_page"); n != 0 {
		t.Fatalf("the other node knew the change before its reload: %v", n)
	}
	reload := jobNamed(t, other.App.Jobs(), "reload website settings")
	if err := reload.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	other.send(page)
	if n := e.Metric("analytics_events_ignored_total", "reason", "blocked_page"); n != 1 {
		t.Fatalf("this node: ignored{reason=blocked_page} = %v, want 1", n)
	}
	if n := other.Metric("analytics_events_ignored_total", "reason", "blocked_page"); n != 1 {
		t.Fatalf("the other node after its reload: ignored{reason=blocked_page} = %v, want 1", n)
	}
	if err := other.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.stats(id)["pageview"][day]; got != 1 {
		t.Fatalf("%d pageviews, want 1 (the other node's before its reload)", got)
	}
}

func jobNamed(t *testing.T, jobs []app.Job, name string) app.Job {
	t.Helper()
	for _, j := range jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no job %q", name)
	return app.Job{}
}
