package ingest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// One client address (or IPv6 /64) past EVENT_RATE_LIMIT gets 429 with Retry-After, before
// anything costly: its hits are not parsed, enriched or counted. Other clients go on.
func TestEventRateLimit(t *testing.T) {
	e := newCollectEnv(t, app.Config{EventRateLimit: 5, // bursts of 10; the test clock stands still
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	id := e.site("limit.test")
	page := body("https://limit.test/", "", "1x1")
	from := func(client, ua string) harness.Response {
		return e.send(hit{body: page, remote: "10.0.0.1:1", forwarded: client, ua: ua})
	}
	for i := 0; i < 10; i++ {
		if s := from("203.0.113.5", "").Status; s != http.StatusAccepted {
			t.Fatalf("hit %d of the burst: %d", i+1, s)
		}
	}
	// Past the burst: refused, with a user agent never seen before that must not be parsed.
	const unseen = "Mozilla/5.0 (X11; Linux x86_64) NeverSeenBrowser/1.0"
	res := from("203.0.113.5", unseen)
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("past the burst: %d, want 429", res.Status)
	}
	if after, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || after < 1 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	var errBody struct {
		Message string `json:"message"`
		Status  int    `json:"status"`
	}
	if err := json.Unmarshal(res.Body, &errBody); err != nil || errBody.Status != 429 || errBody.Message == "" {
		t.Fatalf("body %s", res.Body)
	}
	if ingest.UserAgentParsed(unseen) {
		t.Fatal("the user agent of a refused hit was parsed")
	}
	// A malformed body is refused by the limit too: it is not even read.
	if s := e.send(hit{body: "{not json", remote: "10.0.0.1:1", forwarded: "203.0.113.5"}).Status; s != http.StatusTooManyRequests {
		t.Fatalf("a bad hit past the limit: %d, want 429", s)
	}

	// Other addresses are not affected; an IPv6 /64 is one client.
	if s := from("203.0.113.6", "").Status; s != http.StatusAccepted {
		t.Fatalf("another address: %d", s)
	}
	for i := 0; i < 10; i++ {
		from(fmt.Sprintf("2001:db8:1:2::%x", i+1), "")
	}
	if s := from("2001:db8:1:2::ff", "").Status; s != http.StatusTooManyRequests {
		t.Fatalf("the 11th hit of one /64 from a new address: %d, want 429", s)
	}
	if s := from("2001:db8:1:3::1", "").Status; s != http.StatusAccepted {
		t.Fatalf("another /64: %d", s)
	}

	if got := e.stats(id)["pageview"][day]; got != 10+1+10+1 {
		t.Fatalf("%d pageviews counted, want the 22 accepted", got)
	}
	if got := e.Metric("analytics_events_rejected_total", "status", "429"); got != 3 {
		t.Fatalf("analytics_events_rejected_total{status=429} %v, want 3", got)
	}
	if got, ok := e.Metrics().Lookup("analytics_rate_limited_total", "limiter", "events"); !ok || got != 3 {
		t.Fatalf("analytics_rate_limited_total{limiter=events} %v (present %v), want 3", got, ok)
	}
	// Public addresses were refused: no proxy hint, and no address in the logs.
	if strings.Contains(e.Logs.String(), "TRUSTED_PROXIES") || strings.Contains(e.Logs.String(), "203.0.113.5") {
		t.Fatalf("logs: %s", e.Logs.String())
	}
}

// A private address past the limit is most likely a reverse proxy that TRUSTED_PROXIES does
// not name: the log says so, once, without the address.
func TestEventRateLimitHintsAtProxy(t *testing.T) {
	e := newCollectEnv(t, app.Config{EventRateLimit: 1})
	e.site("proxy.test")
	for i := 0; i < 5; i++ {
		e.send(hit{body: body("https://proxy.test/", "", "1x1"), remote: "172.16.0.9:1"})
	}
	logs := e.Logs.String()
	if strings.Count(logs, "TRUSTED_PROXIES") != 1 || strings.Contains(logs, "172.16.0.9") {
		t.Fatalf("logs: %s", logs)
	}
}

// Off (0), nothing is limited.
func TestEventRateLimitOff(t *testing.T) {
	e := newCollectEnv(t, app.Config{})
	e.site("free.test")
	for i := 0; i < 50; i++ {
		if s := e.send(hit{body: body("https://free.test/", "", "1x1")}).Status; s != http.StatusAccepted {
			t.Fatalf("hit %d: %d", i, s)
		}
	}
}
