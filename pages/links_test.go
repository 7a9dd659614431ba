package pages_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/analytics-service/analytics/app"
)

// pageLinks are the href, src, action and formaction of every element of an HTML page.
func pageLinks(t testing.TB, body string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch a.Key {
				case "href", "src", "action", "formaction":
					out = append(out, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// prefixProxy serves the service under prefix, as an operator's reverse proxy does, and returns
// the proxy's address with the prefix, which is where a browser reaches the service.
func (e *env) prefixProxy(prefix string) string {
	e.T.Helper()
	srv := httptest.NewServer(e.prefixHandler(prefix))
	e.T.Cleanup(srv.Close)
	return srv.URL + prefix
}

// prefixHandler is a reverse proxy to the service that strips prefix from every path and passes
// the rest on (with the service's own Host, as proxies commonly do).
func (e *env) prefixHandler(prefix string) http.Handler {
	e.T.Helper()
	target, err := url.Parse(e.Server.URL)
	if err != nil {
		e.T.Fatal(err)
	}
	return &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.URL.Path = "/" + strings.TrimPrefix(strings.TrimPrefix(pr.In.URL.Path, prefix), "/")
		pr.Out.URL.RawPath = ""
	}}
}

// Behind a proxy that serves the service under /analytics/, with PUBLIC_URL
// https://example.com/analytics: every link, asset and form action of every page reachable
// (the crawl follows each link to a page it has not seen), every Location and every cookie
// path is a path under PUBLIC_URL's prefix, never at its host (a page opened by another name
// must load its assets from there). The proxy strips the prefix, so the service never sees it.
func TestEveryLinkIsUnderPublicURL(t *testing.T) {
	const public = "https://example.com/analytics"
	pub, _ := url.Parse(public)
	e := newEnv(t, func(o *app.Config) { o.PublicURL = pub })
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "public.example")
	e.Site(owner.Key, "private.example", "privacy", "1")
	locked := e.Site(owner.Key, "locked.example", "privacy", "2", "password", "letmein")
	for _, name := range []string{"page", "referrer", "browser", "country"} {
		e.Count(id, "2026-03-19", name, map[string]int64{"value one": 3, "value two": 2})
	}
	e.Count(id, "2026-03-19", "pageview", map[string]int64{"2026-03-19": 5})
	many := map[string]int64{} // more pages than a list shows at once: the list has a pager
	for i := range 60 {
		many[fmt.Sprintf("/p%02d", i)] = int64(i + 1)
	}
	e.Count(id, "2026-03-20", "page", many)
	base := e.prefixProxy("/analytics")

	// under tells whether a link or Location written by the service is a path under
	// PUBLIC_URL's prefix.
	under := func(link string) bool { return strings.HasPrefix(link, "/analytics/") }
	var problems []string
	seen := map[string]bool{} // paths crawled (one query each)
	visited := map[string]int{}
	check := func(b *browser, what string, p page) {
		t.Helper()
		if loc := p.header.Get("Location"); loc != "" && !under(loc) {
			problems = append(problems, fmt.Sprintf("%s: Location %q", what, loc))
		}
		for _, c := range (&http.Response{Header: p.header}).Cookies() {
			if !strings.HasPrefix(c.Path, "/analytics/") {
				problems = append(problems, fmt.Sprintf("%s: cookie %s with path %q", what, c.Name, c.Path))
			}
		}
		if !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
			return
		}
		for _, link := range pageLinks(t, p.body) {
			if !under(link) && !strings.HasPrefix(link, "#") {
				problems = append(problems, fmt.Sprintf("%s: link %q", what, link))
			}
		}
	}
	// crawl fetches path (again, when force is set) and every page it links to that has not
	// been seen yet.
	var crawl func(b *browser, path string, force bool)
	crawl = func(b *browser, path string, force bool) {
		t.Helper()
		u, err := url.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		if seen[u.Path] && !force {
			return
		}
		seen[u.Path] = true
		p := b.get(path)
		visited[fmt.Sprint(p.status)]++
		check(b, "GET "+path, p)
		if !strings.HasPrefix(p.header.Get("Content-Type"), "text/html") {
			return
		}
		for _, link := range pageLinks(t, p.body) {
			if rest, ok := strings.CutPrefix(link, "/analytics"); ok && strings.HasPrefix(rest, "/") {
				crawl(b, rest, false)
			}
		}
	}

	// A stranger: the sign-in page, a public dashboard and its lists, the password form, the
	// 404, 405, 422 and unsubscribe pages, and the sign-in redirect.
	stranger := e.browserAt(base)
	for _, path := range []string{"/", "/login", "/stats/public.example", "/stats/locked.example", "/stats/private.example",
		"/no/such/page", "/stats/public.example/page?from=2026-13-01", "/unsubscribe/1.1.bad", "/favicon.ico",
		"/stats/WWW.Public.Example/page"} {
		crawl(stranger, path, true)
	}
	wrongMethod := stranger.do(mustRequest(t, "PUT", base+"/login"))
	wantStatus(t, "PUT /login", wrongMethod, http.StatusMethodNotAllowed)
	check(stranger, "PUT /login", wrongMethod)
	expired := stranger.postRaw("/websites", url.Values{"domain": {"x.example"}})
	check(stranger, "a form without its token", expired)
	wrong := stranger.post("/stats/locked.example", url.Values{"password": {"wrong"}})
	check(stranger, "a wrong website password", wrong)
	unlocked := stranger.post("/stats/locked.example", url.Values{"password": {"letmein"}})
	wantStatus(t, "the right website password", unlocked, http.StatusSeeOther)
	check(stranger, "the right website password", unlocked)
	if c := setCookie(t, unlocked, fmt.Sprintf("grant_%d", locked)); c == nil || c.Path != "/analytics/stats/locked.example" {
		t.Errorf("grant cookie %+v", c)
	}

	// The owner: signing in, every page the home page leads to, and every form.
	owner1 := e.browserAt(base)
	in := owner1.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}, "next": {"/stats/public.example"}})
	wantStatus(t, "sign in", in, http.StatusSeeOther)
	check(owner1, "sign in", in)
	if loc := in.header.Get("Location"); loc != "/analytics/stats/public.example" {
		t.Errorf("after signing in: Location %q", loc)
	}
	clear(seen)
	crawl(owner1, "/", true)
	crawl(owner1, "/login?next=%2Fstats%2Fpublic.example", true)
	home := owner1.get("/")
	if !strings.Contains(home.body, `src=&#34;`+public+`/js/script.js&#34; data-host=&#34;`+public+`&#34;`) ||
		strings.Contains(home.body, "setup-note") {
		t.Errorf("the snippet is not at PUBLIC_URL, or the page asks to set it:\n%s", home.body)
	}
	for _, step := range []struct {
		path string
		form url.Values
	}{
		{"/websites", url.Values{"domain": {"added.example"}, "privacy": {"0"}}},
		{"/websites", url.Values{"domain": {"not a domain"}, "privacy": {"0"}}}, // refused: the page again
		{fmt.Sprintf("/websites/%d/edit", id), url.Values{"privacy": {"0"}, "email": {"1"}}},
		{fmt.Sprintf("/websites/%d/edit", id), url.Values{"privacy": {"9"}}}, // refused
		{fmt.Sprintf("/websites/%d/favorite", id), url.Values{"favorite": {"1"}}},
		{fmt.Sprintf("/websites/%d/delete", locked), nil},
		{"/account/keys", url.Values{"name": {"ci"}}},
		{"/account/password", url.Values{"current_password": {"wrong"}, "new_password": {"long enough"}, "new_password_again": {"long enough"}}},
		{"/admin/users", url.Values{"email": {"invited@example.com"}}},
		{"/logout", nil},
	} {
		p := owner1.post(step.path, step.form)
		check(owner1, "POST "+step.path, p)
		if p.status == http.StatusSeeOther && p.header.Get("Location") == "" {
			t.Errorf("POST %s: 303 without Location", step.path)
		}
	}
	if c := owner1.cookie("/", "session"); c != nil {
		t.Errorf("still signed in after signing out: %+v", c)
	}

	for _, p := range problems {
		t.Error(p)
	}
	var paths []string
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	t.Logf("crawled %d paths, answers by status %v: %v", len(paths), visited, paths)
	// The crawl must have reached every kind of page.
	for _, want := range []string{"/", "/login", "/stats/public.example", "/stats/public.example/page",
		"/stats/public.example/referrer", fmt.Sprintf("/websites/%d/edit", id), fmt.Sprintf("/websites/%d/delete", id),
		"/stats/locked.example", "/stats/private.example"} {
		if !seen[want] {
			t.Errorf("the owner's crawl never reached %s; it saw %v", want, paths)
		}
	}
	if visited["200"] < 20 || visited["401"] == 0 || visited["404"] == 0 || visited["422"] == 0 || visited["301"] == 0 || visited["303"] == 0 {
		t.Errorf("answers seen by status: %v", visited)
	}
}

// A form posted by an old browser (Origin, no Sec-Fetch-Site) from the service's own public
// address is accepted behind a proxy that passes another Host on; one from elsewhere is not.
func TestFormsFromThePublicOriginAreAccepted(t *testing.T) {
	pub, _ := url.Parse("https://example.com/analytics")
	e := newEnv(t, func(o *app.Config) { o.PublicURL = pub })
	owner := e.UserWithPassword("owner@example.com")
	b := e.browserAt(e.prefixProxy("/analytics"))
	for origin, status := range map[string]int{"https://evil.example": http.StatusForbidden, "https://example.com": http.StatusSeeOther} {
		b.header.Set("Origin", origin)
		p := b.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}})
		if p.status != status {
			t.Errorf("sign-in form from %s: %d, want %d", origin, p.status, status)
		}
	}
}

// X-Forwarded-Proto and X-Forwarded-Host count only from TRUSTED_PROXIES: from anyone else they
// change neither the snippet nor the links nor what the cross-origin check calls this site.
// Without PUBLIC_URL, links are absolute only for a host in ALLOWED_HOSTS, and Location is a
// path.
func TestForwardedHeadersCountOnlyFromTrustedProxies(t *testing.T) {
	forwarded := http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"stats.example.org"},
		"Origin": {"https://stats.example.org"}}
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
			e := newEnv(t, func(o *app.Config) {
				o.AllowedHosts = []string{"stats.example.org"}
				if trusted {
					o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
				}
			})
			owner := e.UserWithPassword("owner@example.com")
			id := e.Site(owner.Key, "a.example")
			b := e.browser()
			b.header = forwarded.Clone()
			in := b.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}})
			if !trusted {
				// The forged Origin does not match the Host the request really has.
				wantStatus(t, "sign-in form with a forged origin", in, http.StatusForbidden)
				b.header.Del("Origin")
				in = b.post("/login", url.Values{"email": {owner.Email}, "password": {owner.Password}})
			}
			wantStatus(t, "sign in", in, http.StatusSeeOther)
			if loc := in.header.Get("Location"); loc != "/" {
				t.Errorf("Location %q, want a path", loc)
			}
			home := b.get("/")
			wantStatus(t, "home", home, http.StatusOK)
			snippetAt, linkBase := e.Server.URL, ""
			if trusted {
				snippetAt, linkBase = "https://stats.example.org", "https://stats.example.org"
			}
			if !strings.Contains(home.body, `src=&#34;`+snippetAt+`/js/script.js&#34;`) {
				t.Errorf("the snippet is not at %s:\n%s", snippetAt, home.body)
			}
			if !strings.Contains(home.body, `class="setup-note"`) || !strings.Contains(home.body, "<code>"+snippetAt+"</code>") {
				t.Errorf("no note to set PUBLIC_URL naming %s:\n%s", snippetAt, home.body)
			}
			for _, path := range []string{"/", "/stats/a.example", fmt.Sprintf("/websites/%d/edit", id), "/no/such/page"} {
				for _, link := range pageLinks(t, b.get(path).body) {
					if !strings.HasPrefix(link, linkBase+"/") && !strings.HasPrefix(link, "#") {
						t.Errorf("%s: link %q, want it under %q", path, link, linkBase+"/")
					}
				}
			}
		})
	}
}

// Without PUBLIC_URL, the client's Host appears in no link of the pages unless it is in
// ALLOWED_HOSTS; the snippet shows the request's address with a note to set PUBLIC_URL.
func TestHTMLLinksWithoutPublicURL(t *testing.T) {
	e := newEnv(t, func(o *app.Config) { o.AllowedHosts = []string{"stats.example.org"} })
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "a.example")
	for host, base := range map[string]string{"evil.example": "", "stats.example.org": "http://stats.example.org"} {
		b := e.browser()
		b.host = host
		b.signIn(owner)
		for _, path := range []string{"/", "/stats/a.example", "/stats/a.example/page", "/no/such/page"} {
			p := b.get(path)
			for _, link := range pageLinks(t, p.body) {
				if !strings.HasPrefix(link, base+"/") && !strings.HasPrefix(link, "#") {
					t.Errorf("Host %s, %s: link %q, want it under %q", host, path, link, base+"/")
				}
			}
		}
		home := b.get("/")
		if !strings.Contains(home.body, `src=&#34;http://`+host+`/js/script.js&#34;`) || !strings.Contains(home.body, "Set <code>PUBLIC_URL</code>") {
			t.Errorf("Host %s: the snippet is not at the request's address with a note:\n%s", host, home.body)
		}
	}
}
