package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func (e *env) plausibleV1(key, path string, params ...string) harness.Response {
	e.T.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return e.Do(harness.Request{Path: "/api/v1/stats/" + path + "?" + q.Encode(), Key: key})
}

// allVisits is a v1 filter every visit of the fixture passes, so that the visit rows answer
// (the fixture writes no daily counters).
const allVisits = "visit:browser!=Opera"

// TestPlausibleV1SameAsQuery asks Plausible's v1 endpoints and the query API the same
// questions: the numbers must be the same, and those of the visits.
func TestPlausibleV1SameAsQuery(t *testing.T) {
	e, key, visits := queryEnv(t)
	week := "2026-02-25,2026-03-03"

	t.Run("aggregate", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "aggregate", "site_id", "example.com", "period", "custom", "date", week,
			"metrics", "visitors,visits,pageviews,views_per_visit,bounce_rate,visit_duration", "filters", allVisits)
		got := want(t, res, http.StatusOK)["results"].(map[string]any)
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"],
			"date_range": ["2026-02-25", "2026-03-03"], "filters": [["is_not", "visit:browser", ["Opera"]]]}`))
		v1 := fmt.Sprint([]any{}, "=", []any{value(got, "visitors"), value(got, "visits"), value(got, "pageviews"), value(got, "views_per_visit"), value(got, "bounce_rate"), value(got, "visit_duration")})
		if v1 != roundRates(lines[0]) {
			t.Errorf("v1 %s, query API %s", v1, lines[0])
		}
		vs, n, pv := counted(visits, all)
		if value(got, "visitors") != float64(vs) || value(got, "visits") != float64(n) || value(got, "pageviews") != float64(pv) {
			t.Errorf("v1 %v, visits say %d %d %d", got, vs, n, pv)
		}
	})

	t.Run("aggregate filtered, wildcard and list", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "aggregate", "site_id", "example.com", "period", "7d", "date", "2026-03-03",
			"metrics", "visitors,pageviews", "filters", "visit:country==DE;visit:entry_page==/blog/**|/pricing;visit:browser!=Safari")
		got := want(t, res, http.StatusOK)["results"].(map[string]any)
		vs, _, pv := counted(visits, func(v repotest.Visit) bool {
			land := v.Values[stats.LandingPage]
			return strings.HasPrefix(v.Values[stats.Country], "DE:") && (strings.HasPrefix(land, "/blog/") || land == "/pricing") && v.Values[stats.Browser] != "Safari"
		})
		if value(got, "visitors") != float64(vs) || value(got, "pageviews") != float64(pv) {
			t.Errorf("v1 %v, visits say %d visitors, %d pageviews", got, vs, pv)
		}
		res = e.plausibleV1(key, "aggregate", "site_id", "example.com", "period", "7d", "date", "2026-03-03",
			"metrics", "visitors", "filters", "visit:entry_page~blog;visit:browser!~Saf")
		got = want(t, res, http.StatusOK)["results"].(map[string]any)
		vs, _, _ = counted(visits, func(v repotest.Visit) bool {
			return strings.Contains(v.Values[stats.LandingPage], "blog") && !strings.Contains(v.Values[stats.Browser], "Saf")
		})
		if value(got, "visitors") != float64(vs) {
			t.Errorf("contains: v1 %v, visits say %d", got, vs)
		}
	})

	t.Run("compare previous period", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "aggregate", "site_id", "example.com", "period", "custom", "date", "2026-03-01,2026-03-03",
			"metrics", "visitors,bounce_rate", "filters", allVisits, "compare", "previous_period")
		got := want(t, res, http.StatusOK)["results"].(map[string]any)
		now, _, _ := counted(visits, func(v repotest.Visit) bool { return !v.Day.Before(day("2026-03-01")) })
		old, _, _ := counted(visits, func(v repotest.Visit) bool {
			return v.Day.Before(day("2026-03-01")) && !v.Day.Before(day("2026-02-26"))
		})
		visitors := got["visitors"].(map[string]any)
		change := float64(int((float64(now-old) / float64(old) * 100) + 0.5*sign(now-old)))
		if visitors["value"] != float64(now) || visitors["comparison_value"] != float64(old) || visitors["change"] != change {
			t.Errorf("visitors %v, want %d, %d, %v", visitors, now, old, change)
		}
		br := got["bounce_rate"].(map[string]any)
		if br["change"] != br["value"].(float64)-br["comparison_value"].(float64) {
			t.Errorf("bounce_rate's change is in points: %v", br)
		}
	})

	t.Run("timeseries", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "timeseries", "site_id", "example.com", "period", "7d", "date", "2026-03-03",
			"metrics", "visitors,pageviews", "filters", allVisits)
		rows := want(t, res, http.StatusOK)["results"].([]any)
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "pageviews"], "date_range": ["2026-02-25", "2026-03-03"],
			"dimensions": ["time:day"], "filters": [["is_not", "visit:browser", ["Opera"]]]}`))
		if len(rows) != 7 || len(lines) != 7 {
			t.Fatalf("%d rows, query API %d", len(rows), len(lines))
		}
		for i, r := range rows {
			row := r.(map[string]any)
			if v1 := fmt.Sprint([]any{row["date"]}, "=", []any{row["visitors"], row["pageviews"]}); v1 != lines[i] {
				t.Errorf("row %d: v1 %s, query API %s", i, v1, lines[i])
			}
		}
		res = e.plausibleV1(key, "timeseries", "site_id", "example.com", "period", "12mo", "date", "2026-03-03", "filters", allVisits)
		rows = want(t, res, http.StatusOK)["results"].([]any)
		if len(rows) != 12 || rows[0].(map[string]any)["date"] != "2025-04-01" || rows[11].(map[string]any)["date"] != "2026-03-01" {
			t.Errorf("12mo by month: %v", rows)
		}
		res = e.plausibleV1(key, "timeseries", "site_id", "example.com", "period", "custom", "date", "2026-02-01,2026-03-31",
			"interval", "month", "filters", allVisits)
		rows = want(t, res, http.StatusOK)["results"].([]any)
		_, lines = wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": ["2026-02-01", "2026-03-31"],
			"dimensions": ["time:month"], "filters": [["is_not", "visit:browser", ["Opera"]]]}`))
		if len(rows) != 2 || len(lines) != 2 {
			t.Fatalf("by month: %v, query API %v", rows, lines)
		}
		for i, r := range rows {
			row := r.(map[string]any)
			if v1 := fmt.Sprint([]any{row["date"]}, "=", []any{row["visitors"]}); v1 != lines[i] {
				t.Errorf("month %d: v1 %s, query API %s", i, v1, lines[i])
			}
		}
	})

	t.Run("breakdown", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "breakdown", "site_id", "example.com", "period", "custom", "date", week,
			"property", "visit:browser", "metrics", "visitors,bounce_rate", "filters", allVisits)
		rows := want(t, res, http.StatusOK)["results"].([]any)
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "bounce_rate"], "date_range": ["2026-02-25", "2026-03-03"],
			"dimensions": ["visit:browser"], "filters": [["is_not", "visit:browser", ["Opera"]]], "order_by": [["visitors", "desc"], ["visit:browser", "asc"]]}`))
		if len(rows) != 3 || len(lines) != 3 {
			t.Fatalf("%v, query API %v", rows, lines)
		}
		for i, r := range rows {
			row := r.(map[string]any)
			if v1 := fmt.Sprint([]any{row["browser"]}, "=", []any{row["visitors"], row["bounce_rate"]}); v1 != roundRates(lines[i]) {
				t.Errorf("row %d: v1 %s, query API %s", i, v1, lines[i])
			}
		}
		res = e.plausibleV1(key, "breakdown", "site_id", "example.com", "period", "custom", "date", week,
			"property", "event:page", "filters", allVisits, "limit", "2", "page", "2")
		rows = want(t, res, http.StatusOK)["results"].([]any)
		if len(rows) != 2 || rows[0].(map[string]any)["page"] == nil {
			t.Errorf("page 2 of 2 of the 4 pages: %v", rows)
		}
	})

	t.Run("realtime", func(t *testing.T) {
		e := e.in(t)
		res := e.plausibleV1(key, "realtime/visitors", "site_id", "example.com")
		if res.Status != http.StatusOK || strings.TrimSpace(string(res.Body)) != "0" {
			t.Errorf("%d %s", res.Status, res.Body)
		}
	})
}

func sign(n int) float64 {
	if n < 0 {
		return -1
	}
	return 1
}

func value(results map[string]any, metric string) any {
	return results[metric].(map[string]any)["value"]
}

// roundRates rounds the last numbers of a query API line as v1 rounds bounce_rate and
// visit_duration (the fixture's metrics put them last).
func roundRates(line string) string {
	dims, nums, _ := strings.Cut(line, "=")
	fields := strings.Fields(strings.Trim(nums, "[]"))
	for i, f := range fields {
		var x float64
		fmt.Sscan(f, &x)
		if strings.Contains(f, ".") && i >= len(fields)-2 {
			fields[i] = fmt.Sprint(float64(int(x + 0.5)))
		}
	}
	return dims + "=[" + strings.Join(fields, " ") + "]"
}

// TestPlausibleV1Errors checks Plausible's refusals, word for word where Plausible has one.
func TestPlausibleV1Errors(t *testing.T) {
	e, key, _ := queryEnv(t)
	other := e.User("b@example.com").Key
	e.store(other, "domain", "other.example")
	docs := "https://plausible.io/docs/stats-api"
	for _, c := range []struct {
		name, key, path string
		params          []string
		status          int
		message         string
	}{
		{"no key", "", "aggregate", []string{"site_id", "example.com"}, 401, "Missing API key. Please use a valid Plausible API key as a Bearer Token."},
		{"bad key", "nope", "aggregate", []string{"site_id", "example.com"}, 401, "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested."},
		{"unknown site", key, "breakdown", []string{"site_id", "unknown.example", "property", "event:page"}, 401, "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested."},
		{"site of another user", key, "timeseries", []string{"site_id", "other.example"}, 401, "Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested."},
		{"no site", key, "realtime/visitors", nil, 400, "Missing site ID. Please provide the required site_id parameter with your request."},
		{"bad period", key, "aggregate", []string{"site_id", "example.com", "period", "3d"}, 400, "Error parsing `period` parameter: invalid period `3d`. Please find accepted values in our docs: " + docs + "#time-periods"},
		{"bad date", key, "aggregate", []string{"site_id", "example.com", "period", "day", "date", "2026-02-30"}, 400, "Error parsing `date` parameter: invalid_date. Please specify a valid date in ISO-8601 format."},
		{"malformed date", key, "aggregate", []string{"site_id", "example.com", "date", "yesterday"}, 400, "Error parsing `date` parameter: invalid_format. Please specify a valid date in ISO-8601 format."},
		{"custom without date", key, "aggregate", []string{"site_id", "example.com", "period", "custom"}, 400, "The `date` parameter is required when using a custom period. See " + docs + "#time-periods"},
		{"custom with one date", key, "timeseries", []string{"site_id", "example.com", "period", "custom", "date", "2026-01-01"}, 400, "Invalid format for `date` parameter. When using a custom period, please include two ISO-8601 formatted dates joined by a comma. See " + docs + "#time-periods"},
		{"unknown metric", key, "aggregate", []string{"site_id", "example.com", "metrics", "visitors,sessions"}, 400, "The metric `sessions` is not recognized. Find valid metrics from the documentation: " + docs + "#metrics"},
		{"metric twice", key, "aggregate", []string{"site_id", "example.com", "metrics", "visitors,visitors"}, 400, "Metrics cannot be queried multiple times."},
		{"conversion rate without goal", key, "aggregate", []string{"site_id", "example.com", "metrics", "conversion_rate"}, 400, "Metric `conversion_rate` can only be queried in a goal breakdown or with a goal filter"},
		{"session metric by event", key, "breakdown", []string{"site_id", "example.com", "property", "event:name", "metrics", "bounce_rate"}, 400, "Session metric `bounce_rate` cannot be queried for breakdown by `event:name`."},
		{"no property", key, "breakdown", []string{"site_id", "example.com"}, 400, "The `property` parameter is required. Please provide at least one property to show a breakdown by."},
		{"unknown property", key, "breakdown", []string{"site_id", "example.com", "property", "visit:shoe_size"}, 400, "Invalid property 'visit:shoe_size'. Please provide a valid property for the breakdown endpoint: " + docs + "#properties"},
		{"limit over 1000", key, "breakdown", []string{"site_id", "example.com", "property", "event:page", "limit", "1001"}, 400, "Please provide limit as a number between 1 and 1000."},
		{"limit not a number", key, "breakdown", []string{"site_id", "example.com", "property", "event:page", "limit", "ten"}, 400, "Please provide limit as a number between 1 and 1000."},
		{"page 0", key, "breakdown", []string{"site_id", "example.com", "property", "event:page", "page", "0"}, 400, "Please provide page as a positive number."},
		{"bad interval", key, "timeseries", []string{"site_id", "example.com", "interval", "week"}, 400, "Error parsing `interval` parameter: invalid interval `week`. Valid intervals are `day`, `month`"},
		{"filter without operator", key, "aggregate", []string{"site_id", "example.com", "filters", "visit:country"}, 400, "Invalid filter 'visit:country'. Please write each filter as a property, an operator (==, !=, ~ or !~) and a value: " + docs + "#filtering"},
		{"filter on unknown property", key, "aggregate", []string{"site_id", "example.com", "filters", "visit:shoe==42"}, 400, "Invalid filter property 'visit:shoe'. Please provide a valid filter property: " + docs + "#properties"},
		{"goal not configured", key, "aggregate", []string{"site_id", "example.com", "filters", "event:goal==Visit /x"}, 400, "The pageview goal for the pathname `/x` is not configured for this site. Find out how to configure goals here: " + docs + "#filtering-by-goals"},
		{"bad compare", key, "aggregate", []string{"site_id", "example.com", "compare", "last_year"}, 400, "Error parsing `compare` parameter: invalid value `last_year`. The only accepted value is `previous_period`."},
		{"bad with_imported", key, "aggregate", []string{"site_id", "example.com", "with_imported", "yes"}, 400, "Error parsing `with_imported` parameter: invalid value `yes`. Accepted values are `true` and `false`."},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := e.in(t).plausibleV1(c.key, c.path, c.params...)
			wantQueryError(t, res, c.status)
			if got := res.JSON(t)["error"]; got != c.message {
				t.Errorf("error %q\nwant  %q", got, c.message)
			}
		})
	}
	t.Run("a property this service keeps no value of", func(t *testing.T) {
		res := e.in(t).plausibleV1(key, "breakdown", "site_id", "example.com", "property", "visit:region")
		wantQueryError(t, res, http.StatusBadRequest, "visit:region", "not available")
	})
	t.Run("the phpAnalytics path of a numeric id is unchanged", func(t *testing.T) {
		e := e.in(t)
		id := int64(e.store(key, "domain", "numeric.example")["id"].(float64))
		res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31", id), Key: key})
		want(t, res, http.StatusOK)
		res = e.Do(harness.Request{Path: "/api/v1/stats/aggregated?site_id=example.com", Key: key})
		// Not Plausible's aggregate under a wrong name: the phpAnalytics path, whose {website_id}
		// names no website.
		want(t, res, http.StatusNotFound)
		if got := res.JSON(t)["message"]; got != "Website not found." {
			t.Errorf("message %q, want %q", got, "Website not found.")
		}
	})
}

// TestPlausibleHourlyLimit: past PLAUSIBLE_API_RATE_LIMIT requests of a key in an hour, Plausible's
// 429 with Retry-After, under a burst of concurrent requests; another key and the phpAnalytics
// paths are not charged.
func TestPlausibleHourlyLimit(t *testing.T) {
	e := newEnv(t, func(c *app.Config) { c.PlausibleHourlyLimit = 20; c.APIRateLimit = 0; c.MaxQueriesPerKey = 500 })
	key := e.User("a@example.com").Key
	e.store(key, "domain", "example.com")
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := e.plausibleV1(key, "realtime/visitors", "site_id", "example.com")
			mu.Lock()
			statuses[res.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[http.StatusOK] != 20 || statuses[http.StatusTooManyRequests] != 180 {
		t.Fatalf("statuses %v, want 20 200s and 180 429s", statuses)
	}
	res := e.plausibleV1(key, "aggregate", "site_id", "example.com")
	wantQueryError(t, res, http.StatusTooManyRequests)
	if got := res.JSON(t)["error"]; got != "Too many API requests. Your API key is limited to 20 requests per hour." || res.Header.Get("Retry-After") == "" {
		t.Errorf("429: %q, Retry-After %q", got, res.Header.Get("Retry-After"))
	}
	if res := e.Do(harness.Request{Path: "/api/v1/websites", Key: key}); res.Status != http.StatusOK {
		t.Errorf("phpAnalytics path: %d", res.Status)
	}
	other := e.User("b@example.com").Key
	if res := e.plausibleV1(other, "aggregate", "site_id", "example.com"); res.Status != http.StatusUnauthorized {
		t.Errorf("another key is not charged: %d %s", res.Status, res.Body)
	}
}

// TestKeyScopes: a stats:read key reads (the phpAnalytics stats, the query API, Plausible's
// v1) and every change is 403; a key of every right, as every key made before scopes, changes.
func TestKeyScopes(t *testing.T) {
	e, full, _ := queryEnv(t)
	user, err := e.Repo.UserByEmail(t.Context(), "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	statsKey, _, err := e.Repo.CreateScopedAPIKey(t.Context(), user.ID, "stats", repository.ScopeStatsRead)
	if err != nil {
		t.Fatal(err)
	}
	want(t, e.Do(harness.Request{Path: "/api/v1/websites", Key: statsKey}), http.StatusOK)
	want(t, e.plausibleV1(statsKey, "aggregate", "site_id", "example.com"), http.StatusOK)
	wantQuery(t, e.query(statsKey, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d"}`))
	for _, r := range []harness.Request{
		{Method: http.MethodPost, Path: "/api/v1/websites", Form: url.Values{"domain": {"new.example"}}},
		{Method: http.MethodDelete, Path: "/api/v1/websites/1"},
		{Method: http.MethodPatch, Path: "/api/v1/websites/1", Form: url.Values{"favorite": {"true"}}},
	} {
		r.Key = statsKey
		res := e.Do(r)
		if body := want(t, res, http.StatusForbidden); !strings.Contains(fmt.Sprint(body["message"]), "stats:read") {
			t.Errorf("%s %s: %s", r.Method, r.Path, res.Body)
		}
	}
	want(t, e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v1/websites", Key: full, Form: url.Values{"domain": {"new.example"}}}), http.StatusCreated)
}
