package pages_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
	"github.com/analytics-service/analytics/website"
)

// failureDelay is the tests' least time for a wrong password (production: one second).
const failureDelay = 60 * time.Millisecond

// env is one test's whole service (API, collector and pages) on its own database, served over
// real HTTP.
type env struct {
	t        testing.TB
	db       *sqlx.DB
	repo     *repository.Repository
	srv      *httptest.Server
	pipeline *ingest.Pipeline
	app      *app.App
	registry *prometheus.Registry
	clock    *testkit.Clock
	logs     *testkit.SyncBuffer
	cfg      app.Config
	public   string // PUBLIC_URL's path prefix, "" when unset: where redirects point
}

type envOption func(*app.Config)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	db, _ := repotest.New(t)
	clk := testkit.NewClock(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC))
	// Jobs an hour apart: the tests flush when they choose.
	cfg := app.Config{Now: clk.Now, FlushInterval: time.Hour, SettingsTTL: time.Hour, FailureDelay: failureDelay}
	for _, opt := range opts {
		opt(&cfg)
	}
	e := &env{t: t, db: db, repo: repository.New(db, clk.Now), clock: clk, logs: &testkit.SyncBuffer{}, cfg: cfg}
	e.start()
	return e
}

// node is another node of the same service: its own app.New and HTTP server on the same
// database and clock, as behind a load balancer.
func (e *env) node() *env {
	e.t.Helper()
	n := &env{t: e.t, db: e.db, repo: repository.New(e.db, e.clock.Now), clock: e.clock, logs: e.logs, cfg: e.cfg}
	n.cfg.Registry = nil // each node has its own metrics
	n.start()
	return n
}

// start builds the service from e.cfg and serves it over HTTP until the test ends.
func (e *env) start() {
	e.t.Helper()
	ctx := context.Background()
	service, err := app.New(ctx, e.repo, e.cfg, slog.New(slog.NewJSONHandler(e.logs, nil)))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := service.Start(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = service.Stop(context.Background()) })
	e.srv = httptest.NewServer(service.Handler)
	e.t.Cleanup(e.srv.Close)
	e.pipeline, e.registry, e.app = service.Pipeline, service.Registry, service
	if e.cfg.PublicURL != nil {
		e.public = e.cfg.PublicURL.EscapedPath()
	}
}

// metric is the sum of the series of a counter or gauge whose labels include the given
// name=value pairs.
func (e *env) metric(name string, labels ...string) float64 {
	e.t.Helper()
	families, err := e.registry.Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue series
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

// account is a user who can sign in, with an API key.
type account struct {
	id       int64
	email    string
	password string
	key      string
}

func (e *env) account(email string) account {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.repo.CreateUser(ctx, email)
	if err != nil {
		e.t.Fatal(err)
	}
	key, err := e.repo.CreateAPIKey(ctx, u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	password := "pw of " + email
	hash, err := website.HashPassword(password)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.repo.SetUserPassword(ctx, email, hash); err != nil {
		e.t.Fatal(err)
	}
	return account{id: u.ID, email: email, password: password, key: key}
}

// api calls the JSON API with a key and returns the status and body.
func (e *env) api(method, path, key string, form url.Values) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// site creates a website through the API and returns its id.
func (e *env) site(a account, domain string, kv ...string) int64 {
	e.t.Helper()
	form := url.Values{"domain": {domain}}
	for i := 0; i < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	status, body := e.api("POST", "/api/v1/websites", a.key, form)
	if status != http.StatusCreated {
		e.t.Fatalf("create %s: %d %s", domain, status, body)
	}
	w, err := e.repo.WebsiteByDomain(context.Background(), domain)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.ID
}

// stats adds counters to a website, as a flush would.
func (e *env) stats(id int64, day string, name string, values map[string]int64) {
	e.t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		e.t.Fatal(err)
	}
	var counts []repository.StatCount
	for v, n := range values {
		counts = append(counts, repository.StatCount{WebsiteID: id, Name: name, Date: d, Value: v, Count: n})
	}
	if _, err := e.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		e.t.Fatal(err)
	}
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
	return e.browserAt(e.srv.URL)
}

// browserAt is a browser that reaches the service at base (a proxy in front of it, say).
func (e *env) browserAt(base string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
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
	b.e.t.Helper()
	for k, v := range b.header {
		req.Header[k] = v
	}
	if b.host != "" {
		req.Host = b.host
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (b *browser) get(path string) page {
	b.e.t.Helper()
	req, err := http.NewRequest("GET", b.base+path, nil)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form as a browser would, with this browser's CSRF token unless the form has one.
func (b *browser) post(path string, form url.Values) page {
	b.e.t.Helper()
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
	b.e.t.Helper()
	req, err := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token reads this browser's CSRF token from a page that has a form: the sign-in page, or the
// home page once signed in.
func (b *browser) token() string {
	b.e.t.Helper()
	p := b.get("/login")
	if p.status == http.StatusSeeOther {
		p = b.get("/")
	}
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		b.e.t.Fatalf("no CSRF token on the page (%d):\n%s", p.status, p.body)
	}
	return m[1]
}

// signIn signs the browser in as a.
func (b *browser) signIn(a account) *browser {
	b.e.t.Helper()
	p := b.post("/login", url.Values{"email": {a.email}, "password": {a.password}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != b.e.public+"/" {
		b.e.t.Fatalf("sign in as %s: %d %s\n%s", a.email, p.status, p.header.Get("Location"), p.body)
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

// repoDB is the test's database, for checks of what is stored.
func (e *env) repoDB() *sqlx.DB { return e.db }
