package ingest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// One Plausible hit names at most 10 domains (400 past them), and each website it counts for
// is a hit against EVENT_RATE_LIMIT. On main, d listing 20 tracked websites counted 20 hits
// against a limit that took one.
func TestPlausibleDomainsAreBoundedAndCharged(t *testing.T) {
	e := newCollectEnv(t, app.Config{EventRateLimit: 5}) // bursts of 10; the test clock stands still
	var ids []int64
	var domains []string
	for i := range 20 {
		domains = append(domains, fmt.Sprintf("junk%d.test", i))
		ids = append(ids, e.site(domains[i]))
	}
	res := e.send(hit{body: `{"n":"pageview","u":"https://junk0.test/","d":"` + strings.Join(domains, ",") + `"}`})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "at most 10 domains") {
		t.Fatalf("20 domains: %d %s, want 400", res.Status, res.Body)
	}
	// 1 token taken by the refused hit, 9 by this one: the burst of 10 is spent.
	if res := e.send(hit{body: `{"n":"pageview","u":"https://junk0.test/","d":"` + strings.Join(domains[:9], ",") + `"}`}); res.Status != http.StatusAccepted {
		t.Fatalf("9 domains: %d %s, want 202", res.Status, res.Body)
	}
	if res := e.send(hit{body: `{"n":"pageview","u":"https://junk0.test/","d":"junk0.test"}`}); res.Status != http.StatusTooManyRequests {
		t.Fatalf("the 11th hit of the burst: %d, want 429", res.Status)
	}
	for i, id := range ids {
		want := int64(0)
		if i < 9 {
			want = 1
		}
		if got := e.stats(id)["pageview"][day]; got != want {
			t.Fatalf("%s: %d pageviews, want %d", domains[i], got, want)
		}
	}
}
