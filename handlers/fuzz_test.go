package handlers_test

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

var fuzzMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"}

// FuzzAPIRequest sends arbitrary requests (method, target, body, content type, key) through
// the real router on a real database. Whatever comes in, the answer is below 500, one the spec
// declares for the operation (or the error body for a route it does not have), and every error
// is the contract's error body with its status (Plausible's {"error"} under /api/v2/).
// Requests net/http itself would refuse (a target or a header it cannot read) are not sent,
// nor those outside /api/ (ServeMux's own redirects and the pages are not the API).
func FuzzAPIRequest(f *testing.F) {
	// A fast stand-in for argon2id (19 MiB, two passes a call), which would slow every store
	// with a password to a crawl; what is hashed does not matter here.
	e := newEnv(f, func(o *app.Config) {
		o.PasswordHasher = func(p string) (string, error) { return fmt.Sprintf("fuzz$%x", sha256.Sum256([]byte(p))), nil }
	})
	key := e.User("fuzz@example.com").Key
	id := e.store(key, "domain", "fuzz.example.com")["id"]
	path := fmt.Sprint("/api/v1/websites/", id)
	form := "application/x-www-form-urlencoded"
	seeds := []struct {
		method      uint8
		target      string
		body        string
		contentType string
		auth        uint8
	}{
		{0, "/api/v1/websites?search=fuzz&sort_by=domain&sort=asc&per_page=10&page=2&favorite=1", "", "", 1},
		{1, "/api/v1/websites", "domain=https%3A%2F%2Fwww.Fuzz2.example.com%2Fx&privacy=2&password=pw&exclude_ips=10.0.0.0%2F8", form, 1},
		{2, path + "?favorite=true&privacy=1", "email=1&exclude_params=utm_source%0Aref", form, 1},
		{3, path, "favorite=maybe&privacy=1&privacy=2", form, 1},
		{4, "/api/v1/websites/999999", "", "", 1},
		{0, "/api/v1/stats/" + strings.TrimPrefix(path, "/api/v1/websites/") + "?name=page&from=2026-01-01&to=2026-02-30&search=%00", "", "", 1},
		{0, "/api/v1/websites?page=%zz&per_page=10&per_page=25", "", "", 1},
		{1, "/api/v1/websites", "domain=%zz", "multipart/form-data; boundary=x", 2},
		{6, path, "", "", 0},
		{0, "/api/v1/openapi.yaml", "", "", 0},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, []byte(s.body), s.contentType, s.auth)
	}
	f.Fuzz(func(t *testing.T, method uint8, target string, body []byte, contentType string, auth uint8) {
		if !deliverable(target) || !httpguts.ValidHeaderFieldValue(contentType) {
			return
		}
		r := harness.Request{Method: fuzzMethods[int(method)%len(fuzzMethods)], Path: target, Body: string(body)}
		if contentType != "" {
			r.Headers = map[string]string{"Content-Type": contentType}
		}
		switch auth % 3 {
		case 1:
			r.Key = key
		case 2:
			r.Key = "pa_wrong"
		}
		res := e.in(t).Do(r)
		if res.Status >= 500 {
			t.Fatalf("%s %s: %d %s", r.Method, target, res.Status, res.Body)
		}
		switch {
		case res.Status < 400:
		case strings.HasPrefix(target, "/api/v2/"): // Plausible's {"error": ...}, unknown routes included
			wantQueryError(t, res, res.Status)
		default:
			want(t, res, res.Status)
		}
	})
}

// deliverable: a request target under /api/ that net/http would hand to the handler.
func deliverable(target string) bool {
	if !strings.HasPrefix(target, "/api/") || strings.ContainsAny(target, "# ") {
		return false
	}
	for i := 0; i < len(target); i++ {
		if target[i] < 0x20 || target[i] >= 0x7f {
			return false
		}
	}
	_, err := url.ParseRequestURI(target)
	return err == nil
}
