package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// TestV1AndQueryAPIAgree asks v1 (summary, time series, lists) and the query API the same
// questions over random traffic sent through the collector, and requires the same numbers: one
// engine answers both (docs/engine.md). The traffic is a seeded generator's (visitors, pages,
// referrers, tags, events, properties over five days); a day before it is counted as imported
// (counters only), which both count where the counters answer (no filter) and neither where the
// visit rows do. The questions are random too: a range, zero to two filters of every v1 kind
// (filter, filter_any, filter_not, filter_contains, property_filter, filter[goal]) and a
// visit-level list or the page list.
func TestV1AndQueryAPIAgree(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	e.storeGoal(key, id, "kind", "event", "event", "Signup")
	e.storeGoal(key, id, "kind", "pageview", "page", "/blog/*")
	rng := rand.New(rand.NewPCG(37, 2026))
	first := harness.Today.Truncate(24 * time.Hour)
	sendTraffic(t, e, rng, first, 5)
	imported := first.AddDate(0, 0, -1).Format(time.DateOnly)
	for name, values := range map[string]map[string]int64{
		"pageview": {imported: 40}, "visitor": {imported: 12}, "visit": {imported: 15},
		"bounce": {imported: 4}, "timed_visit": {imported: 10}, "visit_seconds": {imported: 900},
		"browser": {"Chrome": 9, "Firefox": 6}, "page": {"/": 30, "/pricing": 10},
		"referrer": {"": 10, "news.example": 5}, "device": {"desktop": 15},
	} {
		e.Count(id, imported, name, values)
	}
	last := first.AddDate(0, 0, 4)
	nonEmpty := 0
	ranges := [][2]time.Time{{first.AddDate(0, 0, -1), last}, {first, last}, {first.AddDate(0, 0, 1), first.AddDate(0, 0, 2)}, {first, first}}
	for i := range 60 {
		rg := ranges[rng.IntN(len(ranges))]
		filters := randomFilters(rng)
		name := fmt.Sprintf("#%d %s..%s %v", i, rg[0].Format(time.DateOnly), rg[1].Format(time.DateOnly), filters)
		a := agreement{t: t, e: e, key: key, id: id, from: rg[0], to: rg[1], filters: filters, name: name, nonEmpty: &nonEmpty}
		a.summary()
		a.series(rg[0].Equal(rg[1]))
		a.list(listNames[rng.IntN(len(listNames))])
		a.list(stats.Page)
	}
	if nonEmpty < 60 {
		t.Errorf("%d lists with rows of about 100: the traffic is not what the test means to ask about", nonEmpty)
	}
}

// The generator's values. Browsers, systems and devices include values Plausible spells
// otherwise (macOS is Mac, tablet and desktop are Tablet and Desktop).
var (
	agreementAgents = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
	}
	agreementPages     = []string{"/", "/pricing", "/blog/one", "/blog/two", "/docs"}
	agreementReferrers = []string{"", "", "https://www.google.com/", "https://news.example/item", "https://t.co/x"}
	agreementTags      = []string{"", "", "?utm_source=newsletter", "?utm_source=ads&utm_medium=cpc"}
	agreementEvents    = []string{"Signup", "Download"}
	agreementPlans     = []string{"", "pro", "free"}
)

// sendTraffic sends days of visits through POST /api/event, from first on: each visit a few
// hits from one address and user agent, a visitor sometimes coming back the same day; each day
// flushed once its visits have ended.
func sendTraffic(t *testing.T, e *env, rng *rand.Rand, first time.Time, days int) {
	t.Helper()
	for d := range days {
		e.Clock.Set(first.AddDate(0, 0, d).Add(time.Hour))
		if err := e.App.Pipeline.RefreshSalts(context.Background()); err != nil {
			t.Fatal(err)
		}
		for v := range 25 + rng.IntN(15) {
			remote := fmt.Sprintf("198.51.100.%d:4000", 1+rng.IntN(30))
			agent := agreementAgents[rng.IntN(len(agreementAgents))]
			referrer := agreementReferrers[rng.IntN(len(agreementReferrers))]
			tags := agreementTags[rng.IntN(len(agreementTags))]
			plan := agreementPlans[rng.IntN(len(agreementPlans))]
			for h := range 1 + rng.IntN(4) {
				hit := map[string]any{"n": "pageview", "d": "example.com"}
				page := agreementPages[rng.IntN(len(agreementPages))]
				if h > 0 && rng.IntN(3) == 0 {
					hit["n"] = agreementEvents[rng.IntN(len(agreementEvents))]
				}
				hit["u"] = "https://example.com" + page
				if h == 0 {
					hit["u"] = "https://example.com" + page + tags
					if referrer != "" {
						hit["r"] = referrer
					}
				}
				if plan != "" {
					hit["p"] = map[string]string{"plan": plan}
				}
				body, _ := json.Marshal(hit)
				res := e.Do(harness.Request{Method: http.MethodPost, Path: "/api/event", Body: string(body), Remote: remote,
					Headers: map[string]string{"User-Agent": agent, "Content-Type": "text/plain;charset=UTF-8"}})
				if res.Status != http.StatusAccepted {
					t.Fatalf("%s: %d %s", body, res.Status, res.Body)
				}
				e.Clock.Advance(time.Duration(1+rng.IntN(90)) * time.Second)
			}
			// Visits a few minutes apart; now and then one of the same visitor, later.
			e.Clock.Advance(time.Duration(v%3) * time.Minute)
		}
		e.Clock.Advance(2 * time.Hour) // every visit of the day ends
		if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// agreementFilter is one filter as v1 and as the query API say it.
type agreementFilter struct {
	v1    stats.Filter
	query string // a filter of the query API's filters
}

// randomFilters are zero to two filters on different names, of every v1 kind.
func randomFilters(rng *rand.Rand) []agreementFilter {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	makers := []func() agreementFilter{
		func() agreementFilter {
			b := pick("Chrome", "Firefox", "Safari", "Mobile Safari")
			return agreementFilter{v1: stats.Filter{Name: stats.Browser, Value: b}, query: fmt.Sprintf(`["is", "visit:browser", [%q]]`, b)}
		},
		func() agreementFilter {
			return agreementFilter{v1: stats.Filter{Name: stats.OperatingSystem, Op: stats.AnyOf, Values: []string{"macOS", "iOS"}},
				query: `["is", "visit:os", ["Mac", "iOS"]]`}
		},
		func() agreementFilter {
			d := pick("desktop", "mobile", "tablet")
			return agreementFilter{v1: stats.Filter{Name: stats.Device, Op: stats.NoneOf, Values: []string{d}}, query: fmt.Sprintf(`["is_not", "visit:device", [%q]]`, d)}
		},
		func() agreementFilter {
			s := pick("GOOGLE", "news", "t.c")
			return agreementFilter{v1: stats.Filter{Name: stats.Referrer, Op: stats.ContainsAny, Values: []string{s}},
				query: fmt.Sprintf(`["contains", "visit:referrer", [%q], {"case_sensitive": false}]`, s)}
		},
		func() agreementFilter {
			return agreementFilter{v1: stats.Filter{Name: stats.UTMSource, Value: "newsletter"}, query: `["is", "visit:utm_source", ["newsletter"]]`}
		},
		func() agreementFilter {
			p := pick(agreementPages...)
			return agreementFilter{v1: stats.Filter{Name: stats.LandingPage, Value: p}, query: fmt.Sprintf(`["is", "visit:entry_page", [%q]]`, p)}
		},
		func() agreementFilter {
			p := pick(agreementPages...)
			return agreementFilter{v1: stats.Filter{Name: stats.Page, Value: p}, query: fmt.Sprintf(`["is", "event:page", [%q]]`, p)}
		},
		func() agreementFilter {
			return agreementFilter{v1: stats.Filter{Name: stats.Page, Op: stats.NoneOf, Values: []string{"/", "/docs"}},
				query: `["not", ["is", "event:page", ["/", "/docs"]]]`}
		},
		func() agreementFilter {
			return agreementFilter{v1: stats.Filter{Name: stats.Page, Op: stats.AnyOf, Values: []string{"/pricing", "/docs"}},
				query: `["is", "event:page", ["/pricing", "/docs"]]`}
		},
		func() agreementFilter {
			return agreementFilter{v1: stats.Filter{Name: stats.Page, Op: stats.ContainsAny, Values: []string{"BLOG"}},
				query: `["contains", "event:page", ["BLOG"], {"case_sensitive": false}]`}
		},
		func() agreementFilter {
			p := pick("pro", "free")
			return agreementFilter{v1: stats.Filter{Name: stats.Property, Key: "plan", Value: p}, query: fmt.Sprintf(`["is", "event:props:plan", [%q]]`, p)}
		},
		func() agreementFilter {
			g := pick("Signup", "Visit /blog/*")
			return agreementFilter{v1: stats.Filter{Name: stats.GoalName, Value: g}, query: fmt.Sprintf(`["is", "event:goal", [%q]]`, g)}
		},
	}
	var out []agreementFilter
	for range rng.IntN(3) {
		f := makers[rng.IntN(len(makers))]()
		if !slices.ContainsFunc(out, func(o agreementFilter) bool { return o.v1.Name == f.v1.Name }) {
			out = append(out, f)
		}
	}
	return out
}

// listNames are the visit-level lists asked of both.
var listNames = []stats.Name{stats.Browser, stats.OperatingSystem, stats.Device, stats.Referrer, stats.LandingPage,
	stats.ExitPage, stats.Source, stats.Channel, stats.UTMSource}

// agreement asks one question of both APIs.
type agreement struct {
	t        *testing.T
	e        *env
	key      string
	id       int64
	from, to time.Time
	filters  []agreementFilter
	name     string
	nonEmpty *int // lists with a row, so that the test cannot pass on no data
}

func (a agreement) hasGoal() bool {
	return slices.ContainsFunc(a.filters, func(f agreementFilter) bool { return f.v1.Name == stats.GoalName })
}

// v1 is a v1 read's body: path after the website's, with the range and the filters.
func (a agreement) v1(path string, params url.Values) map[string]any {
	a.t.Helper()
	var fs stats.Filters
	for _, f := range a.filters {
		fs = append(fs, f.v1)
	}
	params.Set("from", a.from.Format(time.DateOnly))
	params.Set("to", a.to.Format(time.DateOnly))
	q := params.Encode()
	if len(fs) > 0 {
		q += "&" + fs.Query().Encode()
	}
	res := a.e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d%s?%s", a.id, path, q), Key: a.key})
	return want(a.t, res, http.StatusOK)
}

// query is the query API's rows of the metrics and dimensions over the range and the filters:
// each row's dimensions joined by "|" -> its metrics.
func (a agreement) query(metrics, dimensions []string) map[string][]any {
	a.t.Helper()
	var filters []string
	for _, f := range a.filters {
		filters = append(filters, f.query)
	}
	body := fmt.Sprintf(`{"site_id": "example.com", "date_range": [%q, %q], "metrics": %s, "dimensions": %s, "filters": [%s]}`,
		a.from.Format(time.DateOnly), a.to.Format(time.DateOnly), jsonList(metrics), jsonList(dimensions), strings.Join(filters, ", "))
	res := a.e.query(a.key, body)
	if res.Status != http.StatusOK {
		a.t.Fatalf("%s: query %s: %d %s", a.name, body, res.Status, res.Body)
	}
	out := map[string][]any{}
	for _, r := range res.JSON(a.t)["results"].([]any) {
		row := r.(map[string]any)
		var dims []string
		for _, d := range row["dimensions"].([]any) {
			dims = append(dims, d.(string))
		}
		out[strings.Join(dims, "|")] = row["metrics"].([]any)
	}
	return out
}

func jsonList(xs []string) string {
	b, _ := json.Marshal(xs)
	if xs == nil {
		return "[]"
	}
	return string(b)
}

// summary: v1's summary against the query API's aggregate.
func (a agreement) summary() {
	a.t.Helper()
	v1 := a.v1("/summary", url.Values{})["data"].(map[string]any)
	names := []string{"visitors", "visits", "bounce_rate", "visit_duration", "pageviews", "views_per_visit"}
	if a.hasGoal() {
		names = append(names, "conversion_rate")
	}
	got := a.query(names, nil)[""]
	for i, n := range names {
		want := v1[n]
		if want == nil {
			want = 0.0
		}
		if got == nil || fmt.Sprint(got[i]) != fmt.Sprint(want) {
			a.t.Errorf("%s: summary %s: query API %v, v1 %v", a.name, n, got, want)
			return
		}
	}
}

// series: v1's time series by day (by hour over one day) against the query API's time
// dimension, for every bucket with visits.
func (a agreement) series(hours bool) {
	a.t.Helper()
	interval, dimension := "day", "time:day"
	if hours {
		interval, dimension = "hour", "time:hour"
	}
	names := []string{"visitors", "visits", "bounce_rate", "visit_duration", "pageviews"}
	got := a.query(names, []string{dimension})
	for _, b := range a.v1("/timeseries", url.Values{"interval": {interval}})["data"].([]any) {
		bucket := b.(map[string]any)
		label := bucket["date"].(string)
		if hours {
			label = strings.Replace(strings.TrimSuffix(label, "Z"), "T", " ", 1)
			label = label[:min(len(label), 19)]
		}
		row, ok := got[label]
		if bucket["visits"].(float64) == 0 && bucket["pageviews"].(float64) == 0 && !ok {
			continue
		}
		for i, n := range names {
			if !ok || fmt.Sprint(row[i]) != fmt.Sprint(bucket[n]) {
				a.t.Errorf("%s: %s %s: query API %v, v1 %v", a.name, dimension, label, row, bucket)
				break
			}
		}
		delete(got, label)
	}
	if len(got) > 0 {
		a.t.Errorf("%s: %s: query API buckets v1 has not: %v", a.name, dimension, got)
	}
}

// dimensionOf is the query API's dimension of a v1 list.
var dimensionOf = map[stats.Name]string{
	stats.Browser: "visit:browser", stats.OperatingSystem: "visit:os", stats.Device: "visit:device",
	stats.Referrer: "visit:referrer", stats.LandingPage: "visit:entry_page", stats.ExitPage: "visit:exit_page",
	stats.Source: "visit:source", stats.Channel: "visit:channel", stats.UTMSource: "visit:utm_source", stats.Page: "event:page",
}

// list: a v1 list's counts (visits of a visit-level name, pageviews of pages) against the
// query API's breakdown, v1's values spelled as the query API answers them.
func (a agreement) list(name stats.Name) {
	a.t.Helper()
	dimension, metric := dimensionOf[name], "visits"
	if name == stats.Page {
		metric = "pageviews"
	}
	field := fieldOf(a.t, dimension)
	want := map[string]float64{}
	for _, d := range a.v1("", url.Values{"name": {string(name)}, "per_page": {"100"}})["data"].([]any) {
		entry := d.(map[string]any)
		want[field.Answer(entry["value"].(string))] += entry["count"].(float64)
	}
	got := map[string]float64{}
	for label, m := range a.query([]string{metric}, []string{dimension}) {
		got[label] = m[0].(float64)
	}
	if d, _, ok := stats.DimensionOf(name); ok && d.OnlyGiven {
		// v1 lists no visit without a value of these names (their counters count none).
		delete(got, "")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		a.t.Errorf("%s: %s by %s: query API %v, v1 %v", a.name, metric, dimension, got, want)
	}
	*a.nonEmpty += min(len(got), 1)
}

// fieldOf is the query API's field of a dimension, which spells its values.
func fieldOf(t *testing.T, dimension string) query.Field {
	t.Helper()
	q, err := query.Parse([]byte(`{"site_id": "x", "metrics": ["visits"], "date_range": "7d", "dimensions": [`+fmt.Sprintf("%q", dimension)+`]}`),
		query.Env{Now: harness.Today, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	return q.Dimensions[0]
}
