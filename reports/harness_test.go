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
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// publicURL is the PUBLIC_URL of the tests: https, so messages carry one-click unsubscribe.
var publicURL = &url.URL{Scheme: "https", Host: "stats.example.test"}

// today is the reports tests' clock: the first of a month, when a monthly report falls due.
var today = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// env is one test's service (testkit/harness) with an SMTP server. The service's own reporter
// is not used (each test makes the one it needs), nor are its background jobs started: only its
// handler serves, for the unsubscribe links and the API.
type env struct {
	*harness.Env
	smtp   *smtptest.Server
	public *url.URL // the PUBLIC_URL of e.reporter's links
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvAt(t, publicURL, nil)
}

// newEnvAt is an env whose reports link to public, and whose service runs with PUBLIC_URL
// servicePublic (nil: unset).
func newEnvAt(t testing.TB, public, servicePublic *url.URL) *env {
	t.Helper()
	h := harness.New(t, harness.At(today), harness.Config(app.Config{
		PasswordHasher: func(string) (string, error) { return "x", nil }, PublicURL: servicePublic,
	}))
	return &env{Env: h, smtp: smtptest.Start(t, smtptest.Options{}), public: public}
}

// mailer is a Mailer for the env's SMTP server (STARTTLS, AUTH), trusting its certificate.
func (e *env) mailer(smtpURL string) *reports.Mailer {
	e.T.Helper()
	m, err := reports.NewMailer(smtpURL, "Analytics <reports@example.test>")
	if err != nil {
		e.T.Fatal(err)
	}
	m.TLSConfig = e.smtp.ClientTLS
	return m
}

// reporter is a Reporter of the env on repo (another process's connection, when it is one),
// sending to smtpURL ("" sends nothing), with its own metrics registry.
func (e *env) reporter(repo *repository.Repository, smtpURL string) (*reports.Reporter, *prometheus.Registry) {
	e.T.Helper()
	return e.reporterLinking(repo, smtpURL, reports.Links{Base: e.public})
}

// reporterLinking is a reporter whose links are links (Base nil: PUBLIC_URL is unset).
func (e *env) reporterLinking(repo *repository.Repository, smtpURL string, links reports.Links) (*reports.Reporter, *prometheus.Registry) {
	e.T.Helper()
	var m *reports.Mailer
	if smtpURL != "" {
		m = e.mailer(smtpURL)
	}
	reg := prometheus.NewRegistry()
	r := reports.New(reports.Config{
		Repo: repo, Location: time.UTC, Links: links, Mailer: m,
		Now: e.Clock.Now, Log: slog.New(slog.NewJSONHandler(e.Logs, nil)),
	}, reg)
	return r, reg
}

// otherProcess opens a second connection pool to the same database, as another node would.
func (e *env) otherProcess() *repository.Repository {
	e.T.Helper()
	db, err := repository.Open(context.Background(), e.DBURL)
	if err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { db.Close() })
	return repository.New(db, e.Clock.Now)
}

// site creates a website through the API, at the env's current time, with its e-mail reports
// on (1) or off (0).
func (e *env) site(o harness.User, domain string, email int) int64 {
	e.T.Helper()
	return e.Site(o.Key, domain, "email", fmt.Sprint(email))
}

// pageview counts one day's pageviews of a page, and as many visits from a referrer.
func (e *env) pageview(siteID int64, day, page, referrer string, n int64) {
	e.Count(siteID, day, "pageview", map[string]int64{day: n})
	e.Count(siteID, day, "page", map[string]int64{page: n})
	e.Count(siteID, day, "visitor", map[string]int64{day: n})
	e.Count(siteID, day, "referrer", map[string]int64{referrer: n})
}

// apiStats returns the entries of GET /api/v1/stats for a range, all of them.
func (e *env) apiStats(o harness.User, siteID int64, name, from, to string) []repository.StatEntry {
	e.T.Helper()
	res := e.Do(harness.Request{Method: http.MethodGet, Path: fmt.Sprintf("/api/v1/stats/%d?name=%s&from=%s&to=%s&per_page=100", siteID, name, from, to), Key: o.Key})
	if res.Status != http.StatusOK {
		e.T.Fatalf("stats: %d %s", res.Status, res.Body)
	}
	var body struct {
		Data []repository.StatEntry `json:"data"`
		Meta struct{ Total int }    `json:"meta"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		e.T.Fatal(err)
	}
	if body.Meta.Total > 100 {
		e.T.Fatalf("more than one page of %s", name)
	}
	return body.Data
}

func (e *env) apiSum(o harness.User, siteID int64, name, from, to string) int64 {
	var sum int64
	for _, s := range e.apiStats(o, siteID, name, from, to) {
		sum += s.Count
	}
	return sum
}

// website reads a website through the API.
func (e *env) website(o harness.User, id int64) map[string]any {
	e.T.Helper()
	res := e.Do(harness.Request{Method: http.MethodGet, Path: fmt.Sprintf("/api/v1/websites/%d", id), Key: o.Key})
	if res.Status != http.StatusOK {
		e.T.Fatalf("website %d: %d %s", id, res.Status, res.Body)
	}
	var body struct{ Data map[string]any }
	if err := json.Unmarshal(res.Body, &body); err != nil {
		e.T.Fatal(err)
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
	e.T.Helper()
	var out []delivery
	if err := e.DB.Select(&out, `SELECT user_id, period, period_start::text AS start, status, attempts, last_error
		FROM report_deliveries ORDER BY user_id, period, period_start`); err != nil {
		e.T.Fatal(err)
	}
	return out
}

func tick(t testing.TB, r *reports.Reporter) {
	t.Helper()
	if err := r.Tick(context.Background()); err != nil {
		t.Fatalf("tick: %v", err)
	}
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
