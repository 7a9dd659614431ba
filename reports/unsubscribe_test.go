package reports_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/testkit/harness"
)

// sentOctober runs the October report of the fixture and returns its one-click address (all of
// the message's websites) and the per-website address of a.example, as paths.
func sentOctober(t *testing.T, e *env) (all, siteA string) {
	t.Helper()
	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(dueOctober)
	tick(t, r)
	m := decode(t, e.smtp.WaitFor(t, 1, 10*time.Second)[0])
	all = path(t, strings.Trim(m.get("List-Unsubscribe"), "<>"))
	found := regexp.MustCompile(`Stop the reports for a\.example:\n(\S+)\n`).FindStringSubmatch(m.text)
	if found == nil {
		t.Fatalf("no unsubscribe link for a.example:\n%s", m.text)
	}
	return all, path(t, found[1])
}

func path(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host != publicURL.Host {
		t.Fatalf("link %q", raw)
	}
	return u.Path
}

// page requests an unsubscribe address and checks what every answer must have.
func (e *env) page(method, target, body string) (int, string) {
	e.T.Helper()
	req := httptest.NewRequest(method, "https://stats.example.test"+target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	e.App.Handler.ServeHTTP(rec, req)
	h := rec.Header()
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := h.Get(name); got != want {
			e.T.Errorf("%s %s: %s %q, want %q", method, target, name, got, want)
		}
	}
	out, _ := io.ReadAll(rec.Body)
	page := string(out)
	if !strings.Contains(page, "<h1>") || strings.Contains(page, "<script") || strings.Contains(page, "<style") || strings.Contains(page, "style=") {
		e.T.Errorf("%s %s: not a plain page with a heading:\n%s", method, target, page)
	}
	return rec.Code, page
}

func TestUnsubscribeFromOneWebsiteWithTheButton(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	_, siteA := sentOctober(t, e)

	status, page := e.page(http.MethodGet, siteA, "")
	if status != http.StatusOK || !strings.Contains(page, "<li>a.example</li>") || strings.Contains(page, "b.example") ||
		!regexp.MustCompile(`<form method="post">\s*<button type="submit">Stop e-mail reports</button>`).MatchString(page) {
		t.Fatalf("GET: %d\n%s", status, page)
	}
	if got := e.website(f.owner, f.a)["email"]; got != float64(1) {
		t.Fatalf("GET changed email to %v", got)
	}

	// The button posts an empty form to the same address.
	cached, _ := e.App.Pipeline.Websites.Lookup("a.example")
	status, page = e.page(http.MethodPost, siteA, "")
	if status != http.StatusOK || !strings.Contains(page, "Unsubscribed") || !strings.Contains(page, "<li>a.example</li>") {
		t.Fatalf("POST: %d\n%s", status, page)
	}
	if a, b := e.website(f.owner, f.a)["email"], e.website(f.owner, f.b)["email"]; a != float64(0) || b != float64(1) {
		t.Fatalf("after unsubscribing a.example: a email %v, b email %v", a, b)
	}
	if now, _ := e.App.Pipeline.Websites.Lookup("a.example"); now == cached {
		t.Fatal("the change did not go through the website rules (no ingest refresh)")
	}
	status, page = e.page(http.MethodGet, siteA, "")
	if status != http.StatusOK || !strings.Contains(page, "Already unsubscribed") || strings.Contains(page, "<form") {
		t.Fatalf("GET after: %d\n%s", status, page)
	}
	// Twice is harmless.
	if status, _ = e.page(http.MethodPost, siteA, ""); status != http.StatusOK {
		t.Fatalf("second POST: %d", status)
	}
}

// Behind a proxy that serves the service under /analytics/ (and strips it), with PUBLIC_URL
// https://stats.example.test/analytics: the links of the message are under it, and every link
// and asset of the unsubscribe page is a path under its prefix (so that the page works opened
// by any name).
func TestUnsubscribePageUnderAPrefix(t *testing.T) {
	public := &url.URL{Scheme: "https", Host: publicURL.Host, Path: "/analytics"}
	e := newEnvAt(t, public, public)
	setupOctober(e)
	_, siteA := sentOctober(t, e)
	stripped, ok := strings.CutPrefix(siteA, "/analytics/unsubscribe/")
	if !ok {
		t.Fatalf("unsubscribe link %q is not under the prefix", siteA)
	}
	status, page := e.page(http.MethodGet, "/unsubscribe/"+stripped, "")
	links := regexp.MustCompile(`(?:href|src|action)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if status != http.StatusOK || len(links) < 3 {
		t.Fatalf("GET: %d, links %q\n%s", status, links, page)
	}
	for _, l := range links {
		if !strings.HasPrefix(l[1], "/analytics/") {
			t.Errorf("link %q is not a path under PUBLIC_URL's prefix", l[1])
		}
	}
}

// RFC 8058: the mail program POSTs "List-Unsubscribe=One-Click" to the header's address,
// which stops the reports of every website of that message.
func TestOneClickUnsubscribe(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	all, _ := sentOctober(t, e)
	status, page := e.page(http.MethodPost, all, "List-Unsubscribe=One-Click")
	if status != http.StatusOK || !strings.Contains(page, "<li>a.example</li>") || !strings.Contains(page, "<li>b.example</li>") {
		t.Fatalf("one-click: %d\n%s", status, page)
	}
	for _, id := range []int64{f.a, f.b} {
		if got := e.website(f.owner, id)["email"]; got != float64(0) {
			t.Fatalf("website %d: email %v after one-click", id, got)
		}
	}
	if got := e.website(f.owner, f.c)["email"]; got != float64(0) {
		t.Fatalf("c.example changed: %v", got)
	}
	// November: the owner gets nothing more; late@ gets its first report.
	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC))
	tick(t, r)
	// A tick returns after the server answered: every message it sent has arrived.
	if got := e.smtp.Messages(); len(got) != 2 || got[1].To[0] != "late@example.com" {
		t.Fatalf("%d messages after unsubscribing, want October's and late@'s November", len(got))
	}
}

// A link that was altered, cut, or whose website is gone answers a readable 404 page and
// changes nothing.
func TestBadUnsubscribeLinks(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	all, siteA := sentOctober(t, e)
	token := strings.TrimPrefix(siteA, "/unsubscribe/")
	user, rest, _ := strings.Cut(token, ".")
	ids, mac, _ := strings.Cut(rest, ".")
	// Change a character inside the MAC: the last one may only carry base64 padding bits,
	// which decoding ignores.
	flip := func(s string) string {
		i := len(s) - 10
		if s[i] == 'A' {
			return s[:i] + "B" + s[i+1:]
		}
		return s[:i] + "A" + s[i+1:]
	}
	bad := []string{
		"/unsubscribe/",
		"/unsubscribe/x",
		"/unsubscribe/" + flip(token), // MAC altered
		"/unsubscribe/" + user + "." + fmt.Sprint(f.c) + "." + mac,       // another website, same MAC
		"/unsubscribe/" + fmt.Sprint(f.quiet.ID) + "." + ids + "." + mac, // another owner
		"/unsubscribe/" + user + "." + ids,                               // no MAC
		"/unsubscribe/" + token[:len(token)-5],                           // cut
		"/unsubscribe/" + token + "/extra",
		"/unsubscribe/" + strings.Repeat("1-", 30000) + "1." + mac, // huge
		"/unsubscribe/%00%ff.." + mac,
	}
	for _, target := range bad {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			status, page := e.page(method, target, "")
			if status != http.StatusNotFound || !strings.Contains(page, "This unsubscribe link is not valid") {
				t.Errorf("%s %.80s: %d\n%s", method, target, status, page)
			}
		}
	}
	for _, id := range []int64{f.a, f.b, f.c} {
		want := float64(1)
		if id == f.c {
			want = 0
		}
		if got := e.website(f.owner, id)["email"]; got != want {
			t.Fatalf("a bad link changed website %d: email %v", id, got)
		}
	}
	if status, _ := e.page(http.MethodPut, siteA, ""); status != http.StatusMethodNotAllowed {
		t.Fatalf("PUT: %d", status)
	}

	// The website deleted: its own link is a 404; the message's link still works for the rest.
	if res := e.Do(harness.Request{Method: http.MethodDelete, Path: fmt.Sprintf("/api/v1/websites/%d", f.a), Key: f.owner.Key}); res.Status != http.StatusOK {
		t.Fatalf("delete: %d", res.Status)
	}
	if status, _ := e.page(http.MethodPost, siteA, ""); status != http.StatusNotFound {
		t.Fatalf("deleted website: %d", status)
	}
	if status, page := e.page(http.MethodPost, all, "List-Unsubscribe=One-Click"); status != http.StatusOK || strings.Contains(page, "a.example") {
		t.Fatalf("one-click after a deletion: %d\n%s", status, page)
	}
	if got := e.website(f.owner, f.b)["email"]; got != float64(0) {
		t.Fatalf("b.example: email %v", got)
	}
}
