package reports_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// publicURL is the PUBLIC_URL of the tests: https, so messages carry one-click unsubscribe.
var publicURL = &url.URL{Scheme: "https", Host: "stats.example.test"}

// env is one test's database, API server (with the unsubscribe links mounted) and SMTP server.
type env struct {
	t      testing.TB
	db     *sqlx.DB
	dbURL  string
	repo   *repository.Repository
	clock  *testkit.Clock
	smtp   *smtptest.Server
	server http.Handler
	logs   *testkit.SyncBuffer
	sites  *ingest.Websites // the service's cache of website settings, which every change refreshes
	public *url.URL         // the PUBLIC_URL of e.reporter's links
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvAt(t, publicURL, nil)
}

// newEnvAt is an env whose reports link to public, and whose service runs with PUBLIC_URL
// servicePublic (nil: unset).
func newEnvAt(t testing.TB, public, servicePublic *url.URL) *env {
	t.Helper()
	db, dbURL := repotest.New(t)
	clk := testkit.NewClock(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	repo := repository.New(db, clk.Now)
	logs := &testkit.SyncBuffer{}
	// The service's own reporter is not used (each test makes the one it needs), nor are its
	// background jobs started: only its handler serves, for the unsubscribe links and the API.
	service, err := app.New(context.Background(), repo, app.Config{
		Now: clk.Now, PasswordHasher: func(string) (string, error) { return "x", nil }, PublicURL: servicePublic,
	}, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, db: db, dbURL: dbURL, repo: repo, clock: clk, smtp: smtptest.Start(t, smtptest.Options{}),
		server: service.Handler, logs: logs, sites: service.Pipeline.Websites, public: public}
}

// mailer is a Mailer for the env's SMTP server (STARTTLS, AUTH), trusting its certificate.
func (e *env) mailer(smtpURL string) *reports.Mailer {
	e.t.Helper()
	m, err := reports.NewMailer(smtpURL, "Analytics <reports@example.test>")
	if err != nil {
		e.t.Fatal(err)
	}
	m.TLSConfig = e.smtp.ClientTLS
	return m
}

// reporter is a Reporter of the env on repo (another process's connection, when it is one),
// sending to smtpURL ("" sends nothing), with its own metrics registry.
func (e *env) reporter(repo *repository.Repository, smtpURL string) (*reports.Reporter, *prometheus.Registry) {
	e.t.Helper()
	return e.reporterLinking(repo, smtpURL, reports.Links{Base: e.public})
}

// reporterLinking is a reporter whose links are links (Base nil: PUBLIC_URL is unset).
func (e *env) reporterLinking(repo *repository.Repository, smtpURL string, links reports.Links) (*reports.Reporter, *prometheus.Registry) {
	e.t.Helper()
	var m *reports.Mailer
	if smtpURL != "" {
		m = e.mailer(smtpURL)
	}
	reg := prometheus.NewRegistry()
	r := reports.New(reports.Config{
		Repo: repo, Location: time.UTC, Links: links, Mailer: m,
		Now: e.clock.Now, Log: slog.New(slog.NewJSONHandler(e.logs, nil)),
	}, reg)
	return r, reg
}

// otherProcess opens a second connection pool to the same database, as another node would.
func (e *env) otherProcess() *repository.Repository {
	e.t.Helper()
	db, err := repository.Open(context.Background(), e.dbURL)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return repository.New(db, e.clock.Now)
}

type owner struct {
	repository.User
	key string
}

func (e *env) owner(email string) owner {
	e.t.Helper()
	u, err := e.repo.CreateUser(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	key, err := e.repo.CreateAPIKey(context.Background(), u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return owner{User: u, key: key}
}

// site creates a website through the API, at the env's current time.
func (e *env) site(o owner, domain string, email int) int64 {
	e.t.Helper()
	res := e.api(http.MethodPost, "/api/v1/websites", o.key, url.Values{"domain": {domain}, "email": {fmt.Sprint(email)}})
	if res.Code != http.StatusCreated {
		e.t.Fatalf("create %s: %d %s", domain, res.Code, res.Body)
	}
	var body struct {
		Data struct{ ID int64 } `json:"data"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		e.t.Fatal(err)
	}
	return body.Data.ID
}

// count adds to a daily counter, as the ingest flusher does.
func (e *env) count(siteID int64, name, day, value string, n int64) {
	e.t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
		{WebsiteID: siteID, Name: name, Date: d, Value: value, Count: n},
	}}, 0); err != nil {
		e.t.Fatal(err)
	}
}

// pageview counts one day's pageviews of a page, and as many visits from a referrer.
func (e *env) pageview(siteID int64, day, page, referrer string, n int64) {
	e.count(siteID, "pageview", day, day, n)
	e.count(siteID, "page", day, page, n)
	e.count(siteID, "visitor", day, day, n)
	e.count(siteID, "referrer", day, referrer, n)
}

// api sends a request through the real API (validated against openapi.yaml).
func (e *env) api(method, path, key string, form url.Values) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, "http://api.test"+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	e.server.ServeHTTP(rec, req)
	spectest.ValidateResponse(e.t, method, "http://api.test"+path, rec.Code, rec.Header(), rec.Body.Bytes())
	return rec
}

// apiStats returns the entries of GET /api/v1/stats for a range, all of them.
func (e *env) apiStats(o owner, siteID int64, name, from, to string) []repository.StatEntry {
	e.t.Helper()
	res := e.api(http.MethodGet, fmt.Sprintf("/api/v1/stats/%d?name=%s&from=%s&to=%s&per_page=100", siteID, name, from, to), o.key, nil)
	if res.Code != http.StatusOK {
		e.t.Fatalf("stats: %d %s", res.Code, res.Body)
	}
	var body struct {
		Data []repository.StatEntry `json:"data"`
		Meta struct{ Total int }    `json:"meta"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		e.t.Fatal(err)
	}
	if body.Meta.Total > 100 {
		e.t.Fatalf("more than one page of %s", name)
	}
	return body.Data
}

func (e *env) apiSum(o owner, siteID int64, name, from, to string) int64 {
	var sum int64
	for _, s := range e.apiStats(o, siteID, name, from, to) {
		sum += s.Count
	}
	return sum
}

// website reads a website through the API.
func (e *env) website(o owner, id int64) map[string]any {
	e.t.Helper()
	res := e.api(http.MethodGet, fmt.Sprintf("/api/v1/websites/%d", id), o.key, nil)
	if res.Code != http.StatusOK {
		e.t.Fatalf("website %d: %d %s", id, res.Code, res.Body)
	}
	var body struct{ Data map[string]any }
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		e.t.Fatal(err)
	}
	return body.Data
}

// deliveries reads the report rows.
type delivery struct {
	UserID    int64   `db:"user_id"`
	Period    string  `db:"period"`
	Start     string  `db:"start"`
	Status    string  `db:"status"`
	Attempts  int     `db:"attempts"`
	LastError *string `db:"last_error"`
}

func (e *env) deliveries() []delivery {
	e.t.Helper()
	var out []delivery
	if err := e.db.Select(&out, `SELECT user_id, period, period_start::text AS start, status, attempts, last_error
		FROM report_deliveries ORDER BY user_id, period, period_start`); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func tick(t testing.TB, r *reports.Reporter) {
	t.Helper()
	if err := r.Tick(context.Background()); err != nil {
		t.Fatalf("tick: %v", err)
	}
}

func metric(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			m := f.GetMetric()[0]
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// mail is a received message with its two parts decoded.
type mail struct {
	header map[string][]string
	text   string
	html   string
}

func (m mail) get(name string) string {
	if v := m.header[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func decode(t testing.TB, r smtptest.Received) mail {
	t.Helper()
	msg := r.Parse(t)
	out := mail{header: msg.Header}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		t.Fatalf("Content-Type %q, want multipart/alternative (%v)", msg.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(part)
		if err != nil {
			t.Fatal(err)
		}
		if part.Header.Get("Content-Transfer-Encoding") == "base64" {
			if body, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(body), "\r\n", "")); err != nil {
				t.Fatal(err)
			}
		}
		partType, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch partType {
		case "text/plain":
			out.text = strings.ReplaceAll(string(body), "\r\n", "\n")
		case "text/html":
			out.html = strings.ReplaceAll(string(body), "\r\n", "\n")
		default:
			t.Fatalf("unexpected part %s", partType)
		}
	}
	if out.text == "" || out.html == "" {
		t.Fatalf("want a text and an HTML part:\n%s", r.Data)
	}
	return out
}
