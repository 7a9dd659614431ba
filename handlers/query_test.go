package handlers_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// queryEnv is a website with visits over the last 7 days of the test clock (2026-03-04):
// 2026-02-25 to 2026-03-03, and the key that reads it.
func queryEnv(t *testing.T) (*env, string, []repotest.Visit) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	first := day("2026-02-25")
	visits := makeVisits(first, 7, 400)
	insertVisits(t, e.DB, id, first, visits)
	return e, key, visits
}

func (e *env) query(key, body string) harness.Response {
	e.T.Helper()
	return e.Do(harness.Request{Method: http.MethodPost, Path: "/api/v2/query", Key: key, Body: body,
		Headers: map[string]string{"Content-Type": "application/json"}})
}

// wantQuery checks a 200 and returns its results as "dims=metrics" lines.
func wantQuery(t *testing.T, res harness.Response) (map[string]any, []string) {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	var lines []string
	for _, r := range body["results"].([]any) {
		row := r.(map[string]any)
		lines = append(lines, fmt.Sprint(row["dimensions"], "=", row["metrics"]))
	}
	return body, lines
}

// wantQueryError checks Plausible's error body and that its sentence holds each word.
func wantQueryError(t *testing.T, res harness.Response, status int, words ...string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	body := res.JSON(t)
	msg, _ := body["error"].(string)
	if len(body) != 1 || msg == "" {
		t.Fatalf("body %s, want {\"error\": ...}", res.Body)
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}

// counted are the visitors (distinct day numbers a day), visits and pageviews of the visits
// that keep holds.
func counted(visits []repotest.Visit, keep func(repotest.Visit) bool) (visitors, nvisits, pageviews int) {
	seen := map[string]bool{}
	for _, v := range visits {
		if !keep(v) {
			continue
		}
		k := fmt.Sprint(v.Day, v.Visitor)
		if !seen[k] {
			seen[k] = true
			visitors++
		}
		nvisits++
		pageviews += len(v.Pages)
	}
	return
}

func all(repotest.Visit) bool { return true }

// allRows is a filter every visit of the fixture passes.
const allRows = `[["is_not", "visit:screen", ["0x0"]]]`

// TestQueryPlausibleExamples sends the example queries of Plausible's Stats API v2
// documentation (with this service's dimensions) and checks their numbers against the visits.
func TestQueryPlausibleExamples(t *testing.T) {
	e, key, visits := queryEnv(t)

	t.Run("aggregate", func(t *testing.T) {
		e := e.in(t)
		// The fixture writes visit rows only: a filter every visit passes makes the query read
		// them (without one the counters answer; TestGoClient has that).
		body, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews"], "date_range": "7d", "filters": `+allRows+`}`))
		vs, n, pv := counted(visits, all)
		if want := fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n), float64(pv)}); len(lines) != 1 || lines[0] != want {
			t.Fatalf("got %v, want %s", lines, want)
		}
		q := body["query"].(map[string]any)
		if got := fmt.Sprint(q["date_range"]); got != "[2026-02-25T00:00:00+00:00 2026-03-03T23:59:59+00:00]" {
			t.Errorf("date_range as it ran: %s", got)
		}
	})

	t.Run("breakdown by country and city", func(t *testing.T) {
		e := e.in(t)
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "pageviews", "bounce_rate"], "date_range": "7d",
			"filters": [["is_not", "visit:country_name", [""]]], "dimensions": ["visit:country_name", "visit:city_name"]}`))
		vs, _, pv := counted(visits, func(v repotest.Visit) bool { return v.Values[stats.City] == "US:Boston, MA" })
		want := fmt.Sprint([]any{"United States", "Boston, MA"}, "=", []any{float64(vs), float64(pv)})
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, strings.TrimSuffix(want, "]")) }) {
			t.Errorf("no row %s in %v", want, lines)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "[ ") || strings.Contains(l, "[]") {
				t.Errorf("a row without a country: %s", l)
			}
		}
		if len(lines) != 4 {
			t.Errorf("%d rows, want 4 cities: %v", len(lines), lines)
		}
	})

	t.Run("timeseries by day with time labels", func(t *testing.T) {
		e := e.in(t)
		body, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": ["2026-02-24", "2026-03-03"],
			"dimensions": ["time:day"], "include": {"time_labels": true, "total_rows": true}, "filters": `+allRows+`}`))
		labels := body["meta"].(map[string]any)["time_labels"].([]any)
		if len(labels) != 8 || labels[0] != "2026-02-24" {
			t.Errorf("time_labels %v", labels)
		}
		vs, _, _ := counted(visits, func(v repotest.Visit) bool { return v.Day.Equal(day("2026-02-25")) })
		if lines[0] != fmt.Sprint([]any{"2026-02-25"}, "=", []any{float64(vs)}) {
			t.Errorf("first day: %s", lines[0])
		}
		if got := body["meta"].(map[string]any)["total_rows"]; got != float64(7) {
			t.Errorf("total_rows %v, want 7 days with visits", got)
		}
	})

	t.Run("pages", func(t *testing.T) {
		e := e.in(t)
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["pageviews"], "date_range": "7d",
			"dimensions": ["event:page"], "order_by": [["event:page", "asc"]], "pagination": {"limit": 2, "offset": 1}, "filters": `+allRows+`}`))
		pv := 0
		for _, v := range visits {
			for _, p := range v.Pages {
				if p == "/blog/ünïcode" {
					pv++
				}
			}
		}
		if len(lines) != 2 || lines[0] != fmt.Sprint([]any{"/blog/ünïcode"}, "=", []any{float64(pv)}) {
			t.Errorf("got %v, want /blog/ünïcode with %d second", lines, pv)
		}
	})
}

// TestQueryFilters: every operator counts the visits it should, matches as is does, both
// spellings of a device filter alike, and a nested and/or/not.
func TestQueryFilters(t *testing.T) {
	e, key, visits := queryEnv(t)
	ask := func(t *testing.T, filters string) string {
		_, lines := wantQuery(t, e.in(t).query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews"], "date_range": "7d", "filters": `+filters+`}`))
		return lines[0]
	}
	line := func(keep func(repotest.Visit) bool) string {
		vs, n, pv := counted(visits, keep)
		return fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n), float64(pv)})
	}
	google := func(v repotest.Visit) bool { return v.Values[stats.Referrer] == "www.google.com" }
	cases := []struct {
		name, filters string
		keep          func(repotest.Visit) bool
	}{
		{"is", `[["is", "visit:referrer", ["www.google.com"]]]`, google},
		{"matches", `[["matches", "visit:referrer", ["^www\\.goo"]]]`, google},
		{"contains", `[["contains", "visit:referrer", ["google"]]]`, google},
		{"is_not", `[["is_not", "visit:referrer", ["www.google.com"]]]`, func(v repotest.Visit) bool { return !google(v) }},
		{"matches_not", `[["matches_not", "visit:referrer", ["goo"]]]`, func(v repotest.Visit) bool { return !google(v) }},
		{"direct", `[["is", "visit:referrer", ["Direct / None"]]]`, func(v repotest.Visit) bool { return v.Values[stats.Referrer] == "" }},
		{"device ours", `[["is", "visit:device", ["desktop"]]]`, func(v repotest.Visit) bool { return v.Values[stats.Device] == "desktop" }},
		{"device theirs", `[["is", "visit:device", ["Desktop"]]]`, func(v repotest.Visit) bool { return v.Values[stats.Device] == "desktop" }},
		{"os theirs", `[["is", "visit:os", ["GNU/Linux"]]]`, func(v repotest.Visit) bool { return v.Values[stats.OperatingSystem] == "Linux" }},
		{"country code", `[["is", "visit:country", ["DE"]]]`, func(v repotest.Visit) bool { return strings.HasPrefix(v.Values[stats.Country], "DE:") }},
		{"case", `[["contains", "visit:browser", ["fire"], {"case_sensitive": false}]]`, func(v repotest.Visit) bool { return v.Values[stats.Browser] == "Firefox" }},
		{"nested", `[["and", [["or", [["is", "visit:country", ["DE"]], ["contains", "visit:entry_page", ["/blog"]]]], ["not", ["matches", "visit:referrer", ["google"]]]]]]`,
			func(v repotest.Visit) bool {
				return (strings.HasPrefix(v.Values[stats.Country], "DE:") || strings.Contains(v.Values[stats.LandingPage], "/blog")) && !google(v)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := ask(t, c.filters), line(c.keep); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	t.Run("page", func(t *testing.T) {
		// A visit matches when one of its pageviews is the page; only those pageviews count.
		vs, n, _ := counted(visits, func(v repotest.Visit) bool { return slices.Contains(v.Pages, "/pricing") })
		pv := 0
		for _, v := range visits {
			for _, p := range v.Pages {
				if p == "/pricing" {
					pv++
				}
			}
		}
		if got, want := ask(t, `[["is", "event:page", ["/pricing"]]]`), fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n), float64(pv)}); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("answers in Plausible's spelling", func(t *testing.T) {
		_, lines := wantQuery(t, e.in(t).query(key, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d", "dimensions": ["visit:device", "visit:os"]}`))
		joined := strings.Join(lines, "\n")
		for _, w := range []string{"Desktop", "Mobile", "GNU/Linux"} {
			if !strings.Contains(joined, w) {
				t.Errorf("no %s in %s", w, joined)
			}
		}
		if regexp.MustCompile(`\b(desktop|mobile|Linux)\b`).MatchString(strings.ReplaceAll(joined, "GNU/Linux", "")) {
			t.Errorf("our spelling in the answer: %s", joined)
		}
	})
}

// TestQueryRefusals: each refusal is Plausible's {"error"} with its status, naming what was
// wrong; never a 500.
func TestQueryRefusals(t *testing.T) {
	e, key, _ := queryEnv(t)
	other := e.User("b@example.com").Key
	const ok = `"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d"`
	cases := []struct {
		name, body string
		words      []string
	}{
		{"unavailable dimension", `{` + ok + `, "dimensions": ["visit:region"]}`, []string{"visit:region", "not available"}},
		{"revenue by page", `{"site_id": "example.com", "metrics": ["total_revenue"], "date_range": "7d", "dimensions": ["event:page"]}`, []string{"total_revenue", "event:page"}},
		{"unknown metric", `{"site_id": "example.com", "metrics": ["nope"], "date_range": "7d"}`, []string{"nope"}},
		{"four dimensions", `{` + ok + `, "dimensions": ["visit:os", "visit:browser", "visit:device", "visit:country"]}`, []string{"at most 3"}},
		{"nested four deep", `{` + ok + `, "filters": [["not", ["not", ["not", ["not", ["is", "visit:os", ["Mac"]]]]]]]}`, []string{"nested at most 3"}},
		{"limit", `{` + ok + `, "pagination": {"limit": 10001}}`, []string{"pagination.limit", "10000"}},
		{"long pattern", `{` + ok + `, "filters": [["matches", "visit:os", ["` + strings.Repeat("a", 256) + `"]]]}`, []string{"255"}},
		{"bad pattern", `{` + ok + `, "filters": [["matches", "visit:os", ["(a"]]]}`, []string{"regular expression"}},
		{"bad range", `{"site_id": "example.com", "metrics": ["visitors"], "date_range": "8d"}`, []string{"8d"}},
		{"event metric", `{` + ok + `, "metrics": ["bounce_rate"], "dimensions": ["event:name"]}`, []string{"bounce_rate", "event:name"}},
		{"not json", `{"site_id": `, []string{"Invalid request"}},
		{"no metrics", `{"site_id": "example.com", "date_range": "7d"}`, []string{"metrics"}},
		{"unknown key", `{` + ok + `, "segments": 1}`, []string{"Invalid request"}},
		{"order by", `{` + ok + `, "order_by": [["pageviews", "desc"]]}`, []string{"pageviews"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantQueryError(t, e.in(t).query(key, c.body), http.StatusBadRequest, c.words...)
		})
	}
	t.Run("no key", func(t *testing.T) {
		res := e.in(t).query("", `{`+ok+`}`)
		wantQueryError(t, res, http.StatusUnauthorized)
		if res.Header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
		}
	})
	t.Run("another user's site answers as an unknown one", func(t *testing.T) {
		res := e.in(t).query(other, `{`+ok+`}`)
		wantQueryError(t, res, http.StatusUnauthorized, "Invalid API key or site ID")
		unknown := e.in(t).query(key, `{"site_id": "nowhere.example", "metrics": ["visitors"], "date_range": "7d"}`)
		if string(unknown.Body) != string(res.Body) || unknown.Header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("unknown domain %s, another's %s", unknown.Body, res.Body)
		}
	})
}

// TestQueryUnknownRoutes: under /api/v2 an unknown path or method answers the query API's
// error body too.
func TestQueryUnknownRoutes(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	wantQueryError(t, e.Do(harness.Request{Path: "/api/v2/websites", Key: key}), http.StatusNotFound)
	res := e.Do(harness.Request{Path: "/api/v2/query", Key: key})
	wantQueryError(t, res, http.StatusMethodNotAllowed)
	if res.Header.Get("Allow") != "POST" {
		t.Errorf("Allow %q", res.Header.Get("Allow"))
	}
}

// TestQueryPercentageAndPages: percentage divides by every matching visitor, with a filter
// and a time dimension; an offset past the last row answers no row but the total.
func TestQueryPercentageAndPages(t *testing.T) {
	e, key, visits := queryEnv(t)
	body, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "percentage"], "date_range": "7d",
		"dimensions": ["visit:browser", "time:week"], "filters": [["is", "visit:country", ["DE"]]], "order_by": [["visit:browser", "asc"]]}`))
	total, _, _ := counted(visits, func(v repotest.Visit) bool { return strings.HasPrefix(v.Values[stats.Country], "DE:") })
	sum := 0.0
	for _, r := range body["results"].([]any) {
		m := r.(map[string]any)["metrics"].([]any)
		sum += m[1].(float64)
		if want := float64(int(1000*m[0].(float64)/float64(total)+0.5)) / 10; m[1] != want {
			t.Errorf("%v: percentage %v, want %v", r, m[1], want)
		}
	}
	// A visitor with visits of two browsers counts in both: the sum may pass 100, never fall short.
	if sum < 99.5 || len(lines) == 0 {
		t.Errorf("percentages sum to %v: %v", sum, lines)
	}
	body, lines = wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors"], "date_range": "7d",
		"dimensions": ["visit:browser"], "include": {"total_rows": true, "imports": true}, "pagination": {"offset": 50}}`))
	meta := body["meta"].(map[string]any)
	if len(lines) != 0 || meta["total_rows"] != float64(3) {
		t.Errorf("past the last row: %v %v", lines, meta)
	}
	// Visit rows answered: imported days (daily counters) could not count.
	if meta["imports_included"] != false || meta["imports_warning"] == nil {
		t.Errorf("imports: %v", meta)
	}
}

// A query's relative ranges are the website's own days: at the test clock (2026-03-04 05:06
// UTC) it is still 3 March in Los Angeles, so "day" is that date there, with its visits,
// where the service's TZ (UTC) would read an empty 4 March.
func TestQueryInTheWebsitesZone(t *testing.T) {
	e, key, visits := queryEnv(t)
	e.exec(t, `UPDATE websites SET timezone = 'America/Los_Angeles' WHERE domain = 'example.com'`)
	body, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits"], "date_range": "day", "filters": `+allRows+`}`))
	if got := fmt.Sprint(body["query"].(map[string]any)["date_range"]); got != "[2026-03-03T00:00:00-08:00 2026-03-03T23:59:59-08:00]" {
		t.Errorf("date_range as it ran: %s", got)
	}
	vs, n, _ := counted(visits, func(v repotest.Visit) bool { return v.Day.Equal(day("2026-03-03")) })
	if want := fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n)}); len(lines) != 1 || lines[0] != want || vs == 0 {
		t.Errorf("got %v, want %s", lines, want)
	}
}

// A range without visits answers zeros, with or without filters (the rows' aggregates are
// NULL there, the counters' zero), never an error.
func TestQueryEmptyRange(t *testing.T) {
	e, key, _ := queryEnv(t)
	for _, filters := range []string{allRows, `[]`} {
		_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit"],
			"date_range": ["2026-03-04", "2026-03-04"], "filters": `+filters+`}`))
		if want := fmt.Sprint([]any{}, "=", []any{0.0, 0.0, 0.0, 0.0, 0.0, 0.0}); len(lines) != 1 || lines[0] != want {
			t.Errorf("filters %s: got %v, want %s", filters, lines, want)
		}
	}
}
