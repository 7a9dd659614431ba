package pages_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/pages"
)

// testSite is a website on loopback that the installation check may reach through the tests'
// seam (every other loopback address stays refused), serving body as its home page.
func testSite(t *testing.T, body func() string) {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, body())
	}))
	t.Cleanup(site.Close)
	addr := netip.MustParseAddrPort(site.Listener.Addr().String())
	pages.UseTestSiteChecker(t, func(a netip.AddrPort) bool { return a == addr },
		func(domain string) []string { return []string{site.URL + "/"} }, 2*time.Second)
}

// A website with nothing counted shows its owner the snippet and the installation check
// instead of empty tables; anyone else allowed to read it sees only that nothing is counted.
func TestGuideForAWebsiteWithNothingCounted(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com", "exclude_ips", "10.0.0.0/8\n192.0.2.7")
	b := e.browser().signIn(owner)

	p := b.get("/stats/example.com")
	wantStatus(t, "owner's dashboard", p, http.StatusOK)
	for _, want := range []string{
		"Waiting for the first pageview", `id="snippet"`, `data-copy="snippet"`, "/js/script.js",
		fmt.Sprintf(`action="/websites/%d/verify#check-result"`, id), "Verify the installation",
		"headless browsers", "exclude 2 addresses and ranges",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the guide lacks %q", want)
		}
	}
	if strings.Contains(p.body, "Nothing counted in this range") {
		t.Error("the guide still shows the empty tables")
	}

	stranger := e.browser().get("/stats/example.com")
	wantStatus(t, "stranger", stranger, http.StatusOK)
	if !strings.Contains(stranger.body, "Nothing has been counted for example.com yet") ||
		strings.Contains(stranger.body, "snippet") || strings.Contains(stranger.body, "verify") {
		t.Errorf("a stranger sees the owner's guide:\n%s", stranger.body)
	}

	// Once something is counted, the dashboard is back.
	e.Count(id, "2026-03-20", "pageview", map[string]int64{"2026-03-20": 1})
	if p := b.get("/stats/example.com"); strings.Contains(p.body, "Waiting for the first pageview") {
		t.Error("the guide is still shown once a pageview is counted")
	}
}

// The verify button fetches the website's home page from the server and says what it found:
// the POST sends the browser (303) to a page of the answer, which a reload shows again without
// checking again, as does its address opened elsewhere by the owner, for a day.
func TestVerifyInstallation(t *testing.T) {
	page := ""
	var fetches atomic.Int32
	testSite(t, func() string { fetches.Add(1); return page })
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	b := e.browser().signIn(owner)
	verify := fmt.Sprintf("/websites/%d/verify", id)
	check := func(what string) string {
		t.Helper()
		p := b.post(verify, url.Values{})
		wantStatus(t, what, p, http.StatusSeeOther)
		if loc := p.header.Get("Location"); loc != verify+"#check-result" {
			t.Fatalf("%s: sent to %q, want %s#check-result", what, loc, verify)
		}
		answer := b.get(verify)
		wantStatus(t, what+": the answer", answer, http.StatusOK)
		return answer.body
	}

	wantStatus(t, "before any check", b.get(verify), http.StatusOK)
	if body := b.get(verify).body; strings.Contains(body, `id="check-result"`) || !strings.Contains(body, "Verify the installation") {
		t.Errorf("before any check, the page shows an answer or no button:\n%s", body)
	}
	page = `<html><head><script async defer src="` + e.Server.URL + `/js/script.js" data-host="` + e.Server.URL + `"></script></head></html>`
	if body := check("verify"); !strings.Contains(body, "Snippet found.") || !strings.Contains(body, "loads the tracker of this service") ||
		!strings.Contains(body, "Checked 2026-03-20 ") {
		t.Fatalf("the snippet was not found:\n%s", body)
	}
	page = `<html><head><script src="https://elsewhere.example/js/script.js"></script></head></html>`
	if body := check("verify again"); !strings.Contains(body, "Snippet not found.") || !strings.Contains(body, "loads a tracker from elsewhere.example") {
		t.Fatalf("a tracker of another service was not named:\n%s", body)
	}
	// Reloaded, and opened in another browser of the owner: the same answer, no new fetch.
	before := fetches.Load()
	for _, c := range []*browser{b, e.browser().signIn(owner)} {
		if p := c.get(verify); !strings.Contains(p.body, "loads a tracker from elsewhere.example") {
			t.Errorf("the answer's page, opened again:\n%s", p.body)
		}
	}
	if n := fetches.Load() - before; n != 0 {
		t.Errorf("showing the answer fetched the website %d times", n)
	}
	// Kept only a day, with nothing but the website, the answer and its time.
	var columns []string
	if err := e.DB.Select(&columns, `SELECT column_name FROM information_schema.columns WHERE table_name = 'site_checks' ORDER BY ordinal_position`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(columns, ","); got != "website_id,checked_at,found,message" {
		t.Errorf("site_checks keeps %s", got)
	}
	e.Clock.Advance(24*time.Hour + time.Minute)
	if body := b.get(verify).body; strings.Contains(body, `id="check-result"`) {
		t.Errorf("a day later the answer is still shown:\n%s", body)
	}
}

// Only the owner may run the check, only by POST with the form's token, and only a few times
// in a while; a website on an internal address is refused with a clear answer.
func TestVerifyRefusals(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	other := e.UserWithPassword("other@example.com")
	id := e.Site(owner.Key, "127.0.0.1")
	b := e.browser().signIn(owner)
	verify := fmt.Sprintf("/websites/%d/verify", id)

	wantStatus(t, "another user", e.browser().signIn(other).post(verify, url.Values{}), http.StatusNotFound)
	wantStatus(t, "signed out", e.browser().post(verify, url.Values{}), http.StatusSeeOther)
	wantStatus(t, "no token", b.postRaw(verify, url.Values{}), http.StatusForbidden)
	wantStatus(t, "another user's GET", e.browser().signIn(other).get(verify), http.StatusNotFound)
	wantStatus(t, "GET signed out", e.browser().get(verify), http.StatusSeeOther)
	wantStatus(t, "PUT", b.do(mustRequest(t, "PUT", e.Server.URL+verify)), http.StatusMethodNotAllowed)
	wantStatus(t, "unknown website", b.post("/websites/999999/verify", url.Values{}), http.StatusNotFound)

	for i := 0; i < 5; i++ {
		wantStatus(t, "loopback website", b.post(verify, url.Values{}), http.StatusSeeOther)
		if p := b.get(verify); !strings.Contains(p.body, "127.0.0.1 leads to an address that is not on the public internet") {
			t.Fatalf("loopback was not refused clearly:\n%s", p.body)
		}
	}
	p := b.post(verify, url.Values{})
	wantStatus(t, "sixth check", p, http.StatusTooManyRequests)
	if p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Try again in 5 minutes") {
		t.Errorf("the limit does not say when to come back: %q\n%s", p.header.Get("Retry-After"), p.body)
	}
	// Each user has their own checks.
	otherID := e.Site(other.Key, "192.168.1.1")
	if p := e.browser().signIn(other).post(fmt.Sprintf("/websites/%d/verify", otherID), url.Values{}); p.status != http.StatusSeeOther {
		t.Errorf("another user's check was limited: %d", p.status)
	}
	e.Clock.Advance(5 * time.Minute)
	wantStatus(t, "five minutes later", b.post(verify, url.Values{}), http.StatusSeeOther)
}

// The snippet shown for a local website (localhost, .localhost, .test, .local) carries
// data-local, on its empty dashboard, its settings and the home page; another website's does
// not.
func TestLocalWebsitesSnippetCarriesDataLocal(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	local := e.Site(owner.Key, "localhost")
	shop := e.Site(owner.Key, "shop.test")
	public := e.Site(owner.Key, "example.com")
	b := e.browser().signIn(owner)
	snippet := regexp.MustCompile(`<pre class="snippet" id="snippet(?:-local)?">([^<]*)</pre>`)
	snippets := func(path string) []string {
		t.Helper()
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		var out []string
		for _, m := range snippet.FindAllStringSubmatch(p.body, -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
		return out
	}
	tag := `<script async defer src="` + e.Server.URL + `/js/script.js" data-host="` + e.Server.URL + `"></script>`
	localTag := strings.Replace(tag, `"></script>`, `" data-local></script>`, 1)
	for path, want := range map[string][]string{
		"/stats/localhost":                       {localTag},
		fmt.Sprintf("/websites/%d/edit", local):  {localTag},
		fmt.Sprintf("/websites/%d/edit", shop):   {localTag},
		"/stats/example.com":                     {tag},
		fmt.Sprintf("/websites/%d/edit", public): {tag},
		"/":                                      {tag, localTag},
	} {
		if got := snippets(path); !slices.Equal(got, want) {
			t.Errorf("%s shows the snippets %q, want %q", path, got, want)
		}
	}
	if p := b.get("/"); !strings.Contains(p.body, "Snippet for localhost, shop.test") {
		t.Error("the home page does not name the local websites its second snippet is for")
	}
}
