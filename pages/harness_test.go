package pages_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// failureDelay is the tests' least time for a wrong password (production: one second).
const failureDelay = 60 * time.Millisecond

// today is the pages tests' clock: their ranges (this month, the last 7 days) were written
// for a day well into a month.
var today = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// env is one test's whole service (API, collector and pages; testkit/harness) on its own
// database, served over real HTTP.
type env struct {
	*harness.Env
	public string // PUBLIC_URL's path prefix, "" when unset: where redirects point
}

type envOption func(*app.Config)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	// Jobs an hour apart: the tests flush when they choose.
	options := []harness.Option{harness.At(today), harness.Started(),
		harness.Config(app.Config{FlushInterval: time.Hour, SettingsTTL: time.Hour, FailureDelay: failureDelay})}
	for _, opt := range opts {
		options = append(options, harness.Configure(opt))
	}
	return withPublic(harness.New(t, options...))
}

func withPublic(h *harness.Env) *env {
	e := &env{Env: h}
	if h.Config.PublicURL != nil {
		e.public = h.Config.PublicURL.EscapedPath()
	}
	return e
}

// node is another node of the same service (harness.Env.Node), served over HTTP.
func (e *env) node() *env { return withPublic(e.Node()) }

// api calls the JSON API over HTTP with a key and returns the status and body.
func (e *env) api(method, path, key string, form url.Values) (int, string) {
	e.T.Helper()
	req, err := http.NewRequest(method, e.Server.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// browser is a cookie-keeping HTTP client that does not follow redirects, so tests see them.
type browser struct {
	e      *env
	client *http.Client
	base   string      // what paths are appended to: the service's address, or a proxy's
	header http.Header // sent with every request
	host   string      // the Host header to send, when not the address's
}

func (e *env) browser() *browser {
	return e.browserAt(e.Server.URL)
}

// browserAt is a browser that reaches the service at base (a proxy in front of it, say).
func (e *env) browserAt(base string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.T.Fatal(err)
	}
	return &browser{e: e, base: base, header: http.Header{}, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is one answer.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) page {
	b.e.T.Helper()
	for k, v := range b.header {
		req.Header[k] = v
	}
	if b.host != "" {
		req.Host = b.host
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.e.T.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		b.e.T.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (b *browser) get(path string) page {
	b.e.T.Helper()
	req, err := http.NewRequest("GET", b.base+path, nil)
	if err != nil {
		b.e.T.Fatal(err)
	}
	return b.do(req)
}

// post sends a form as a browser would, with this browser's CSRF token unless the form has one.
func (b *browser) post(path string, form url.Values) page {
	b.e.T.Helper()
	copied := url.Values{}
	for k, v := range form {
		copied[k] = v
	}
	form = copied
	if _, has := form["csrf"]; !has {
		form.Set("csrf", b.token())
	}
	return b.postRaw(path, form)
}

func (b *browser) postRaw(path string, form url.Values) page {
	b.e.T.Helper()
	req, err := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.e.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token reads this browser's CSRF token from a page that has a form: the sign-in page, or the
// home page once signed in.
func (b *browser) token() string {
	b.e.T.Helper()
	p := b.get("/login")
	if p.status == http.StatusSeeOther {
		p = b.get("/")
	}
	if p.status == http.StatusSeeOther { // sent to set up two-factor sign-in first
		p = b.get(strings.TrimPrefix(p.header.Get("Location"), b.e.public))
	}
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		b.e.T.Fatalf("no CSRF token on the page (%d):\n%s", p.status, p.body)
	}
	return m[1]
}

// signIn signs the browser in as a.
func (b *browser) signIn(a harness.User) *browser {
	b.e.T.Helper()
	p := b.post("/login", url.Values{"email": {a.Email}, "password": {a.Password}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != b.e.public+"/" {
		b.e.T.Fatalf("sign in as %s: %d %s\n%s", a.Email, p.status, p.header.Get("Location"), p.body)
	}
	return b
}

// cookie returns the browser's cookie of that name for the path, or nil.
func (b *browser) cookie(path, name string) *http.Cookie {
	u, _ := url.Parse(b.base + path)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// wantStatus fails unless the page has the status.
func wantStatus(t testing.TB, what string, p page, status int) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d\n%.2000s", what, p.status, status, p.body)
	}
}
