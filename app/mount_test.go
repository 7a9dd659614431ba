package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers/spectest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit"
	"github.com/analytics-service/analytics/testkit/harness"
)

// newService is the service built from cfg on its own database (testkit/harness), not started.
func newService(t *testing.T, cfg app.Config) (*app.App, *repository.Repository) {
	t.Helper()
	e := harness.New(t, harness.Config(cfg))
	return e.App, e.Repo
}

func serve(h http.Handler, method, target, remote string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	req.RemoteAddr = remote
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Health, readiness, metrics and the tracker script are only read: GET and HEAD answer, every
// other method is 405 with an Allow of exactly those two and the service's error body.
func TestReadOnlyEndpoints(t *testing.T) {
	a, _ := newService(t, app.Config{})
	for _, path := range []string{"/healthz", "/readyz", "/readyz/collect", "/metrics", "/js/script.js"} {
		if res := serve(a.Handler, http.MethodGet, path, "127.0.0.1:5000", nil); res.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, res.Code)
		}
		if res := serve(a.Handler, http.MethodHead, path, "127.0.0.1:5000", nil); res.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d", path, res.Code)
		}
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "TRACE", "OPTIONS", "PROPFIND"} {
			res := serve(a.Handler, method, path, "127.0.0.1:5000", nil)
			var body struct {
				Message string `json:"message"`
				Status  int    `json:"status"`
			}
			if res.Code != http.StatusMethodNotAllowed || res.Header().Get("Allow") != "GET, HEAD" ||
				json.Unmarshal(res.Body.Bytes(), &body) != nil || body.Status != 405 || body.Message == "" {
				t.Errorf("%s %s: %d, Allow %q, body %s", method, path, res.Code, res.Header().Get("Allow"), res.Body)
			}
		}
	}
}

// /metrics answers only METRICS_ALLOW (default loopback and the private ranges), the client
// found through the trusted proxies only.
func TestMetricsOnlyFromAllowedAddresses(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	a, _ := newService(t, app.Config{TrustedProxies: proxies})
	cases := []struct {
		remote, forwarded string
		want              int
	}{
		{"127.0.0.1:5000", "", http.StatusOK},
		{"[::1]:5000", "", http.StatusOK},
		{"192.168.1.20:5000", "", http.StatusOK},
		{"203.0.113.9:5000", "", http.StatusForbidden},
		// A stranger cannot pass as loopback by sending X-Forwarded-For itself.
		{"203.0.113.9:5000", "127.0.0.1", http.StatusForbidden},
		// Through the proxy, the client is the stranger, not the proxy.
		{"10.0.0.1:5000", "203.0.113.9", http.StatusForbidden},
		{"10.0.0.1:5000", "192.168.1.20", http.StatusOK},
	}
	for _, c := range cases {
		res := serve(a.Handler, http.MethodGet, "/metrics", c.remote, map[string]string{"X-Forwarded-For": c.forwarded})
		spectest.ValidateResponse(t, http.MethodGet, "http://analytics.test/metrics", res.Code, res.Header(), res.Body.Bytes())
		if res.Code != c.want {
			t.Errorf("from %s (X-Forwarded-For %q): %d, want %d", c.remote, c.forwarded, res.Code, c.want)
		}
		if res.Code == http.StatusForbidden && strings.Contains(res.Body.String(), "analytics_") {
			t.Errorf("a refused scrape got metrics: %s", res.Body)
		}
	}

	own, _ := newService(t, app.Config{MetricsAllow: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	if res := serve(own.Handler, http.MethodGet, "/metrics", "203.0.113.9:5000", nil); res.Code != http.StatusOK {
		t.Errorf("METRICS_ALLOW=203.0.113.0/24, from 203.0.113.9: %d", res.Code)
	}
	if res := serve(own.Handler, http.MethodGet, "/metrics", "127.0.0.1:5000", nil); res.Code != http.StatusForbidden {
		t.Errorf("METRICS_ALLOW=203.0.113.0/24, from loopback: %d", res.Code)
	}
}

// No metric names a website: not as a label, not as a label's value.
func TestNoMetricNamesAWebsite(t *testing.T) {
	a, repo := newService(t, app.Config{Now: func() time.Time { return time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC) }})
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	w, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "secret-shop.example"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Pipeline.Websites.Refresh(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"https://secret-shop.example/a", "https://untracked.example/b", "not a url"} {
		req := httptest.NewRequest(http.MethodPost, "/api/event", strings.NewReader(`{"page":"`+page+`"}`))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36")
		a.Handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	if err := a.Pipeline.Flusher.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range testkit.GatherMetrics(t, a.Registry) {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				name, value := strings.ToLower(l.GetName()), strings.ToLower(l.GetValue())
				if strings.Contains(name, "website") || strings.Contains(name, "domain") || strings.Contains(name, "host") ||
					strings.Contains(value, "example") || strings.Contains(value, "/a") {
					t.Errorf("%s has label %s=%q", f.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
}
