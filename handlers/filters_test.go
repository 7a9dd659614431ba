package handlers_test

// Filtered numbers (docs/filters.md) through the API, checked against counts computed
// here, in Go, from the visits each test writes straight into visit_rows. They need the
// repository's filtered reads (repository/filtered_read.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/gen/client"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// matching are the visits that match the filters (all are inside every range asked here).
func matching(visits []repotest.Visit, filters stats.Filters) []repotest.Visit {
	return repotest.Filtered(visits, time.Time{}, time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), filters)
}

// wantTotals are the totals of the matching visits: distinct day numbers a day, summed; their
// pageviews (with a page filter, only that page's); their events.
func wantTotals(visits []repotest.Visit, filters stats.Filters) stats.Totals {
	return repotest.ExpectTotal(matching(visits, filters), filters)
}

// wantList is the stats list of name over the matching visits, as "value=count ..." sorted
// as the API sorts (count descending, then value).
func wantList(visits []repotest.Visit, name stats.Name, filters stats.Filters) string {
	counts := repotest.ExpectList(matching(visits, filters), name, filters)
	values := make([]string, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool {
		if counts[values[i]] != counts[values[j]] {
			return counts[values[i]] > counts[values[j]]
		}
		return values[i] < values[j]
	})
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%s=%d", v, counts[v])
	}
	return strings.Join(out, " ")
}

// makeVisits makes n visits over the days from first, from a fixed seed: few day numbers a
// day (so that visitors are fewer than visits), country names that differ for one code, a
// city with a comma, a page with a query.
func makeVisits(first time.Time, days, n int) []repotest.Visit {
	r := rand.New(rand.NewPCG(17, 9))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	pages := []string{"/", "/pricing", "/docs?q=a&b", "/blog/ünïcode"}
	visits := make([]repotest.Visit, n)
	for i := range visits {
		v := repotest.Visit{Day: first.AddDate(0, 0, r.IntN(days)), Visitor: int32(r.IntN(30)) - 15, Hour: r.IntN(24)}
		for range r.IntN(4) {
			v.Pages = append(v.Pages, pages[r.IntN(len(pages))])
		}
		for range r.IntN(3) / 2 * (1 + r.IntN(2)) {
			v.Events = append(v.Events, pick("Signup::", "Purchase:5:USD"))
		}
		if len(v.Pages) == 0 && len(v.Events) == 0 {
			v.Pages = []string{"/"}
		}
		if len(v.Pages)+len(v.Events) > 1 {
			v.Seconds = r.IntN(600)
		}
		landing := "/"
		if len(v.Pages) > 0 {
			landing = v.Pages[0]
		}
		exit := landing
		if len(v.Pages) > 0 {
			exit = v.Pages[len(v.Pages)-1]
		}
		ref := pick("", "", "news.ycombinator.com", "www.google.com")
		engine := ""
		if ref == "www.google.com" {
			engine = "Google"
		}
		place := pick("DE:Germany|EU:Europe|DE:Berlin", "DE:Deutschland|EU:Europe|DE:Hamburg",
			"US:United States|NA:North America|US:New York, NY", "US:United States|NA:North America|US:Boston, MA", "||")
		geo := strings.Split(place, "|")
		v.Values = map[stats.Name]string{
			stats.LandingPage: landing, stats.ExitPage: exit, stats.Referrer: ref, stats.SearchEngine: engine,
			stats.Campaign: pick("", "", "launch"), stats.Browser: pick("Firefox", "Chrome", "Safari"),
			stats.OperatingSystem: pick("Linux", "Windows", "iOS"), stats.Device: pick("desktop", "mobile"),
			stats.Language: pick("en", "de"), stats.ScreenResolution: pick("1920x1080", ""),
			stats.Country: geo[0], stats.Continent: geo[1], stats.City: geo[2],
		}
		visits[i] = v
	}
	return visits
}

// bigView makes the website's year 2025-01-11 .. 2026-01-10 a view of 20 M pageviews (by its
// counters, on a day no other range of these tests holds), so that its filtered reads are
// sampled, and returns the fraction they read.
func bigView(t testing.TB, db *sqlx.DB, websiteID int64) float64 {
	t.Helper()
	repotest.CountPageviews(t, repository.New(db, nil), websiteID, day("2025-06-01"), 2*stats.MaxExactPageviews)
	return stats.SampleFraction(2 * stats.MaxExactPageviews)
}

// insertVisits writes the visits into visit_rows and says that the website's filter rows
// start on from.
func insertVisits(t testing.TB, db *sqlx.DB, websiteID int64, from time.Time, visits []repotest.Visit) {
	t.Helper()
	repotest.WriteVisitRows(t, db, websiteID, visits)
	if _, err := db.ExecContext(context.Background(), `UPDATE websites SET filters_from = $2 WHERE id = $1`, websiteID, from); err != nil {
		t.Fatal(err)
	}
}

func filterQuery(f stats.Filters) string {
	if len(f) == 0 {
		return ""
	}
	return "&" + f.Query().Encode()
}

func filters(kv ...string) stats.Filters {
	var f stats.Filters
	for i := 0; i < len(kv); i += 2 {
		f = f.With(stats.Name(kv[i]), kv[i+1])
	}
	return f
}

// filterCases are the filters every numbers test asks about.
var filterCases = []stats.Filters{
	filters("country", "DE:Germany"), // also the visits whose country reads DE:Deutschland
	filters("country", "DE"),
	filters("continent", "NA:Nordamerika"),
	filters("city", "US:New York, NY"), // not Boston: the whole value compares
	filters("page", "/pricing"),
	filters("page", "/docs?q=a&b", "country", "US:United States"),
	filters("landing_page", "/blog/ünïcode"),
	filters("event", "Signup::"),
	filters("event", ""),
	filters("search_engine", ""),
	filters("search_engine", "Google", "browser", "Firefox"),
	filters("referrer", ""),
	filters("campaign", "launch", "device", "mobile", "language", "de"),
	filters("screen_resolution", ""),
	filters("country", "ZZ:Nowhere"), // no visit has it: zeros, empty lists
	filters("page", stats.Other),     // matches nothing
}

// TestFilteredNumbers: the summary, the stats lists and the daily time series of a 31-day
// range (exact: no `sampled`) count only the matching visits, as counted here from the
// visits written; the range starting before the website's filter rows says `filtered_from`.
func TestFilteredNumbers(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	first := day("2026-01-01")
	visits := makeVisits(first, 10, 600)
	insertVisits(t, e.DB, id, first, visits)

	const from, to = "2026-01-01", "2026-01-31"
	for _, f := range filterCases {
		t.Run(f.Query().Encode(), func(t *testing.T) {
			e := e.in(t)
			res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=%s&to=%s%s", id, from, to, filterQuery(f)), Key: key})
			body := want(t, res, http.StatusOK)
			wantSummary(t, body["data"].(map[string]any), wantTotals(visits, f))
			if _, has := body["meta"]; has {
				t.Errorf("summary meta on a range inside the filter rows: %s", res.Body)
			}

			for _, name := range []stats.Name{stats.Page, stats.Referrer, stats.Country, stats.City, stats.Event, stats.LandingPage, stats.SearchEngine} {
				res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=%s&from=%s&to=%s&per_page=100%s", id, name, from, to, filterQuery(f)), Key: key})
				body := want(t, res, http.StatusOK)
				if got, want := entries(body), wantList(visits, name, f); got != want {
					t.Errorf("%s: got  %s\nwant %s", name, got, want)
				}
				meta := body["meta"].(map[string]any)
				if _, has := meta["sampled"]; has {
					t.Errorf("%s: sampled on 31 days: %v", name, meta)
				}
				if _, has := meta["filtered_from"]; has {
					t.Errorf("%s: filtered_from on a range inside the filter rows: %v", name, meta)
				}
				// The paging links keep the filters.
				if first, _ := url.Parse(body["links"].(map[string]any)["first"].(string)); len(f) > 0 && first.Query().Get("filter["+string(f[0].Name)+"]") != f[0].Value {
					t.Errorf("%s: links lose the filters: %v", name, first)
				}
			}

			res = e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/timeseries?from=%s&to=%s%s", id, from, to, filterQuery(f)), Key: key})
			body = want(t, res, http.StatusOK)
			data := body["data"].([]any)
			if len(data) != 31 {
				t.Fatalf("%d days", len(data))
			}
			byDay := repotest.ExpectTotals(matching(visits, f), f, func(v repotest.Visit) string { return stats.DayValue(v.Day) })
			for i, d := range data {
				entry := d.(map[string]any)
				day := stats.DayValue(first.AddDate(0, 0, i))
				if entry["date"] != day {
					t.Fatalf("entry %d: %v", i, entry)
				}
				wantBucket(t, entry, byDay[day])
			}
		})
	}

	t.Run("filtered_from", func(t *testing.T) {
		f := filterQuery(filters("country", "DE:Germany"))
		for _, path := range []string{
			fmt.Sprintf("/api/v1/stats/%d?name=page&from=2025-12-20&to=2026-01-10%s", id, f),
			fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2025-12-20&to=2026-01-10%s", id, f),
		} {
			body := want(t, e.in(t).Do(harness.Request{Path: path, Key: key}), http.StatusOK)
			if got := body["meta"].(map[string]any)["filtered_from"]; got != "2026-01-01" {
				t.Errorf("%s: filtered_from %v", path, got)
			}
		}
		body := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2025-12-20&to=2026-01-10%s", id, f), Key: key}), http.StatusOK)
		if got := body["meta"]; fmt.Sprint(got) != "map[filtered_from:2026-01-01]" {
			t.Errorf("summary meta %v", got)
		}
		wantSummary(t, body["data"].(map[string]any), wantTotals(visits, filters("country", "DE:Germany")))
	})

	// Past 10 M pageviews in a view filtered numbers are sampled, and then say so, with the
	// fraction read.
	t.Run("sampled past 10 M pageviews", func(t *testing.T) {
		f := filterQuery(filters("country", "DE:Germany"))
		fraction := bigView(t, e.DB, id)
		list := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&from=2025-01-11&to=2026-01-10%s", id, f), Key: key}), http.StatusOK)
		if got := list["meta"].(map[string]any)["sampled"]; got != fraction {
			t.Errorf("list sampled %v, want %v", got, fraction)
		}
		summary := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2025-01-11&to=2026-01-10%s", id, f), Key: key}), http.StatusOK)
		if got := summary["data"].(map[string]any)["sampled"]; got != fraction {
			t.Errorf("summary sampled %v, want %v", got, fraction)
		}
		series := want(t, e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2025-01-11&to=2026-01-10&interval=month%s", id, f), Key: key}), http.StatusOK)
		for _, d := range series["data"].([]any) {
			if got := d.(map[string]any)["sampled"]; got != fraction {
				t.Errorf("timeseries entry %v, want sampled %v", d, fraction)
			}
		}
	})
}

func wantSummary(t *testing.T, got map[string]any, w stats.Totals) {
	t.Helper()
	want := map[string]any{
		"visitors": float64(w.Visitors), "visits": float64(w.Visits), "pageviews": float64(w.Pageviews), "events": float64(w.Events),
		"bounce_rate": w.BounceRate(), "visit_duration": float64(w.VisitDuration()), "views_per_visit": w.ViewsPerVisit(),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("summary\n got  %v\n want %v", got, want)
	}
}

func wantBucket(t *testing.T, got map[string]any, w stats.Totals) {
	t.Helper()
	want := map[string]any{
		"date": got["date"], "visitors": float64(w.Visitors), "visits": float64(w.Visits), "pageviews": float64(w.Pageviews),
		"bounce_rate": w.BounceRate(), "visit_duration": float64(w.VisitDuration()),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bucket\n got  %v\n want %v", got, want)
	}
}

// liveWithVisits starts the service, adds the website domain with the Go client and writes
// 300 visits of 2026-01-01 .. 2026-01-10 into its filter rows, which start on 2026-01-01.
func liveWithVisits(t *testing.T, domain string) (*liveServer, *client.ClientWithResponses, client.Website, []repotest.Visit) {
	t.Helper()
	s := newLiveServer(t)
	c := newClient(t, s.URL, s.Key)
	site := storeWith(t, c, client.WebsiteStoreForm{Domain: domain})
	first := day("2026-01-01")
	visits := makeVisits(first, 10, 300)
	insertVisits(t, s.DB, site.Id, first, visits)
	return s, c, site, visits
}

// TestGoClientSendsFilters: the generated Go client sends filters (deepObject, from its typed
// StatsFilter) and reads the filtered answers, sampled and filtered_from included.
func TestGoClientSendsFilters(t *testing.T) {
	s, c, site, visits := liveWithVisits(t, "filters.example")
	ctx := context.Background()

	f := filters("country", "US:United States", "city", "US:New York, NY")
	filter := &client.StatsFilter{Country: ptr("US:United States"), City: ptr("US:New York, NY")}
	from, to := date(t, "2026-01-01"), date(t, "2026-01-31")
	list, err := c.ListStatsWithResponse(ctx, site.Id, &client.ListStatsParams{Name: client.StatNamePage, From: from, To: to,
		PerPage: ptr(client.PageSizeN100), Filter: filter})
	got := must(t, list, err, 200).JSON200
	var entries []string
	for _, e := range got.Data {
		entries = append(entries, fmt.Sprintf("%s=%d", e.Value, e.Count))
	}
	if want := wantList(visits, stats.Page, f); strings.Join(entries, " ") != want || want == "" {
		t.Errorf("pages\n got  %v\n want %s", entries, want)
	}
	if got.Meta.Sampled != nil || got.Meta.FilteredFrom != nil {
		t.Errorf("meta of 31 days inside the filter rows: %+v", got.Meta)
	}

	noEvent := &client.StatsFilter{Event: ptr("")}
	summary, err := c.GetSummaryWithResponse(ctx, site.Id, &client.GetSummaryParams{From: from, To: to, Filter: noEvent})
	sum := must(t, summary, err, 200).JSON200
	w := wantTotals(visits, filters("event", ""))
	if d := sum.Data; d.Visitors != w.Visitors || d.Visits != w.Visits || d.Pageviews != w.Pageviews || d.Events != 0 ||
		d.BounceRate != w.BounceRate() || d.VisitDuration != w.VisitDuration() || d.Sampled != nil || sum.Meta != nil {
		t.Errorf("summary %+v (meta %+v), want %+v", d, sum.Meta, w)
	}

	yearFrom, yearTo := date(t, "2025-01-11"), date(t, "2026-01-10")
	fraction := bigView(t, s.DB, site.Id)
	series, err := c.GetTimeseriesWithResponse(ctx, site.Id, &client.GetTimeseriesParams{From: yearFrom, To: yearTo,
		Interval: ptr(client.GetTimeseriesParamsIntervalMonth), Filter: filter})
	months := must(t, series, err, 200).JSON200
	for _, m := range months.Data {
		if m.Sampled == nil || *m.Sampled != fraction {
			t.Errorf("month %s: sampled %v, want %v", m.Date, m.Sampled, fraction)
		}
	}
	if months.Meta.FilteredFrom == nil || months.Meta.FilteredFrom.String() != "2026-01-01" {
		t.Errorf("filtered_from %v", months.Meta.FilteredFrom)
	}

	tooLong, err := c.GetSummaryWithResponse(ctx, site.Id, &client.GetSummaryParams{From: from, To: to,
		Filter: &client.StatsFilter{Page: ptr(strings.Repeat("/", 256))}})
	wantFields(t, must(t, tooLong, err, 422).JSON422.Errors, "filter")
}

// filtersExpected is what sdk/typescript/test/filters.test.ts must get (its ANALYTICS_EXPECT),
// counted here from the visits written.
type filtersExpected struct {
	Filter  map[string]string `json:"filter"`
	From    string            `json:"from"`
	To      string            `json:"to"`
	Pages   []map[string]any  `json:"pages"`
	Summary map[string]any    `json:"summary"`
	Year    map[string]any    `json:"year"`
}

// TestTypeScriptSDKFilters runs sdk/typescript/test/filters.test.ts: the SDK sends filters
// (openapi-fetch writes an object parameter as deepObject) and gets the numbers counted here.
func TestTypeScriptSDKFilters(t *testing.T) {
	dir := buildTypeScriptSDK(t)
	s, _, site, visits := liveWithVisits(t, "sdk-filters.example")

	f := filters("country", "DE:Germany", "page", "/pricing")
	exp := filtersExpected{Filter: map[string]string{}, From: "2026-01-01", To: "2026-01-31", Pages: []map[string]any{}}
	for _, x := range f {
		exp.Filter[string(x.Name)] = x.Value
	}
	for _, entry := range strings.Fields(wantList(visits, stats.Page, f)) {
		value, count, _ := strings.Cut(entry, "=")
		n, _ := strconv.Atoi(count)
		// Filtered page lists do not know engagement yet: null.
		exp.Pages = append(exp.Pages, map[string]any{"value": value, "count": n, "time_on_page": nil, "scroll_depth": nil})
	}
	w := wantTotals(visits, f)
	exp.Summary = map[string]any{"visitors": w.Visitors, "visits": w.Visits, "pageviews": w.Pageviews, "events": w.Events,
		"views_per_visit": w.ViewsPerVisit(), "bounce_rate": w.BounceRate(), "visit_duration": w.VisitDuration()}
	exp.Year = map[string]any{"from": "2025-01-11", "to": "2026-01-10", "filtered_from": "2026-01-01",
		"sampled": bigView(t, s.DB, site.Id)}
	if len(exp.Pages) == 0 || w.Visits == 0 {
		t.Fatalf("the filters match no visit: %+v", exp)
	}
	expect, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, []string{"ANALYTICS_BASE_URL=" + s.URL, "ANALYTICS_API_KEY=" + s.Key,
		"ANALYTICS_WEBSITE_ID=" + strconv.FormatInt(site.Id, 10), "ANALYTICS_EXPECT=" + string(expect)},
		"node", "--test", "--test-reporter=spec", filepath.Join("dist", "test", "filters.test.js"))
}

// TestFilterOperators: filter_any, filter_not, filter_contains and filter_contains_not beside filter, on the
// summary and a list, count the visits they should (as the test's own matcher counts them),
// and a malformed one is a 422 on `filter`.
func TestFilterOperators(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	first := day("2026-01-01")
	visits := makeVisits(first, 10, 600)
	insertVisits(t, e.DB, id, first, visits)
	cases := []string{
		`filter_any[country]=DE|US:Nowhere`,
		`filter_not[referrer]=www.google.com|`,
		`filter_not[page]=/pricing`,
		`filter_contains[page]=BLOG|docs`,
		`filter_contains[browser]=fox`,
		`filter_any[event]=|Signup::`,
		`filter[country]=DE&filter_not[city]=DE:Berlin`,
		`filter_any[page]=/pricing|/&filter_contains[referrer]=google`,
		`filter_not[event]=Signup::|`,
		`filter_contains[event]=SIGN`,
		`filter_contains[country]=germ`,              // the whole value, not the code
		`filter_any[page]=/|/a|/b|/c|/d|/e|/f|/g|/h`, // past the lists that && compares
		`filter_contains_not[page]=BLOG|docs`,        // no hit of the visit does
		`filter_contains_not[browser]=fox`,
		`filter_contains_not[event]=sign&filter_contains[page]=blog`,
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			values, err := url.ParseQuery(c)
			if err != nil {
				t.Fatal(err)
			}
			f, err := stats.ParseFilters(values)
			if err != nil || len(f) == 0 {
				t.Fatalf("%v %v", f, err)
			}
			if matched := len(matching(visits, f)); matched == 0 || matched == len(visits) {
				t.Fatalf("a case that tells nothing: %d of %d visits match", matched, len(visits))
			}
			e := e.in(t)
			q := "&" + values.Encode()
			res := e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-01-01&to=2026-01-31%s", id, q), Key: key})
			wantSummary(t, want(t, res, http.StatusOK)["data"].(map[string]any), wantTotals(visits, f))
			res = e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=country&from=2026-01-01&to=2026-01-31&per_page=100%s", id, q), Key: key})
			if got, want := entries(want(t, res, http.StatusOK)), wantList(visits, stats.Country, f); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
	for _, bad := range []string{`filter_any[nope]=a`, `filter_contains_not[nope]=a`, `filter_contains_not=a`, `filter_not[page]=a\b`, `filter_any=a`,
		`filter_contains[page]=` + strings.Repeat("a|", 20) + "a", `filter_any[page]=` + strings.Repeat("a", 256)} {
		t.Run("refused "+bad[:min(len(bad), 30)], func(t *testing.T) {
			res := e.in(t).Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-01-01&to=2026-01-31&%s", id, url.PathEscape(bad)), Key: key})
			wantField(t, res, "filter")
		})
	}
}

// TestOperatorFiltersCountTheMatchingPagesPageviews: under filter_any, filter_contains and
// filter_not on page, as under filter[page], the pageviews counted (summary, time series,
// page and pageview lists) are those of the pages the filters keep, in the matching visits;
// events keep the rule of filter[event]: every event of the matching visits. One designed day
// where the two readings differ, with the numbers written out.
func TestOperatorFiltersCountTheMatchingPagesPageviews(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	d := day("2026-01-05")
	visit := func(visitor int32, pages []string, events ...string) repotest.Visit {
		return repotest.Visit{Day: d, Visitor: visitor, Hour: 10, Pages: pages, Events: events, Seconds: 60}
	}
	insertVisits(t, e.DB, id, d, []repotest.Visit{
		visit(1, []string{"/blog/a", "/pricing", "/blog/b"}),
		visit(2, []string{"/docs", "/pricing"}, "Signup::"),
		visit(3, []string{"/", "/blog/a"}, "Purchase:5:USD"),
		visit(4, []string{"/docs", "/docs", "/"}),
		visit(5, []string{"/about"}, "Signup::"),
	})
	cases := []struct {
		query                     string
		visits, pageviews, events int
		pages                     string // the page list
	}{
		{`filter[page]=/docs`, 2, 3, 1, "/docs=3"},
		{`filter_any[page]=/docs`, 2, 3, 1, "/docs=3"},
		{`filter_contains[page]=/BLOG`, 2, 3, 1, "/blog/a=2 /blog/b=1"},
		{`filter_any[page]=/pricing|/docs`, 3, 5, 1, "/docs=3 /pricing=2"},
		// Visits none of whose pages is /pricing: every one of their pages is kept.
		{`filter_not[page]=/pricing`, 3, 6, 2, "/=2 /docs=2 /about=1 /blog/a=1"},
		{`filter_contains[page]=blog&filter_not[page]=/blog/b`, 1, 1, 1, "/blog/a=1"},
		{`filter_any[page]=/|/docs&filter_contains[page]=doc`, 2, 3, 1, "/docs=3"},
		{`filter[page]=/docs&filter_not[page]=/pricing`, 1, 2, 0, "/docs=2"},
		// An event filter narrows the visits; their pageviews and events all count, whatever
		// the operator, as under filter[event].
		{`filter[event]=Signup::`, 2, 3, 2, "/about=1 /docs=1 /pricing=1"},
		{`filter_any[event]=Signup::`, 2, 3, 2, "/about=1 /docs=1 /pricing=1"},
		{`filter_contains[event]=sign`, 2, 3, 2, "/about=1 /docs=1 /pricing=1"},
		{`filter_any[event]=Signup::|Purchase:5:USD`, 3, 5, 3, "/=1 /about=1 /blog/a=1 /docs=1 /pricing=1"},
		{`filter_not[event]=Signup::`, 3, 8, 1, "/=2 /blog/a=2 /docs=2 /blog/b=1 /pricing=1"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e := e.in(t)
			values, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			q := fmt.Sprintf("from=2026-01-05&to=2026-01-05&%s", values.Encode())
			sum := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?%s", id, q), Key: key}), http.StatusOK)["data"].(map[string]any)
			if got, want := fmt.Sprint(sum["visitors"], sum["visits"], sum["pageviews"], sum["events"]),
				fmt.Sprint(c.visits, c.visits, c.pageviews, c.events); got != want {
				t.Errorf("summary visitors, visits, pageviews, events %s, want %s", got, want)
			}
			series := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/timeseries?%s", id, q), Key: key}), http.StatusOK)["data"].([]any)
			if got := series[0].(map[string]any)["pageviews"]; len(series) != 1 || got != float64(c.pageviews) {
				t.Errorf("time series pageviews %v of %d buckets, want %d", got, len(series), c.pageviews)
			}
			list := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=page&%s", id, q), Key: key}), http.StatusOK)
			if got := entries(list); got != c.pages {
				t.Errorf("pages %s, want %s", got, c.pages)
			}
			list = want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d?name=pageview&%s", id, q), Key: key}), http.StatusOK)
			if got, want := entries(list), fmt.Sprintf("2026-01-05=%d", c.pageviews); got != want {
				t.Errorf("pageview list %s, want %s", got, want)
			}
		})
	}
}
