package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit/harness"
)

// slowPattern compiles to 992 RE2 instructions: four of them are at the bound of one query,
// and each costs milliseconds on a page of 250 characters.
var slowPattern = `(?:.?){0,330}#A`

// slowQuery's four patterns run in Go over the 3,000 pages of slowSite for a minute of CPU:
// far longer than any query timeout of these tests.
var slowQuery = `{"site_id": "slow.example", "metrics": ["visitors"], "date_range": "7d",
	"filters": [["matches", "event:page", ["` + slowPattern + `", "` + slowPattern + `A", "` + slowPattern + `B", "` + slowPattern + `C"]]]}`

// slowSite writes the website slow.example of key, with 3,000 visits over the 7 days before
// the test's today, each on a page of its own of 250 characters.
func slowSite(t testing.TB, e *harness.Env, key string) int64 {
	t.Helper()
	res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/websites", Key: key, Form: form("domain", "slow.example")})
	if res.Status != http.StatusCreated {
		t.Fatalf("store slow.example: %d %s", res.Status, res.Body)
	}
	id := int64(res.JSON(t)["data"].(map[string]any)["id"].(float64))
	first := day("2026-02-25")
	visits := make([]repotest.Visit, 3000)
	for i := range visits {
		page := fmt.Sprintf("/%s/%d", strings.Repeat("p", 240), i)
		visits[i] = repotest.Visit{Day: first.AddDate(0, 0, i%7), Visitor: int32(i), Pages: []string{page}}
	}
	insertVisits(t, e.DB, id, first, visits)
	return id
}

// occupyReads holds every connection of the service's pool of reads with a statement that
// sleeps until the test ends (past the pool's own statement timeout).
func occupyReads(t *testing.T, e *harness.Env) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	var busy sync.WaitGroup
	t.Cleanup(func() { stop(); busy.Wait() })
	n := e.Pools.Reads.Stats().MaxOpenConnections
	for range n {
		busy.Add(1)
		go func() {
			defer busy.Done()
			tx, err := e.Pools.Reads.BeginTxx(ctx, nil)
			if err != nil {
				return
			}
			defer tx.Rollback()                                       //nolint:errcheck
			tx.ExecContext(ctx, `SET LOCAL statement_timeout = 0`)    //nolint:errcheck // ended by stop
			tx.ExecContext(ctx, `SELECT pg_sleep(60) /* occupied */`) //nolint:errcheck
		}()
	}
	for e.Pools.Reads.Stats().InUse < n {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestQueryTimeout: reads past QUERY_TIMEOUT are stopped, in Go (the patterns' loop) and in
// the database (a read waiting for a connection), and answered 503 with Retry-After: the
// query API's {"error"}, v1's error body, a page that says so. The pool of reads being full
// keeps nothing else waiting: /readyz, signing in with a key, the websites.
func TestQueryTimeout(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.QueryTimeout = 700 * time.Millisecond })
	key := e.User("a@example.com").Key
	id := slowSite(t, e.Env, key)

	start := time.Now()
	res := e.query(key, slowQuery)
	wantQueryError(t, res, http.StatusServiceUnavailable, "took longer than 700ms", "was stopped")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the query API answered after %v", took)
	}
	if res.Header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q, want 1", res.Header.Get("Retry-After"))
	}

	occupyReads(t, e.Env)
	start = time.Now()
	for _, path := range []string{"/readyz", "/api/v1/websites"} {
		if res := e.Do(harness.Request{Path: path, Key: key}); res.Status != http.StatusOK {
			t.Errorf("%s with every read busy: %d %s", path, res.Status, res.Body)
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("/readyz and the websites took %v with every read busy", took)
	}
	res = e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-02-25&to=2026-03-03", id), Key: key})
	body := want(t, res, http.StatusServiceUnavailable)
	if msg, _ := body["message"].(string); !strings.Contains(msg, "took longer than 700ms") || res.Header.Get("Retry-After") != "1" {
		t.Errorf("v1's timeout: %s, Retry-After %q", res.Body, res.Header.Get("Retry-After"))
	}
	page := e.Do(harness.Request{Path: "/stats/slow.example"})
	if page.Status != http.StatusServiceUnavailable || !strings.Contains(string(page.Body), "This view took too long") || page.Header.Get("Retry-After") == "" {
		t.Errorf("dashboard with every read busy: %d, Retry-After %q: %.300s", page.Status, page.Header.Get("Retry-After"), page.Body)
	}
}

// TestQueriesInFlight: of 300 queries of one key sent at once to the running server, at most
// MAX_QUERIES_PER_KEY run (each until the query timeout) and the others are refused at once,
// 429 with Retry-After: the key is charged before the query runs. Likewise a website, across
// the keys that read it.
func TestQueriesInFlight(t *testing.T) {
	e := harness.New(t, harness.Started(), harness.Config(app.Config{QueryTimeout: 3 * time.Second, MaxQueriesPerKey: 4, MaxQueriesPerWebsite: 6}))
	user := e.User("a@example.com")
	slowSite(t, e, user.Key)
	keys := []string{user.Key}
	for range 2 {
		key, err := e.Repo.CreateAPIKey(context.Background(), user.ID)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	send := func(keys []string, each int) map[int]int {
		t.Helper()
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 300}}
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		for _, key := range keys {
			for range each {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/v2/query", strings.NewReader(slowQuery))
					req.Header.Set("Authorization", "Bearer "+key)
					req.Header.Set("Content-Type", "application/json")
					res, err := client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode == http.StatusTooManyRequests && (res.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), "at most")) {
						t.Errorf("429 with Retry-After %q: %s", res.Header.Get("Retry-After"), body)
					}
					mu.Lock()
					statuses[res.StatusCode]++
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		return statuses
	}
	if got := send(keys[:1], 300); got[http.StatusServiceUnavailable] != 4 || got[http.StatusTooManyRequests] != 296 {
		t.Errorf("300 queries of one key: %v; want 4 run (503 at the timeout) and 296 refused (429)", got)
	}
	if got := send(keys, 100); got[http.StatusServiceUnavailable] != 6 || got[http.StatusTooManyRequests] != 294 {
		t.Errorf("100 queries of each of 3 keys of one website: %v; want 6 run and 294 refused", got)
	}
}
