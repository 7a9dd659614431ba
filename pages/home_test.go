package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// apiWebsite reads a website through the API, as its owner sees it there.
func (e *env) apiWebsite(a harness.User, id int64) map[string]any {
	e.T.Helper()
	status, body := e.api("GET", fmt.Sprintf("/api/v1/websites/%d", id), a.Key, nil)
	if status != http.StatusOK {
		e.T.Fatalf("show website %d: %d %s", id, status, body)
	}
	var v struct{ Data map[string]any }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		e.T.Fatal(err)
	}
	return v.Data
}

func websiteForm(kv ...string) url.Values {
	f := url.Values{"privacy": {"0"}, "exclude_bots": {"1"}}
	for i := 0; i < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}

// The forms change websites under exactly the API's rules: the same normalisation, the same
// refusals with the same words, and the same password rule.
func TestWebsiteForms(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	b := e.browser().signIn(owner)

	p := b.post("/websites", websiteForm("domain", "https://www.Example.COM/blog?x=1", "email", "1",
		"exclude_ips", "10.0.0.0/8\r\n2001:db8::1", "exclude_params", "utm_source"))
	wantStatus(t, "add", p, http.StatusSeeOther)
	if p.header.Get("Location") != "/?notice=added" {
		t.Fatalf("after adding: %q", p.header.Get("Location"))
	}
	site, err := e.Repo.WebsiteByDomain(context.Background(), "example.com")
	if err != nil {
		t.Fatalf("the form's domain was not normalised as the API does: %v", err)
	}
	got := e.apiWebsite(owner, site.ID)
	want := map[string]any{"domain": "example.com", "privacy": 0.0, "password": false, "email": 1.0,
		"exclude_bots": 1.0, "exclude_ips": "10.0.0.0/8\n2001:db8::1", "exclude_params": "utm_source", "favorite": false}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	home := b.get("/?notice=added")
	if !strings.Contains(home.body, "The website was added") || !strings.Contains(home.body, `/stats/example.com`) {
		t.Fatalf("home after adding:\n%s", home.body)
	}
	if !strings.Contains(home.body, `data-host=&#34;http://127.0.0.1`) {
		t.Fatalf("no tracker snippet for this service on the home page")
	}

	refusals := []struct {
		name, field, message string
		form                 url.Values
	}{
		{"bad domain", "domain", "must be a valid host name or IP address", websiteForm("domain", "exa mple.com")},
		{"taken domain", "domain", "has already been taken", websiteForm("domain", "EXAMPLE.com")},
		{"password privacy without password", "password", "is needed for password protection (privacy 2)", websiteForm("domain", "new.example", "privacy", "2")},
		{"bad exclude_ips", "exclude_ips", `line 2 (&#34;not-an-ip&#34;) is not an IP address`, websiteForm("domain", "new.example", "exclude_ips", "10.0.0.1\nnot-an-ip")},
		{"bad privacy", "privacy", "must be one of 0, 1, 2", websiteForm("domain", "new.example", "privacy", "7")},
		{"long password", "password", "at most 128", websiteForm("domain", "new.example", "privacy", "2", "password", strings.Repeat("p", 129))},
	}
	for _, r := range refusals {
		p := b.post("/websites", r.form)
		wantStatus(t, r.name, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, `id="`+r.field+`-error">`) || !strings.Contains(p.body, r.message) {
			t.Fatalf("%s: no %q on %s:\n%s", r.name, r.message, r.field, p.body)
		}
		if strings.Contains(r.form.Get("domain"), "new.example") {
			if _, err := e.Repo.WebsiteByDomain(context.Background(), "new.example"); err == nil {
				t.Fatalf("%s: the website was stored anyway", r.name)
			}
		}
	}
	// Text PostgreSQL cannot hold, in any field of any form: a readable 422, nothing stored.
	for _, field := range []string{"domain", "exclude_params", "password"} {
		form := websiteForm("domain", "new.example", "privacy", "2", "password", "open sesame")
		form.Set(field, form.Get(field)+"\x00")
		p := b.post("/websites", form)
		wantStatus(t, "NUL in "+field, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, "The field “"+field+"” must be UTF-8 text without NUL characters") {
			t.Fatalf("NUL in %s: the page does not say so:\n%s", field, p.body)
		}
		if _, err := e.Repo.WebsiteByDomain(context.Background(), "new.example"); err == nil {
			t.Fatalf("NUL in %s: the website was stored anyway", field)
		}
	}
	// What was typed comes back, escaped.
	p = b.post("/websites", websiteForm("domain", `"><script>alert(1)</script>`))
	wantStatus(t, "markup as a domain", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<script>alert(1)") || !strings.Contains(p.body, `value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Fatalf("the typed domain is not refilled escaped:\n%s", p.body)
	}

	edit := fmt.Sprintf("/websites/%d/edit", site.ID)
	editPage := b.get(edit)
	wantStatus(t, "edit page", editPage, http.StatusOK)
	// Both forms advise a longer password; a shorter one ("s3cret" below) is still taken.
	for name, body := range map[string]string{"home": home.body, "edit": editPage.body} {
		if !strings.Contains(body, `<p class="muted small" id="password-advice">Use 8 characters or more.</p>`) ||
			!strings.Contains(body, `aria-describedby="password-advice"`) {
			t.Errorf("no password advice on the %s form", name)
		}
	}
	steps := []struct {
		name string
		form url.Values
		want map[string]any
	}{
		{"privacy 2 with a password", websiteForm("privacy", "2", "password", "s3cret", "email", "1"),
			map[string]any{"privacy": 2.0, "password": true, "exclude_ips": nil, "exclude_params": nil}},
		{"an empty password with privacy 2 keeps it", websiteForm("privacy", "2", "favorite", "1"),
			map[string]any{"privacy": 2.0, "password": true, "favorite": true, "email": 0.0}},
		{"an empty password with privacy 1 removes it", websiteForm("privacy", "1"),
			map[string]any{"privacy": 1.0, "password": false, "favorite": false}},
		{"unticked boxes are 0", url.Values{"privacy": {"0"}},
			map[string]any{"exclude_bots": 0.0, "email": 0.0}},
	}
	for _, s := range steps {
		p := b.post(edit, s.form)
		wantStatus(t, s.name, p, http.StatusSeeOther)
		got := e.apiWebsite(owner, site.ID)
		for k, v := range s.want {
			if got[k] != v {
				t.Errorf("%s: %s = %#v, want %#v", s.name, k, got[k], v)
			}
		}
	}
	p = b.post(edit, websiteForm("privacy", "2"))
	wantStatus(t, "privacy 2 after the password was removed", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.body, "is needed for password protection (privacy 2)") {
		t.Fatalf("no password error:\n%s", p.body)
	}
	before := e.apiWebsite(owner, site.ID)
	if before["privacy"] != 0.0 {
		t.Fatalf("a refused edit changed privacy: %v", before["privacy"])
	}
	wantStatus(t, "edit page of no website", b.get("/websites/999999/edit"), http.StatusNotFound)
	wantStatus(t, "edit page of a bad id", b.get("/websites/x1/edit"), http.StatusNotFound)
	wantStatus(t, "PUT on a form address", b.do(mustRequest(t, "PUT", e.Server.URL+edit)), http.StatusMethodNotAllowed)

	// Favorites come first.
	other := e.Site(owner.Key, "aaa.example")
	if p := b.post(fmt.Sprintf("/websites/%d/favorite", site.ID), url.Values{"favorite": {"1"}}); p.status != http.StatusSeeOther {
		t.Fatalf("favorite: %d", p.status)
	}
	wantStatus(t, "favorite yes", b.post(fmt.Sprintf("/websites/%d/favorite", site.ID), url.Values{"favorite": {"yes"}}), http.StatusUnprocessableEntity)
	home = b.get("/")
	if strings.Index(home.body, "/stats/example.com") > strings.Index(home.body, "/stats/aaa.example") {
		t.Fatal("the favorite is not listed first")
	}

	// Delete asks first, then removes the website and its stats.
	e.Count(other, "2026-03-19", "page", map[string]int64{"/": 1})
	del := fmt.Sprintf("/websites/%d/delete", other)
	confirm := b.get(del)
	wantStatus(t, "delete page", confirm, http.StatusOK)
	if !strings.Contains(confirm.body, "all of its stats") {
		t.Fatal("the delete page does not say what is lost")
	}
	wantStatus(t, "delete", b.post(del, nil), http.StatusSeeOther)
	if status, _ := e.api("GET", fmt.Sprintf("/api/v1/websites/%d", other), owner.Key, nil); status != http.StatusNotFound {
		t.Fatalf("deleted website answers %d", status)
	}
	var rows int
	e.DB.Get(&rows, `SELECT count(*) FROM stats WHERE website_id = $1`, other)
	if rows != 0 {
		t.Fatalf("%d stats rows left after delete", rows)
	}
}

// The home page lists the owner's websites with their visitors and pageviews of the last 30
// days (today included), from the same sums as the API.
func TestHomeTotals(t *testing.T) {
	public, _ := url.Parse("https://stats.example.com")
	e := newEnv(t, func(o *app.Config) { o.PublicURL = public })
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "counted.example")
	// The clock's today is 2026-03-20: 30 days are 2026-02-19 .. 2026-03-20.
	e.Count(id, "2026-02-18", "visitor", map[string]int64{"2026-02-18": 1000})
	e.Count(id, "2026-02-19", "visitor", map[string]int64{"2026-02-19": 7})
	e.Count(id, "2026-03-20", "visitor", map[string]int64{"2026-03-20": 5})
	e.Count(id, "2026-03-20", "pageview", map[string]int64{"2026-03-20": 4321})
	home := e.browser().signIn(owner).get("/")
	if !strings.Contains(home.body, `<td class="num" data-label="Visitors (30 days)">12</td>`) ||
		!strings.Contains(home.body, "4\u202f321") {
		t.Fatalf("home totals wrong:\n%s", home.body)
	}
	if !strings.Contains(home.body, `src=&#34;https://stats.example.com/js/script.js&#34;`) {
		t.Fatal("the snippet does not use PUBLIC_URL")
	}
}

func mustRequest(t testing.TB, method, target string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// The home page lists 50 websites a page; a page number it cannot use (not a number, 0, or
// beyond the bound the API and the stats pages have) shows the first page.
func TestHomePaging(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	for i := 0; i < 51; i++ {
		e.Site(owner.Key, fmt.Sprintf("site%02d.example", i))
	}
	b := e.browser().signIn(owner)
	for _, path := range []string{"/", "/?page=x", "/?page=0", "/?page=1000000001"} {
		home := b.get(path)
		if !strings.Contains(home.body, "site00.example") || strings.Contains(home.body, "site50.example") ||
			!strings.Contains(home.body, `href="/?page=2"`) || strings.Contains(home.body, "Previous") {
			t.Fatalf("%s is not the first page:\n%s", path, home.body)
		}
	}
	second := b.get("/?page=2")
	if !strings.Contains(second.body, "site50.example") || strings.Contains(second.body, "site49.example") ||
		!strings.Contains(second.body, `href="/?page=1"`) || strings.Contains(second.body, "Next") {
		t.Fatalf("the second page:\n%s", second.body)
	}
}
