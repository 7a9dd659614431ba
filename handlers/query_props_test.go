package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// queryPropVisits are visits of 2026-03-01 and 03-02 whose hits carried custom properties, day
// numbers the visitors.
func queryPropVisits() []repotest.Visit {
	d1, d2 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	p := stats.PropPair
	v := func(day time.Time, visitor int32, pages []string, events []string, props ...string) repotest.Visit {
		return repotest.Visit{Day: day, Visitor: visitor, Pages: pages, Events: events, Props: props,
			Values: map[stats.Name]string{stats.Country: "DE:Germany", stats.LandingPage: pages[0], stats.ExitPage: pages[len(pages)-1]}}
	}
	return []repotest.Visit{
		v(d1, 1, []string{"/", "/pricing"}, nil, p("plan", "pro"), p("plan", "pro"), p("author", "Ada")),
		v(d1, 1, []string{"/blog"}, []string{"Signup::"}, p("plan", "free")),
		v(d1, 2, []string{"/"}, nil, p("plan", "(redacted)")),
		v(d1, 3, []string{"/"}, nil),
		v(d2, 1, []string{"/"}, []string{"Signup::"}, p("plan", "pro"), p("plan", "free"), p("plan", "pro")),
		v(d2, 4, []string{"/blog"}, nil, p("author", "Ada")),
	}
}

// propValuesOf are the values of key a visit's hits carried, and how many hits each.
func propValuesOf(v repotest.Visit, key string) map[string]int {
	out := map[string]int{}
	for _, pair := range v.Props {
		if k, value := stats.SplitPropPair(pair); k == key {
			out[value]++
		}
	}
	return out
}

// TestQueryProps: event:props:KEY filters keep the visits one of whose hits carried a
// matching value; as a dimension, a visit counts for each value its hits carried (events: the
// hits that carried it), and for "(none)" when they carried none.
func TestQueryProps(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := int64(e.store(key, "domain", "props.example")["id"].(float64))
	visits := queryPropVisits()
	repotest.WriteVisitRows(t, e.DB, site, visits)
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE websites SET filters_from = '2026-03-01' WHERE id = $1`, site); err != nil {
		t.Fatal(err)
	}
	const head = `{"site_id": "props.example", "date_range": ["2026-03-01", "2026-03-02"], `
	carries := func(values ...string) func(repotest.Visit) bool {
		return func(v repotest.Visit) bool {
			for value := range propValuesOf(v, "plan") {
				if slices.Contains(values, value) {
					return true
				}
			}
			return false
		}
	}

	for filter, keep := range map[string]func(repotest.Visit) bool{
		`["is", "event:props:plan", ["pro", "(redacted)"]]`:                   carries("pro", "(redacted)"),
		`["contains", "event:props:plan", ["RE"], {"case_sensitive": false}]`: carries("free", "(redacted)"),
		`["matches", "event:props:plan", ["^f"]]`:                             carries("free"),
		// A hit of the visit carried a value that is not "pro".
		`["is_not", "event:props:plan", ["pro"]]`: carries("free", "(redacted)"),
	} {
		_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "visits"], "filters": [`+filter+`]}`))
		vs, n, _ := counted(visits, keep)
		if want := fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n)}); len(lines) != 1 || lines[0] != want {
			t.Errorf("%s: got %v, want %s", filter, lines, want)
		}
	}

	_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "visits", "events"],
		"dimensions": ["event:props:plan"], "order_by": [["event:props:plan", "asc"]]}`))
	var want []string
	for _, value := range []string{"(none)", "(redacted)", "free", "pro"} {
		keep, events := carries(value), 0
		if value == "(none)" {
			keep = func(v repotest.Visit) bool { return len(propValuesOf(v, "plan")) == 0 }
		}
		for _, v := range visits {
			switch {
			case value == "(none)" && keep(v):
				events += len(v.Pages) + len(v.Events)
			case keep(v):
				events += propValuesOf(v, "plan")[value]
			}
		}
		vs, n, _ := counted(visits, keep)
		want = append(want, fmt.Sprint([]any{value}, "=", []any{float64(vs), float64(n), float64(events)}))
	}
	if !slices.Equal(lines, want) {
		t.Errorf("by plan: got %v, want %v", lines, want)
	}

	for body, words := range map[string][]string{
		head + `"metrics": ["pageviews"], "dimensions": ["event:props:plan"]}`:   {"pageviews", "event:props:plan"},
		head + `"metrics": ["bounce_rate"], "dimensions": ["event:props:plan"]}`: {"bounce_rate", "event:props:plan"},
		head + `"metrics": ["visitors"], "dimensions": ["event:props:"]}`:        {"custom property"},
	} {
		wantQueryError(t, e.in(t).query(key, body), http.StatusBadRequest, words...)
	}
}
