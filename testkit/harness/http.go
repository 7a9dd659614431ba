package harness

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/testkit"
)

// Request is one HTTP request of a test.
type Request struct {
	Method  string // GET when empty
	Path    string // with the query
	Key     string // an API key; "" sends no Authorization
	Form    url.Values
	Body    string // the raw body, when Form is nil
	Headers map[string]string
	Remote  string // the TCP peer, "192.0.2.1:1234" when empty
}

// Response is the answer to a Request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object, for assertions.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

// Do sends a request through the service's handler (every path: API, collector, pages) and
// fails the test when the answer is not one openapi.yaml declares for it.
func (e *Env) Do(r Request) Response {
	e.T.Helper()
	return e.DoRequest(e.request(r))
}

// DoRequest is Do for a request the test built itself (httptest.NewRequest).
func (e *Env) DoRequest(req *http.Request) Response {
	e.T.Helper()
	rec := httptest.NewRecorder()
	e.App.Handler.ServeHTTP(rec, req)
	res := Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	spectest.ValidateResponse(e.T, req.Method, "http://api.test"+req.URL.RequestURI(), res.Status, res.Header, res.Body)
	return res
}

func (e *Env) request(r Request) *http.Request {
	e.T.Helper()
	body := r.Body
	if r.Form != nil {
		body = r.Form.Encode()
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req := httptest.NewRequest(method, "http://api.test"+r.Path, strings.NewReader(body))
	if method == http.MethodConnect {
		// httptest reads an absolute target of CONNECT as an authority; a client sending a
		// path sends it as itself ("CONNECT /api/v1/websites HTTP/1.1").
		u, err := url.ParseRequestURI(r.Path)
		if err != nil {
			e.T.Fatalf("CONNECT %q: %v", r.Path, err)
		}
		req.URL, req.RequestURI = u, r.Path
	}
	if r.Form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	if host := r.Headers["Host"]; host != "" {
		req.Host = host
	}
	if r.Remote != "" {
		req.RemoteAddr = r.Remote
	}
	return req
}

// Metrics reads the service's /metrics, as a scraper on the same host does.
func (e *Env) Metrics() testkit.Metrics {
	e.T.Helper()
	res := e.Do(Request{Path: "/metrics", Remote: "127.0.0.1:9100"})
	if res.Status != http.StatusOK {
		e.T.Fatalf("GET /metrics: %d %s", res.Status, res.Body)
	}
	return testkit.ReadMetrics(e.T, strings.NewReader(string(res.Body)))
}

// Metric is the value of a metric on /metrics: the sum of its series whose labels include the
// given name, value pairs; 0 when there is none.
func (e *Env) Metric(name string, labels ...string) float64 {
	e.T.Helper()
	return e.Metrics().Value(name, labels...)
}
