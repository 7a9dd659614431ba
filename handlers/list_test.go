package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// ids returns the data ids (websites) of a list response.
func ids(body map[string]any) []string {
	var out []string
	for _, d := range body["data"].([]any) {
		out = append(out, fmt.Sprint(d.(map[string]any)["id"]))
	}
	return out
}

func domains(body map[string]any) string {
	var out []string
	for _, d := range body["data"].([]any) {
		out = append(out, d.(map[string]any)["domain"].(string))
	}
	return strings.Join(out, ",")
}

func TestListWebsites(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	// Created in this order; the 3rd and 5th become favorites.
	for _, d := range []string{"b.example.com", "a-c.example.com", "abc.example.org", "d.example.net", "xy.example.com"} {
		e.store(key, "domain", d)
	}
	// Mark two favorites.
	list := want(t, e.Do(harness.Request{Path: "/api/v1/websites?sort=asc", Key: key}), 200)
	all := ids(list)
	for _, id := range []string{all[2], all[4]} {
		want(t, e.Do(harness.Request{Method: "PATCH", Path: "/api/v1/websites/" + id, Key: key, Form: form("favorite", "1")}), 200)
	}
	cases := []struct {
		query string
		want  string
	}{
		{"", "xy.example.com,d.example.net,abc.example.org,a-c.example.com,b.example.com"},
		{"sort=asc", "b.example.com,a-c.example.com,abc.example.org,d.example.net,xy.example.com"},
		{"sort_by=id&sort=desc", "xy.example.com,d.example.net,abc.example.org,a-c.example.com,b.example.com"},
		{"sort_by=domain", "xy.example.com,d.example.net,b.example.com,abc.example.org,a-c.example.com"},
		{"sort_by=domain&sort=asc", "a-c.example.com,abc.example.org,b.example.com,d.example.net,xy.example.com"},
		{"search=EXAMPLE.COM&sort=asc", "b.example.com,a-c.example.com,xy.example.com"},
		{"search=.org&search_by=domain", "abc.example.org"},
		{"search=a_c", ""}, // _ is literal, not "any character"
		{"search=a-c", "a-c.example.com"},
		{"search=%25", ""}, // % is literal
		{"search=", "xy.example.com,d.example.net,abc.example.org,a-c.example.com,b.example.com"},
		{"favorite=true&sort=asc", "abc.example.org,xy.example.com"},
		{"favorite=1&sort=asc", "abc.example.org,xy.example.com"},
		{"favorite=false&sort=asc", "b.example.com,a-c.example.com,d.example.net"},
		{"favorite=0&sort_by=domain&sort=asc", "a-c.example.com,b.example.com,d.example.net"},
		{"favorite=1&search=xy", "xy.example.com"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			body := want(t, e.in(t).Do(harness.Request{Path: "/api/v1/websites?" + c.query, Key: key}), 200)
			if got := domains(body); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestSearchTreatsWildcardsLiterally(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	// Domains cannot hold % or _, so check the pattern escaping on stats values instead, in
	// TestStatsSearch; here the escape character itself must be literal too.
	e.store(key, "domain", "abc.com")
	for _, q := range []string{`\`, `a\`, `\%`, `_bc`, `%bc`} {
		body := want(t, e.Do(harness.Request{Path: "/api/v1/websites?search=" + url.QueryEscape(q), Key: key}), 200)
		if n := len(body["data"].([]any)); n != 0 {
			t.Fatalf("search %q matched %d websites, want 0", q, n)
		}
	}
}

func TestPaging(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for i := 0; i < 23; i++ {
		e.store(key, "domain", fmt.Sprintf("site%02d.example.com", i))
	}
	cases := []struct {
		query                     string
		n, current, perPage, last int
		from, to                  any
		prev, next                bool
	}{
		{"per_page=10", 10, 1, 10, 3, 1.0, 10.0, false, true},
		{"per_page=10&page=2", 10, 2, 10, 3, 11.0, 20.0, true, true},
		{"per_page=10&page=3", 3, 3, 10, 3, 21.0, 23.0, true, false},
		{"per_page=10&page=4", 0, 4, 10, 3, nil, nil, true, false},
		{"per_page=25", 23, 1, 25, 1, 1.0, 23.0, false, false},
		{"per_page=50", 23, 1, 50, 1, 1.0, 23.0, false, false},
		{"per_page=100&page=1000000000", 0, 1000000000, 100, 1, nil, nil, true, false},
		{"", 23, 1, 50, 1, 1.0, 23.0, false, false},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			body := want(t, e.in(t).Do(harness.Request{Path: "/api/v1/websites?" + c.query, Key: key}), 200)
			meta := body["meta"].(map[string]any)
			links := body["links"].(map[string]any)
			if n := len(body["data"].([]any)); n != c.n {
				t.Errorf("%d items, want %d", n, c.n)
			}
			got := fmt.Sprint(meta["current_page"], meta["per_page"], meta["last_page"], meta["total"], meta["from"], meta["to"])
			wantMeta := fmt.Sprint(float64(c.current), float64(c.perPage), float64(c.last), 23.0, c.from, c.to)
			if got != wantMeta {
				t.Errorf("meta %s, want %s", got, wantMeta)
			}
			if (links["prev"] != nil) != c.prev || (links["next"] != nil) != c.next {
				t.Errorf("links %v", links)
			}
		})
	}
	// Pages do not overlap and cover everything, in order.
	seen := map[string]bool{}
	for p := 1; p <= 3; p++ {
		body := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/websites?per_page=10&sort_by=domain&sort=asc&page=%d", p), Key: key}), 200)
		for _, id := range ids(body) {
			if seen[id] {
				t.Fatalf("id %s on two pages", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != 23 {
		t.Fatalf("pages cover %d websites, want 23", len(seen))
	}
}

func TestLinksKeepOtherParameters(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	for i := 0; i < 12; i++ {
		e.store(key, "domain", fmt.Sprintf("s%d.example.com", i))
	}
	body := want(t, e.Do(harness.Request{Path: "/api/v1/websites?search=example&per_page=10&sort_by=domain&page=2&favorite=0", Key: key}), 200)
	links := body["links"].(map[string]any)
	for name, page := range map[string]string{"first": "1", "last": "2", "prev": "1"} {
		u, err := url.Parse(links[name].(string))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if u.Host != "api.test" || u.Path != "/api/v1/websites" || q.Get("page") != page || q.Get("search") != "example" ||
			q.Get("per_page") != "10" || q.Get("sort_by") != "domain" || q.Get("favorite") != "0" || len(q) != 5 {
			t.Errorf("%s link %s", name, u)
		}
	}
	if links["next"] != nil {
		t.Errorf("next %v on the last page", links["next"])
	}
}

// With PUBLIC_URL set, links are under it, whatever Host and X-Forwarded-Proto the request had.
func TestLinksUsePublicURL(t *testing.T) {
	public, err := url.Parse("https://stats.example.com/analytics")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(o *app.Config) { o.PublicURL = public })
	key := e.User("a@example.com").Key
	var id any
	for i := 0; i < 11; i++ {
		id = e.store(key, "domain", fmt.Sprintf("s%d.example.com", i))["id"]
	}
	forged := map[string]string{"Host": "evil.example", "X-Forwarded-Proto": "http"}
	body := want(t, e.Do(harness.Request{Path: "/api/v1/websites?per_page=10&search=s%201", Key: key, Headers: forged}), 200)
	links := body["links"].(map[string]any)
	if links["first"] != "https://stats.example.com/analytics/api/v1/websites?page=1&per_page=10&search=s+1" || links["next"] != nil {
		t.Errorf("links %v", links)
	}
	body = want(t, e.Do(harness.Request{Path: "/api/v1/websites?per_page=10", Key: key, Headers: forged}), 200)
	if next := body["links"].(map[string]any)["next"]; next != "https://stats.example.com/analytics/api/v1/websites?page=2&per_page=10" {
		t.Errorf("next %v", next)
	}
	body = want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%v?name=page&from=2026-01-01&to=2026-01-02", id), Key: key, Headers: forged}), 200)
	if last := body["links"].(map[string]any)["last"]; last != fmt.Sprintf("https://stats.example.com/analytics/api/v1/stats/%v?from=2026-01-01&name=page&page=1&to=2026-01-02", id) {
		t.Errorf("stats last %v", last)
	}
	// Location too, under the prefix.
	res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Headers: forged, Form: url.Values{"domain": {"located.example"}}})
	if loc := res.Header.Get("Location"); res.Status != http.StatusCreated ||
		!regexp.MustCompile(`^https://stats\.example\.com/analytics/api/v1/websites/[0-9]+$`).MatchString(loc) {
		t.Errorf("store: %d, Location %q", res.Status, loc)
	}
}

// Without PUBLIC_URL the paging links are at the request's own address, and Location is a
// path. X-Forwarded-Proto and X-Forwarded-Host count only from a trusted proxy: anyone else's
// change nothing.
func TestLinksBelieveForwardedHeadersOnlyFromTrustedProxies(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} })
	key := e.User("a@example.com").Key
	for i := 0; i < 11; i++ {
		e.store(key, "domain", fmt.Sprintf("s%d.example.com", i))
	}
	forwarded := map[string]string{"Host": "svc.internal:8080", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "stats.example.org"}
	for remote, wantNext := range map[string]string{
		"198.51.100.7:1": "http://svc.internal:8080/api/v1/websites?page=2&per_page=10",  // a client: its headers are ignored
		"10.0.0.1:1":     "https://stats.example.org/api/v1/websites?page=2&per_page=10", // a trusted proxy
	} {
		body := want(t, e.Do(harness.Request{Path: "/api/v1/websites?per_page=10", Key: key, Headers: forwarded, Remote: remote}), 200)
		if next := body["links"].(map[string]any)["next"]; next != wantNext {
			t.Errorf("from %s: next %v, want %s", remote, next, wantNext)
		}
		res := e.Do(harness.Request{Method: "POST", Path: "/api/v1/websites", Key: key, Headers: forwarded, Remote: remote,
			Form: url.Values{"domain": {"new" + strings.ReplaceAll(remote, ":", "-") + ".example"}}})
		if loc := res.Header.Get("Location"); res.Status != http.StatusCreated || !strings.HasPrefix(loc, "/api/v1/websites/") {
			t.Errorf("from %s: store %d, Location %q, want a path", remote, res.Status, loc)
		}
	}
}

func TestListRefusesBadParameters(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	cases := []struct{ query, field string }{
		{"per_page=7", "per_page"},
		{"per_page=0", "per_page"},
		{"per_page=1000", "per_page"},
		{"per_page=ten", "per_page"},
		{"per_page=", "per_page"},
		{"page=0", "page"},
		{"page=-1", "page"},
		{"page=1.5", "page"},
		{"page=abc", "page"},
		{"page=99999999999999999999", "page"},
		{"page=1000000001", "page"},
		{"sort=up", "sort"},
		{"sort=DESC", "sort"},
		{"sort_by=created_at", "sort_by"},
		{"sort_by=count", "sort_by"},
		{"search_by=value", "search_by"},
		{"favorite=yes", "favorite"},
		{"favorite=", "favorite"},
		// strconv.ParseBool takes these; the contract does not.
		{"favorite=t", "favorite"},
		{"favorite=T", "favorite"},
		{"favorite=TRUE", "favorite"},
		{"favorite=True", "favorite"},
		{"favorite=f", "favorite"},
		{"favorite=F", "favorite"},
		{"favorite=FALSE", "favorite"},
		{"favorite=False", "favorite"},
		{"favorite=%20true", "favorite"},
		{"favorite=true&favorite=false", "favorite"},
		{"per_page=10&per_page=25", "per_page"},
		{"search=" + strings.Repeat("x", 256), "search"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			wantField(t, e.in(t).Do(harness.Request{Path: "/api/v1/websites?" + c.query, Key: key}), c.field)
		})
	}
	res := e.Do(harness.Request{Path: "/api/v1/websites?per_page=7", Key: key})
	errs := res.JSON(t)["errors"].(map[string]any)
	if fmt.Sprint(errs["per_page"]) != "[must be one of 10, 25, 50, 100]" {
		t.Fatalf("per_page message %v", errs["per_page"])
	}
	for _, query := range []string{"favorite=yes", "favorite=TRUE"} {
		res := e.Do(harness.Request{Path: "/api/v1/websites?" + query, Key: key})
		errs := res.JSON(t)["errors"].(map[string]any)
		if fmt.Sprint(errs["favorite"]) != "[must be one of true, false, 1, 0]" {
			t.Fatalf("%s: favorite message %v", query, errs["favorite"])
		}
	}
	// Authentication still comes first.
	want(t, e.Do(harness.Request{Path: "/api/v1/websites?favorite=TRUE"}), http.StatusUnauthorized)
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	revoked := e.User("b@example.com").Key
	if err := e.Repo.RevokeAPIKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		header string
	}{
		{"missing", ""},
		{"empty bearer", "Bearer "},
		{"no scheme", key},
		{"basic scheme", "Basic " + key},
		{"two tokens", "Bearer " + key + " extra"},
		{"unknown key", "Bearer pa_unknownunknownunknownunknownunknown"},
		{"revoked key", "Bearer " + revoked},
		{"key with one character changed", "Bearer " + key[:len(key)-1] + "x"},
	}
	paths := []harness.Request{
		{Path: "/api/v1/websites"},
		{Path: "/api/v1/websites?per_page=7"}, // 401 before 422
		{Method: "POST", Path: "/api/v1/websites", Form: form("privacy", "9")},
		{Path: "/api/v1/websites/1"},
		{Method: "DELETE", Path: "/api/v1/websites/1"},
		{Path: "/api/v1/stats/1?name=nope&from=x"},
	}
	for _, c := range cases {
		for _, p := range paths {
			t.Run(c.name+" "+p.Path, func(t *testing.T) {
				if c.header != "" {
					p.Headers = map[string]string{"Authorization": c.header}
				}
				res := e.in(t).Do(p)
				body := want(t, res, http.StatusUnauthorized)
				if res.Header.Get("WWW-Authenticate") != "Bearer" || body["message"] != "Unauthenticated." {
					t.Fatalf("WWW-Authenticate %q, body %v", res.Header.Get("WWW-Authenticate"), body)
				}
			})
		}
	}
	// The scheme is case-insensitive and the valid key works.
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Headers: map[string]string{"Authorization": "bearer " + key}}), 200)
	// Revoking a key stops it at once.
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key}), 200)
	if err := e.Repo.RevokeAPIKey(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: key}), http.StatusUnauthorized)
}
