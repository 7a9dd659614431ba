package harness

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/analytics-service/analytics/handlers/spectest"
)

// Exchange is one request a Started env's server answered, as the client saw it (the body
// decompressed).
type Exchange struct {
	Method, Target string // Target is "http://api.test" and the request URI
	Status         int
	Header         http.Header
	Body           []byte
}

// recording keeps every exchange of a real server, so that when the test ends each answer is
// checked against openapi.yaml, as Do checks its answer at once.
type recording struct {
	mu        sync.Mutex
	exchanges []Exchange
}

// serve starts the real HTTP server of a Started env.
func (e *Env) serve() {
	e.T.Helper()
	rec := &recording{}
	e.recording = rec
	e.Server = httptest.NewServer(rec.wrap(e.App.Handler))
	e.T.Cleanup(e.Server.Close)
	// Registered last, so run first: after the test's clients, before the server closes.
	e.T.Cleanup(func() { rec.validate(e.T) })
}

// Exchanges are the requests the env's real server answered so far (Started envs only).
func (e *Env) Exchanges() []Exchange {
	if e.recording == nil {
		return nil
	}
	e.recording.mu.Lock()
	defer e.recording.mu.Unlock()
	return append([]Exchange(nil), e.recording.exchanges...)
}

func (r *recording) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, req)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.exchanges = append(r.exchanges, Exchange{
			Method: req.Method, Target: "http://api.test" + req.URL.RequestURI(),
			Status: rec.status, Header: w.Header().Clone(), Body: rec.body.Bytes(),
		})
	})
}

func (r *recording) validate(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.exchanges {
		body := x.Body
		if x.Header.Get("Content-Encoding") == "gzip" && x.Method != http.MethodHead && len(body) > 0 {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Errorf("%s %s: %v", x.Method, x.Target, err)
				continue
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Errorf("%s %s: %v", x.Method, x.Target, err)
				continue
			}
		}
		spectest.ValidateResponse(t, x.Method, x.Target, x.Status, x.Header, body)
	}
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

// Flush lets a streamed answer through the recording.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
