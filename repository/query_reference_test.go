package repository_test

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestQueryMatchesReference compares the query engine's answers with a straightforward
// count over the visits themselves, on random visits where visitors come back the same day
// and visits view a page more than once: the cases where counting each visitor once a day in
// each group, and each visit once per page, can go wrong.
func TestQueryMatchesReference(t *testing.T) {
	f := newFixture(t, "example.com")
	site := f.sites[0]
	from, to := date("2026-03-01"), date("2026-03-10")
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(27, 35)), from, to, 60)
	repotest.WriteVisitRows(t, f.db, site, visits)
	env := queryapi.Env{Now: to.AddDate(0, 0, 1).Add(12 * time.Hour), Location: time.UTC}

	blog := regexp.MustCompile(`^/blog/`)
	filters := []struct {
		json  string
		visit func(repotest.Visit) bool
		page  func(string) bool // the pageviews that count, or nil for all
	}{
		// Every visit passes (without a filter, the counters would answer).
		{`[["is_not", "visit:screen", ["0x0"]]]`, nil, nil},
		{`[["is", "visit:browser", ["Microsoft Edge", "Firefox"]]]`, func(v repotest.Visit) bool {
			return v.Values[stats.Browser] == "Edge" || v.Values[stats.Browser] == "Firefox"
		}, nil},
		{`[["matches", "visit:country", ["^(DE|FR)$"]]]`, func(v repotest.Visit) bool {
			c, _, _ := strings.Cut(v.Values[stats.Country], ":")
			return c == "DE" || c == "FR"
		}, nil},
		{`[["is_not", "visit:device", ["Mobile"]]]`, func(v repotest.Visit) bool { return v.Values[stats.Device] != "Mobile" }, nil},
		{`[["is", "event:page", ["/pricing"]]]`, nil, func(p string) bool { return p == "/pricing" }},
		{`[["matches", "event:page", ["^/blog/"]]]`, nil, blog.MatchString},
	}
	shapes := []struct{ metrics, dims string }{
		{`"visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit"`, ``},
		{`"visitors", "visits", "pageviews", "bounce_rate"`, `"visit:browser"`},
		{`"visitors", "pageviews", "visit_duration", "percentage"`, `"visit:country_name", "visit:device"`},
		{`"visitors", "visits"`, `"visit:os", "time:day"`},
		// Stored values that share an answer: DE:Germany and DE:Deutschland are both DE, the
		// days of a week one week.
		{`"visitors", "visits", "percentage"`, `"visit:country", "time:week"`},
		{`"visitors", "pageviews"`, `"visit:device", "time:hour"`},
		{`"visits", "pageviews", "bounce_rate"`, `"visit:city_name"`},
		{`"visitors", "visits", "pageviews", "bounce_rate", "visit_duration"`, `"event:page"`},
		{`"visitors", "pageviews", "percentage"`, `"event:page", "visit:device"`},
	}
	ctx := context.Background()
	// Both ways of telling the visitor-days of several visits apart: a list, and a join.
	for _, maxRepeats := range []int{1_000, -1} {
		restore := f.repo.SetMaxRepeats(maxRepeats)
		for _, fl := range filters {
			for _, sh := range shapes {
				body := `{"site_id": "example.com", "date_range": ["2026-03-01", "2026-03-10"], "metrics": [` + sh.metrics + `]`
				if sh.dims != "" {
					body += `, "dimensions": [` + sh.dims + `]`
				}
				body += `, "filters": ` + fl.json + `}`
				q, err := queryapi.Parse([]byte(body), env)
				if err != nil {
					t.Fatalf("%s: %v", body, err)
				}
				answer, err := f.repo.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
				if err != nil {
					t.Fatalf("%s: %v", body, err)
				}
				got := map[string][]float64{}
				for _, row := range answer.Rows {
					got[strings.Join(row.Dimensions, "|")] = row.Metrics
				}
				want := referenceAnswer(q, visits, fl.visit, fl.page)
				if len(got) != len(want) {
					t.Errorf("%s: %d rows, want %d", body, len(got), len(want))
				}
				for key, w := range want {
					if g, ok := got[key]; !ok || !slices.Equal(g, w) {
						t.Errorf("%s: %q = %v, want %v", body, key, g, w)
					}
				}
			}
		}
		restore()
	}
}

// referenceGroup is what one group of dimension values counts.
type referenceGroup struct {
	visitors                         map[string]bool // day and visitor
	visits, pageviews, bounces, secs int64
}

// referenceAnswer counts q's metrics over the visits that keep holds (nil: all) and, when
// page is given, a visit with such a page, counting only those pageviews.
func referenceAnswer(q *queryapi.Query, visits []repotest.Visit, keep func(repotest.Visit) bool, page func(string) bool) map[string][]float64 {
	groups := map[string]*referenceGroup{}
	total := map[string]bool{}
	for _, v := range visits {
		pages := v.Pages
		if page != nil {
			pages = slices.DeleteFunc(slices.Clone(v.Pages), func(p string) bool { return !page(p) })
		}
		if (keep != nil && !keep(v)) || len(pages) == 0 {
			continue
		}
		visitor := fmt.Sprint(v.Day, v.Visitor)
		total[visitor] = true
		// Each group the visit is in, with the pageviews it counts there.
		counted := map[string]int64{}
		for _, p := range pages {
			key := referenceKey(q, v, p)
			counted[key]++
		}
		for key, n := range counted {
			g := groups[key]
			if g == nil {
				g = &referenceGroup{visitors: map[string]bool{}}
				groups[key] = g
			}
			g.visitors[visitor] = true
			g.visits++
			g.pageviews += n
			if v.Bounce() {
				g.bounces++
			}
			g.secs += int64(v.Seconds)
		}
	}
	out := map[string][]float64{}
	for key, g := range groups {
		var metrics []float64
		for _, m := range q.Metrics {
			metrics = append(metrics, referenceMetric(m, g, len(total)))
		}
		out[key] = metrics
	}
	return out
}

// referenceKey is the answer's dimension values of visit v (and its pageview p), joined.
func referenceKey(q *queryapi.Query, v repotest.Visit, p string) string {
	var parts []string
	for _, d := range q.Dimensions {
		switch d.Level {
		case queryapi.PageLevel:
			parts = append(parts, p)
		case queryapi.TimeLevel:
			parts = append(parts, referenceTime(q, v))
		default:
			parts = append(parts, d.Answer(v.Values[d.Stat]))
		}
	}
	return strings.Join(parts, "|")
}

// referenceTime is the label of v's time bucket.
func referenceTime(q *queryapi.Query, v repotest.Visit) string {
	switch q.TimeUnit() {
	case queryapi.Hour:
		return v.Day.Add(time.Duration(v.Hour) * time.Hour).Format("2006-01-02 15:00:00")
	case queryapi.Week:
		monday := v.Day.AddDate(0, 0, -(int(v.Day.Weekday())+6)%7)
		if monday.Before(q.Range.From) {
			monday = q.Range.From
		}
		return monday.Format(time.DateOnly)
	}
	return v.Day.Format(time.DateOnly)
}

// referenceMetric is one metric of a group, rounded in integers (halves up) as the summary
// rounds.
func referenceMetric(m queryapi.Metric, g *referenceGroup, total int) float64 {
	half := func(num, den int64) int64 { return (2*num + den) / (2 * den) }
	switch m {
	case queryapi.Visitors:
		return float64(len(g.visitors))
	case queryapi.Visits:
		return float64(g.visits)
	case queryapi.Pageviews:
		return float64(g.pageviews)
	case queryapi.BounceRate:
		return float64(half(1000*g.bounces, g.visits)) / 10
	case queryapi.VisitDuration:
		return float64(half(g.secs, g.visits))
	case queryapi.ViewsPerVisit:
		return float64(half(100*g.pageviews, g.visits)) / 100
	case queryapi.Percentage:
		return float64(half(1000*int64(len(g.visitors)), int64(total))) / 10
	}
	panic("no reference for " + string(m))
}
