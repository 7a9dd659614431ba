package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit"
)

// Hundreds of wrong API keys at once from one address: no more are looked up than the limit
// on failed authentications allows (bursts of ten), every other one is refused with 429 and
// counted; right keys from elsewhere, even many at once, work as before.
func TestAPIKeyGuessesInParallel(t *testing.T) {
	e := newEnv(t, func(o *app.Config) {
		o.AuthFailLimit = 1 // bursts of 10
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	key := e.User("a@example.com").Key
	srv := httptest.NewServer(e.App.Handler)
	t.Cleanup(srv.Close)
	get := func(key, addr string) (int, http.Header, []byte) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/websites", nil)
		if err != nil {
			t.Error(err)
			return 0, nil, nil
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("X-Forwarded-For", addr)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, nil, nil
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, body
	}
	// parallel sends n requests at once and counts the answers by status.
	parallel := func(n int, key func(i int) string, addr string) (map[int]int, time.Duration) {
		var mu sync.Mutex
		statuses := map[int]int{}
		wall := testkit.AtOnce(n, func(i int) {
			status, header, body := get(key(i), addr)
			if status == http.StatusTooManyRequests {
				var e struct {
					Message string
					Status  int
				}
				if json.Unmarshal(body, &e) != nil || e.Status != 429 || e.Message == "" || header.Get("Retry-After") == "" {
					t.Errorf("a 429 without Retry-After or the error body: %v %s", header, body)
				}
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
		return statuses, wall
	}

	const sent = 500
	refused := e.Metric("analytics_rate_limited_total", "limiter", "api_auth_failures")
	statuses, wall := parallel(sent, func(i int) string { return fmt.Sprintf("pa_guess%d", i) }, "203.0.113.1")
	evaluated, limited := statuses[http.StatusUnauthorized], statuses[http.StatusTooManyRequests]
	t.Logf("API keys, one address: sent %d, evaluated %d, refused %d, wall time %v", sent, evaluated, limited, wall.Round(time.Millisecond))
	if evaluated+limited != sent {
		t.Fatalf("answers %v", statuses)
	}
	if evaluated > 10 {
		t.Fatalf("%d wrong keys of one address looked up, the limit is 10", evaluated)
	}
	if got := e.Metric("analytics_rate_limited_total", "limiter", "api_auth_failures") - refused; int(got) != limited {
		t.Fatalf("%v refusals counted, %d answered", got, limited)
	}
	// Past the limit the address is refused whatever key it sends.
	if status, _, _ := get(key, "203.0.113.1"); status != http.StatusTooManyRequests {
		t.Fatalf("a right key from the limited address: %d", status)
	}
	// A client of another address sending its right key on many connections at once is not
	// taken for a guesser.
	if status, _, body := get(key, "198.51.100.1"); status != http.StatusOK {
		t.Fatalf("a right key: %d %s", status, body)
	}
	statuses, _ = parallel(200, func(int) string { return key }, "198.51.100.1")
	if statuses[http.StatusOK] != 200 {
		t.Fatalf("200 requests with a right key at once: %v", statuses)
	}
	// A key that was right and is revoked is a failure like any other.
	if err := e.Repo.RevokeAPIKey(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if status, _, _ := get(key, "198.51.100.1"); status != http.StatusUnauthorized {
			t.Fatalf("a revoked key: %d", status)
		}
	}
	if status, _, _ := get(key, "198.51.100.1"); status != http.StatusTooManyRequests {
		t.Fatalf("a revoked key past the limit: %d", status)
	}
}
