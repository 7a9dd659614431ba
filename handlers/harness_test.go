package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// env is one test's service on its own fresh database. Its background jobs do not run: the API
// needs none of them.
type env struct {
	t       testing.TB
	db      *sqlx.DB
	repo    *repository.Repository
	service *app.App
	e       http.Handler
	clock   *testkit.Clock
	logs    *bytes.Buffer
}

func newEnv(t testing.TB, opts ...func(*app.Config)) *env {
	t.Helper()
	db, _ := repotest.New(t)
	clk := testkit.NewClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	repo := repository.New(db, clk.Now)
	logs := &bytes.Buffer{}
	cfg := app.Config{Now: clk.Now}
	for _, opt := range opts {
		opt(&cfg)
	}
	service, err := app.New(context.Background(), repo, cfg, slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, nil)))
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	return &env{t: t, db: db, repo: repo, service: service, e: service.Handler, clock: clk, logs: logs}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// newBatchID returns a fresh id for AddVisitBatch.
func newBatchID() string { return uuid.NewString() }

// in returns the env reporting to t (a subtest's), so a failure stops the right test.
func (e *env) in(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

// user creates a user with one API key and returns the key.
func (e *env) user(email string) string {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.repo.CreateUser(ctx, email)
	if err != nil {
		e.t.Fatalf("create user: %v", err)
	}
	key, err := e.repo.CreateAPIKey(ctx, u.ID)
	if err != nil {
		e.t.Fatalf("create key: %v", err)
	}
	return key
}

// request is one HTTP request of a test.
type request struct {
	method  string
	path    string // with query
	key     string // "" sends no Authorization
	form    url.Values
	body    string // raw body, when form is nil
	headers map[string]string
	remote  string // the TCP peer, "192.0.2.1:1234" when empty
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into a generic value for assertions.
func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.body)
	}
	return v
}

// do sends a request through the real router and validates the response against openapi.yaml.
func (e *env) do(r request) response {
	e.t.Helper()
	body := r.body
	if r.form != nil {
		body = r.form.Encode()
	}
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	req := httptest.NewRequest(method, "http://api.test"+r.path, strings.NewReader(body))
	if method == http.MethodConnect {
		// httptest reads an absolute target of CONNECT as an authority; a client sending a
		// path sends it as itself ("CONNECT /api/v1/websites HTTP/1.1").
		u, err := url.ParseRequestURI(r.path)
		if err != nil {
			e.t.Fatalf("CONNECT %q: %v", r.path, err)
		}
		req.URL, req.RequestURI = u, r.path
	}
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	if host := r.headers["Host"]; host != "" {
		req.Host = host
	}
	if r.remote != "" {
		req.RemoteAddr = r.remote
	}
	rec := httptest.NewRecorder()
	e.e.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	spectest.ValidateResponse(e.t, method, "http://api.test"+r.path, res.status, res.header, res.body)
	return res
}

// want checks a status and, on errors, the contract's error body.
func want(t testing.TB, res response, status int) map[string]any {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	body := res.json(t)
	if status >= 400 {
		if got := body["status"]; got != float64(status) {
			t.Fatalf("body status %v, want %d", got, status)
		}
		if _, has := body["errors"]; has != (status == http.StatusUnprocessableEntity) {
			t.Fatalf("errors present=%v on a %d: %s", has, status, res.body)
		}
	}
	return body
}

// wantField checks a 422 that names exactly the given field.
func wantField(t testing.TB, res response, field string) {
	t.Helper()
	body := want(t, res, http.StatusUnprocessableEntity)
	errs, _ := body["errors"].(map[string]any)
	if len(errs) != 1 || errs[field] == nil {
		t.Fatalf("errors %v, want exactly the field %q", errs, field)
	}
	msgs, _ := errs[field].([]any)
	if len(msgs) == 0 || msgs[0] == "" {
		t.Fatalf("no message for %q: %v", field, errs)
	}
}
