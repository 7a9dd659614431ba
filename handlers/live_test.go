package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// liveServer is the whole service, the collection endpoint and its flusher included, on a real
// listener and a fresh database, for the generated clients. Every exchange is recorded; when the
// test ends each response is checked against openapi.yaml.
type liveServer struct {
	URL  string
	Key  string // an API key of the user a@example.com
	Day  string // the day (YYYY-MM-DD) on which hits are counted
	repo *repository.Repository
	db   *sqlx.DB

	mu        sync.Mutex
	exchanges []exchange
}

type exchange struct {
	method, target string
	status         int
	header         http.Header
	body           []byte
}

func newLiveServer(t *testing.T) *liveServer {
	t.Helper()
	db, _ := repotest.New(t)
	repo := repository.New(db, time.Now)
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Pinned, so that a run across midnight still counts every hit on one day.
	start := time.Now().UTC()
	service, err := app.New(context.Background(), repo, app.Config{
		FlushInterval: 20 * time.Millisecond,
		BufferMaxKeys: 10_000,
		Now:           func() time.Time { return start },
	}, logger)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	if err := service.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := service.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	s := &liveServer{repo: repo, db: db, Day: start.Format(time.DateOnly)}
	srv := httptest.NewServer(s.record(service.Handler))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { s.validate(t) }) // runs first: after the clients, before the server closes
	s.URL = srv.URL

	u, err := repo.CreateUser(context.Background(), "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if s.Key, err = repo.CreateAPIKey(context.Background(), u.ID); err != nil {
		t.Fatal(err)
	}
	return s
}

// record keeps a copy of every exchange.
func (s *liveServer) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.exchanges = append(s.exchanges, exchange{
			method: r.Method, target: "http://api.test" + r.URL.RequestURI(),
			status: rec.status, header: w.Header().Clone(), body: rec.body.Bytes(),
		})
	})
}

type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) { r.status = status; r.ResponseWriter.WriteHeader(status) }
func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (s *liveServer) validate(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.exchanges {
		body := x.body
		if x.header.Get("Content-Encoding") == "gzip" && x.method != http.MethodHead {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Errorf("%s %s: %v", x.method, x.target, err)
				continue
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Errorf("%s %s: %v", x.method, x.target, err)
				continue
			}
		}
		spectest.ValidateResponse(t, x.method, x.target, x.status, x.header, body)
	}
}

// requireEveryOperation fails unless the clients called every operation of the spec, with the
// statuses given at least once each across all operations.
func (s *liveServer) requireEveryOperation(t *testing.T, statuses ...int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	called := map[string]bool{}
	seen := map[int]bool{}
	for _, x := range s.exchanges {
		called[spectest.OperationID(t, x.method, x.target)] = true
		seen[x.status] = true
	}
	var missing []string
	for _, id := range spectest.OperationIDs(t) {
		if !called[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations never called: %v", missing)
	}
	for _, status := range statuses {
		if !seen[status] {
			t.Errorf("no response with status %d", status)
		}
	}
}
