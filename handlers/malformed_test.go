package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// malformedRequests are requests a careless client or an attacker sends, over every operation:
// bad encodings, repeated and huge values, NUL bytes, invalid UTF-8, overlong ids, odd headers.
// The key is filled in by the test (keyed requests get past authentication).
func malformedRequests(id string) []harness.Request {
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	site := "/api/v1/websites/" + id
	stats := "/api/v1/stats/" + id + "?name=page&from=2026-01-01&to=2026-01-31"
	huge := strings.Repeat("a", 60_000)
	var out []harness.Request

	// Query strings, on every operation.
	queries := []string{
		"page=%zz", "%zz=1", "page=1&page=2", "per_page=10&per_page=25", "sort=desc&sort=asc",
		"search=%00", "search=a%00b", "search=%FF%FE", "search=%C0%AF", "search=" + strings.Repeat("x", 5000),
		"sort=" + strings.Repeat("x", 5000), "page=99999999999999999999", "page=-1", "page=0", "page=1e3",
		"page=1.0", "page=%201", "per_page=%00", "favorite=%FF", "favorite=true&favorite=false", "sort_by=id%00",
		";;;", "a;b=c", "&&&", "=", "==", "search_by=value", "name=page%00", "from=2026-02-30",
		"from=0000-01-01", "to=99999-01-01", "from=2026-01-01&from=2026-01-02", "name=" + huge[:3000],
	}
	for _, q := range queries {
		out = append(out,
			harness.Request{Path: "/api/v1/websites?" + q},
			harness.Request{Path: site + "?" + q},
			harness.Request{Method: "DELETE", Path: "/api/v1/websites/999999?" + q},
			harness.Request{Path: stats + "&" + q},
			harness.Request{Method: "PATCH", Path: site + "?" + q},
			harness.Request{Method: "PUT", Path: site + "?" + q, Body: "email=0", Headers: form},
			harness.Request{Method: "POST", Path: "/api/v1/websites?" + q, Body: "domain=q.example.com&privacy=1", Headers: form},
		)
	}

	// Path ids.
	// (None of them is the website's id under another spelling: the DELETE would delete it.)
	for _, bad := range []string{"99999999999999999999", "-1", "0", "999999.0", "+999999", "0x1", "1e9", "%00", "%2e%2e",
		"1%2F2", "%C0%AF", "%FF", "999999%20", strings.Repeat("9", 1000), "000999999", "abc", "%E2%80%AE1"} {
		for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
			out = append(out, harness.Request{Method: method, Path: "/api/v1/websites/" + bad})
		}
		out = append(out, harness.Request{Path: "/api/v1/stats/" + bad + "?name=page&from=2026-01-01&to=2026-01-31"})
	}

	// Bodies, on the three form operations.
	bodies := []string{
		"domain=%zz", "domain=a%00b", "domain=" + huge, "=", "&&&", "a=1;b=2", "domain=x.com&domain=y.com",
		"domain=a\x00b", "domain=\xff\xfe", "%", "domain=%E0%A4%A", "exclude_params=a%00b", "exclude_params=%FF",
		"exclude_params=" + strings.Repeat("p\n", 20_000), "exclude_ips=" + strings.Repeat("10.0.0.1\n", 6000),
		"exclude_ips=%00", "password=%00%00", "password=%FF", "password=" + huge, "privacy=%00", "email=",
		"favorite=", "privacy=1&privacy=", "exclude_bots=" + huge, "domain=" + strings.Repeat("a.", 200) + "com",
		"domain=xn--", "domain=xn--zz", "domain=%5B%3A%3A1", "domain=http://[::1", "domain=%E2%80%AEmoc.elpmaxe",
	}
	for _, b := range bodies {
		out = append(out,
			harness.Request{Method: "POST", Path: "/api/v1/websites", Body: b, Headers: form},
			harness.Request{Method: "PUT", Path: site, Body: b, Headers: form},
			harness.Request{Method: "PATCH", Path: site, Body: b, Headers: form},
		)
	}

	// Content types and headers.
	contentTypes := []string{"", ";;", "application/x-www-form-urlencoded; charset=", "application/x-www-form-urlencoded; charset=\"utf-8",
		"application/x-www-form-urlencoded; charset=utf-16", "multipart/form-data", "multipart/form-data; boundary=x",
		"application/json", "text/plain", "application/x-www-form-urlencoded\x00", strings.Repeat("a", 10_000)}
	for _, ct := range contentTypes {
		h := map[string]string{"Content-Type": ct}
		out = append(out,
			harness.Request{Method: "POST", Path: "/api/v1/websites", Body: "domain=ct.example.com", Headers: h},
			harness.Request{Method: "PATCH", Path: site, Headers: h},
			harness.Request{Method: "PUT", Path: site, Body: "--x\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n1\r\n--x--\r\n", Headers: h},
			harness.Request{Path: "/api/v1/websites", Headers: h},
			harness.Request{Method: "DELETE", Path: "/api/v1/websites/999999", Headers: h},
		)
	}
	for _, h := range []map[string]string{
		{"X-Request-Id": strings.Repeat("r", 10_000)}, {"X-Request-Id": "a\x00b"}, {"X-Request-Id": "\xff"},
		{"Accept": "text/html"}, {"Accept": "\x00"}, {"Accept-Encoding": "gzip;q=x"}, {"X-Forwarded-For": "not an ip"},
		{"X-Forwarded-Proto": "gopher"}, {"X-Forwarded-Host": "evil.example"}, {"Content-Length": "-1"},
		{"Transfer-Encoding": "chunked"}, {"Expect": "100-continue"}, {"Origin": "\x00"},
	} {
		out = append(out, harness.Request{Path: "/api/v1/websites?page=2", Headers: h}, harness.Request{Path: stats, Headers: h},
			harness.Request{Method: "PATCH", Path: site, Body: "email=0", Headers: merge(form, h)})
	}

	// Bodies where none belongs: ignored, whatever their type or size.
	for _, b := range []string{`{"domain":"x.com"}`, strings.Repeat("a", 70_000), "domain=%zz"} {
		out = append(out,
			harness.Request{Path: "/api/v1/websites", Body: b, Headers: map[string]string{"Content-Type": "application/json"}},
			harness.Request{Path: stats, Body: b},
			harness.Request{Method: "DELETE", Path: "/api/v1/websites/999999", Body: b, Headers: form})
	}

	// Methods nobody routes, and paths that are nearly routes.
	for _, m := range []string{"HEAD", "OPTIONS", "TRACE", "PROPFIND", "CONNECT", "get", "X"} {
		out = append(out, harness.Request{Method: m, Path: "/api/v1/websites"}, harness.Request{Method: m, Path: site})
	}
	for _, p := range []string{"/api/v1/websites/", "/api/v1//websites", "/api/v1/websites/1/", "/api/v1/stats",
		"/api/v1/stats/", "/api/v1/%2e%2e/websites", "/api/v1/websites%00", "/API/V1/WEBSITES", "/api/v1/websites;x",
		"/api/v1/" + strings.Repeat("a/", 2000), "/api//v1/websites", "/api/", "/api/event/x", "/api/v2"} {
		out = append(out, harness.Request{Path: p})
	}
	return out
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// No request of any shape makes the API answer 500 or more; every answer is one the spec
// declares for the operation, and every error is the contract's error body with its status.
func TestMalformedRequestsNeverFail(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := fmt.Sprint(e.store(key, "domain", "example.com")["id"])
	reqs := malformedRequests(id)
	for _, withKey := range []bool{true, false} {
		for i, r := range reqs {
			if withKey {
				r.Key = key
			}
			name := fmt.Sprintf("%d %s %.80q key=%v", i, r.Method, r.Path, withKey)
			t.Run(name, func(t *testing.T) {
				res := e.in(t).Do(r)
				if res.Status >= 500 {
					t.Fatalf("%d: %s\nbody %.200q", res.Status, res.Body, r.Body)
				}
				switch {
				case !strings.HasPrefix(r.Path, "/api/"): // the pages' (HTML) 404, not the API
					if res.Status != http.StatusNotFound {
						t.Fatalf("%d outside /api/, want the pages' 404", res.Status)
					}
				case res.Status >= 400:
					want(t, res, res.Status)
				}
				if !withKey && res.Status < 400 && !strings.HasPrefix(r.Path, "/api/v1/openapi") {
					t.Fatalf("%d without a key", res.Status)
				}
			})
		}
	}
	// The website is as it was stored: nothing malformed changed it.
	got := want(t, e.Do(harness.Request{Path: "/api/v1/websites/" + id, Key: key}), http.StatusOK)["data"].(map[string]any)
	if got["domain"] != "example.com" || got["exclude_params"] != nil || got["exclude_ips"] != nil || got["password"] != false {
		t.Fatalf("the website changed: %v", got)
	}
	// A client's request id is kept only when it is a short token.
	for id, kept := range map[string]bool{"abc-123": true, strings.Repeat("r", 200): false, "a b": false, "": false} {
		res := e.Do(harness.Request{Path: "/api/v1/websites", Key: key, Headers: map[string]string{"X-Request-Id": id}})
		if got := res.Header.Get("X-Request-Id"); (got == id) != kept || got == "" {
			t.Errorf("X-Request-Id %.20q answered %.20q", id, got)
		}
	}
	if strings.Contains(e.Logs.String(), `"status":500`) {
		t.Fatalf("a 500 was logged:\n%s", e.Logs.String())
	}
}
