package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/stats"
)

// httpBench is the whole service (app.New, as cmd/analytics builds it) on the benchmark's
// database, served over real HTTP, with an API key of the websites' owner.
type httpBench struct {
	srv    *httptest.Server
	client *http.Client
	key    string
}

// newHTTPBench builds the service on f's database. The fixture's websites have privacy 0, so
// the dashboard reads them without signing in, as a stranger does. The API has no rate limit
// (a zero APIRateLimit): the benchmark times the reads, not the limiter.
func newHTTPBench(b *testing.B, f fixture) httpBench {
	b.Helper()
	ctx := context.Background()
	key, err := f.repo.CreateAPIKey(ctx, f.user)
	if err != nil {
		b.Fatal(err)
	}
	// Warnings and errors only: an access line per request would bury the figures.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, f.repo, app.Config{}, log)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	b.Cleanup(srv.Close)
	return httpBench{srv: srv, client: srv.Client(), key: key}
}

// query is the range and the filters as the API and the pages take them
// (from=..&to=..&filter[NAME]=VALUE).
func query(rng stats.Range, filters stats.Filters) url.Values {
	q := rng.Query()
	maps.Copy(q, filters.Query())
	return q
}

// get reads path?q (with the API key when withKey) and returns the body; any status but 200
// is an error.
func (h httpBench) get(path string, q url.Values, withKey bool) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, h.srv.URL+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	if withKey {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	res, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.500s", req.URL, res.StatusCode, body)
	}
	return body, nil
}

// getJSON reads path?q with the API key and decodes the answer into out; it returns the body
// for the caller's messages.
func (h httpBench) getJSON(path string, q url.Values, out any) ([]byte, error) {
	body, err := h.get(path, q, true)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return nil, fmt.Errorf("GET %s: %w: %.500s", path, err, body)
	}
	return body, nil
}

// list reads GET /api/v1/stats/{site}?name=NAME (the first 50 by count, as the repository's
// list_* reads) and wants a non-empty list whose first entry is want.
func (h httpBench) list(site int64, name stats.Name, q url.Values, want string) func() error {
	q = maps.Clone(q)
	q.Set("name", string(name))
	q.Set("per_page", "50")
	return func() error {
		var out struct {
			Data []struct {
				Value string `json:"value"`
				Count int64  `json:"count"`
			} `json:"data"`
		}
		body, err := h.getJSON(fmt.Sprintf("/api/v1/stats/%d", site), q, &out)
		if err != nil {
			return err
		}
		if len(out.Data) == 0 || out.Data[0].Value != want || out.Data[0].Count <= 0 {
			return fmt.Errorf("list %s: want %q first with a count: %.500s", name, want, body)
		}
		return nil
	}
}

// summary reads GET /api/v1/stats/{site}/summary and wants visits and at least as many
// pageviews.
func (h httpBench) summary(site int64, q url.Values) func() error {
	return func() error {
		var out struct {
			Data *struct {
				Visitors  int64 `json:"visitors"`
				Visits    int64 `json:"visits"`
				Pageviews int64 `json:"pageviews"`
			} `json:"data"`
		}
		body, err := h.getJSON(fmt.Sprintf("/api/v1/stats/%d/summary", site), q, &out)
		if err != nil {
			return err
		}
		if out.Data == nil || out.Data.Visitors <= 0 || out.Data.Visits <= 0 || out.Data.Pageviews < out.Data.Visits {
			return fmt.Errorf("summary: want visitors, visits and pageviews: %.500s", body)
		}
		return nil
	}
}

// timeseries reads GET /api/v1/stats/{site}/timeseries?interval=day and wants one entry a day
// of the range.
func (h httpBench) timeseries(site int64, rng stats.Range, q url.Values) func() error {
	q = maps.Clone(q)
	q.Set("interval", "day")
	return func() error {
		var out struct {
			Data []struct {
				Date string `json:"date"`
			} `json:"data"`
		}
		body, err := h.getJSON(fmt.Sprintf("/api/v1/stats/%d/timeseries", site), q, &out)
		if err != nil {
			return err
		}
		if len(out.Data) != rng.Days() || out.Data[len(out.Data)-1].Date != rng.To.Format(time.DateOnly) {
			return fmt.Errorf("timeseries: want %d days to %s: %.500s", rng.Days(), rng.To.Format(time.DateOnly), body)
		}
		return nil
	}
}

// dashboard reads the page GET /stats/{domain} without signing in and wants an HTML page with
// the filter bar when filtered (and none otherwise) whose top lists hold each value of top.
func (h httpBench) dashboard(domain string, q url.Values, filtered bool, top ...string) func() error {
	return func() error {
		body, err := h.get("/stats/"+domain, q, false)
		if err != nil {
			return err
		}
		page := string(body)
		if strings.Contains(page, `class="filter-bar"`) != filtered {
			return fmt.Errorf("dashboard: want the filter bar %v: %.500s", filtered, body)
		}
		for _, v := range top {
			if !strings.Contains(page, `<td class="value" title="`+html.EscapeString(v)+`"`) {
				return fmt.Errorf("dashboard: %q missing from the top lists: %.500s", v, body)
			}
		}
		return nil
	}
}
