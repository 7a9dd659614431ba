package pages_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

// track sends one hit to POST /api/event as the tracker would.
func (e *env) track(body string) {
	e.T.Helper()
	req, err := http.NewRequest("POST", e.Server.URL+"/api/event", strings.NewReader(body))
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		e.T.Fatalf("track %s: %d", body, res.StatusCode)
	}
}

// Page paths, event names, campaigns and referrers come from anyone on the internet. Tracked
// through the real collector, markup in them must come back inert on the dashboard, on every
// full list and in the CSV.
func TestStrangersMarkupIsInert(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "xss.example")
	const (
		pagePath = `/<script>alert(1)</script>`
		query    = `?q=<script>alert(2)</script>`
		event    = `<img src=x onerror=alert(3)>`
		campaign = `<svg onload=alert(4)>`
	)
	e.track(`{"page": "https://xss.example` + pagePath + query + `&utm_campaign=` + campaign + `", "referrer": "https://evil.example/<b>"}`)
	e.track(`{"page": "https://xss.example/", "event": {"name": "` + event + `", "value": "5", "unit": "<i>USD</i>"}}`)
	// The exact page value, as a flush would write it (the collector percent-encodes
	// a raw "<" in a path, so this also covers values written by older trackers).
	id, _ := e.Repo.WebsiteByDomain(context.Background(), "xss.example")
	e.Count(id.ID, "2026-03-20", "page", map[string]int64{pagePath: 1})
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var stored []string
	e.DB.Select(&stored, `SELECT DISTINCT value FROM stats WHERE website_id = $1 ORDER BY 1`, id.ID)
	joined := strings.Join(stored, "\n")
	for _, raw := range []string{pagePath, `<script>alert(2)</script>`, `<img src=x onerror=alert(3)>`, `<svg onload=alert(4)>`} {
		if !strings.Contains(joined, raw) {
			t.Fatalf("the stored values do not hold %q, so this test would prove nothing:\n%s", raw, joined)
		}
	}

	b := e.browser()
	paths := []string{"/stats/xss.example?from=2026-03-01&to=2026-03-20"}
	for _, s := range []string{"page", "event", "campaign", "referrer"} {
		paths = append(paths, "/stats/xss.example/"+s+"?from=2026-03-01&to=2026-03-20&search=%3C")
	}
	for _, path := range paths {
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		for _, raw := range []string{"<script>alert", "<img src=x", "<svg onload", "<i>USD"} {
			if strings.Contains(p.body, raw) {
				t.Fatalf("%s: %q is on the page unescaped", path, raw)
			}
		}
		if !strings.Contains(p.body, "&lt;") {
			t.Fatalf("%s: the escaped values are not on the page:\n%s", path, p.body)
		}
	}
	dash := b.get(paths[0])
	for _, escaped := range []string{"/&lt;script&gt;alert(1)&lt;/script&gt;", ">&lt;img src=x onerror=alert(3)&gt;<svg", "</span>5 &lt;i&gt;USD&lt;/i&gt;</a></td>", "&lt;svg onload=alert(4)&gt;"} {
		if !strings.Contains(dash.body, escaped) {
			t.Fatalf("the dashboard does not show %q:\n%s", escaped, dash.body)
		}
	}

	for _, name := range []string{"page", "event", "campaign"} {
		p := b.get("/stats/xss.example/export?name=" + name + "&from=2026-03-01&to=2026-03-20")
		wantStatus(t, "export of "+name, p, http.StatusOK)
		if ct := p.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" || p.header.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.HasPrefix(p.header.Get("Content-Disposition"), "attachment;") {
			t.Fatalf("export of %s is not an inert download: %v", name, p.header)
		}
		records, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
		if err != nil || len(records) < 2 {
			t.Fatalf("export of %s is not CSV (%v):\n%s", name, err, p.body)
		}
	}
}

// Every page has the security headers, and no page has an inline script or style.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "public.example")
	b := e.browser().signIn(owner)
	for _, path := range []string{"/", "/login", "/stats/public.example", "/stats/public.example/page", "/nowhere", "/websites/1/edit"} {
		p := b.get(path)
		csp := p.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Fatalf("%s: Content-Security-Policy %q", path, csp)
		}
		if p.header.Get("X-Frame-Options") != "DENY" || p.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: headers %v", path, p.header)
		}
		if strings.Contains(p.body, "<script>") || strings.Contains(p.body, "<style") || strings.Contains(p.body, " style=") {
			t.Fatalf("%s: inline script or style", path)
		}
	}
}

// A stranger reading a public dashboard gets no cookie at all; only pages with a form set one.
func TestPublicPagesSetNoCookie(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "public.example")
	b := e.browser()
	for _, path := range []string{"/stats/public.example", "/stats/public.example/page", "/stats/public.example/export?name=page", "/nowhere"} {
		if p := b.get(path); len(p.header.Values("Set-Cookie")) != 0 {
			t.Fatalf("%s sets %v", path, p.header.Values("Set-Cookie"))
		}
	}
	if p := b.get("/login"); setCookie(t, p, "csrf") == nil {
		t.Fatal("the sign-in form sets no csrf cookie")
	}
}
