package handlers_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// The goals of goalSite as the fixture's visits convert on them: Signup is a pageview of
// /signup/* (the query string aside), "Outbound Link: Click" the event of that name (or, on
// a row written before names were kept, of that encoded name).
func convertsOnSignup(v repotest.Visit) bool {
	return slices.ContainsFunc(v.Pages, func(p string) bool { return strings.HasPrefix(p, "/signup/") })
}

func convertsOnClick(v repotest.Visit) bool {
	if v.EventNames == nil {
		return slices.ContainsFunc(v.Events, func(e string) bool { return strings.HasPrefix(e, "Outbound Link  Click:") })
	}
	return slices.Contains(v.EventNames, "Outbound Link: Click")
}

func rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return math.Round(1000*float64(part)/float64(whole)) / 10
}

// TestQueryGoalFilter: an event:goal filter keeps the visits that convert on the goals it
// names, as filter[goal] does; conversion_rate divides by the visitors of the query without
// it, group_conversion_rate by those of the row's own dimensions.
func TestQueryGoalFilter(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	e.goalSite(key)
	visits := goalVisits()
	const head = `{"site_id": "goals.example", "date_range": ["2026-03-01", "2026-03-02"], `

	t.Run("is, aggregate", func(t *testing.T) {
		_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "visits", "conversion_rate", "group_conversion_rate"],
			"filters": [["is", "event:goal", ["Signup"]]]}`))
		vs, n, _ := counted(visits, convertsOnSignup)
		all, _, _ := counted(visits, all)
		if vs == 0 || vs == all {
			t.Fatalf("the fixture does not tell converting visitors apart: %d of %d", vs, all)
		}
		r := rate(vs, all)
		want := fmt.Sprint([]any{}, "=", []any{float64(vs), float64(n), r, r})
		if len(lines) != 1 || lines[0] != want {
			t.Errorf("got %v, want %s", lines, want)
		}
	})

	t.Run("contains, by country", func(t *testing.T) {
		_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "conversion_rate", "group_conversion_rate"],
			"filters": [["contains", "event:goal", ["sign", "Outbound"], {"case_sensitive": false}]],
			"dimensions": ["visit:country_name"], "order_by": [["visit:country_name", "asc"]]}`))
		either := func(v repotest.Visit) bool { return convertsOnSignup(v) || convertsOnClick(v) }
		all, _, _ := counted(visits, all)
		var want []string
		for _, country := range []string{"Germany", "United States"} {
			in := func(v repotest.Visit) bool { return strings.HasSuffix(v.Values[stats.Country], ":"+country) }
			vs, _, _ := counted(visits, func(v repotest.Visit) bool { return in(v) && either(v) })
			group, _, _ := counted(visits, in)
			want = append(want, fmt.Sprint([]any{country}, "=", []any{float64(vs), rate(vs, all), rate(vs, group)}))
		}
		if !slices.Equal(lines, want) {
			t.Errorf("got %v, want %v", lines, want)
		}
	})

	t.Run("no such goal matches nothing", func(t *testing.T) {
		_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "conversion_rate"],
			"filters": [["is", "event:goal", ["Nope"]]]}`))
		if want := fmt.Sprint([]any{}, "=", []any{0.0, 0.0}); len(lines) != 1 || lines[0] != want {
			t.Errorf("got %v, want %s", lines, want)
		}
	})

	t.Run("by goal", func(t *testing.T) {
		_, lines := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "events", "conversion_rate"],
			"dimensions": ["event:goal"]}`))
		all, _, _ := counted(visits, all)
		var want []string
		for _, g := range []struct {
			name     string
			converts func(repotest.Visit) bool
			events   func(repotest.Visit) int
		}{
			{"Outbound Link: Click", convertsOnClick, func(v repotest.Visit) int {
				if v.EventNames == nil {
					return len(v.Events)
				}
				return len(slices.DeleteFunc(slices.Clone(v.EventNames), func(n string) bool { return n != "Outbound Link: Click" }))
			}},
			{"Signup", convertsOnSignup, func(v repotest.Visit) int {
				return len(slices.DeleteFunc(slices.Clone(v.Pages), func(p string) bool { return !strings.HasPrefix(p, "/signup/") }))
			}},
			{"Visit /blog/*", func(v repotest.Visit) bool { return slices.Contains(v.Pages, "/blog/a") }, func(v repotest.Visit) int {
				return len(slices.DeleteFunc(slices.Clone(v.Pages), func(p string) bool { return !strings.HasPrefix(p, "/blog/") }))
			}},
		} {
			vs, _, _ := counted(visits, g.converts)
			events := 0
			for _, v := range visits {
				if g.converts(v) {
					events += g.events(v)
				}
			}
			want = append(want, fmt.Sprint([]any{g.name}, "=", []any{float64(vs), float64(events), rate(vs, all)}))
		}
		// Visitors descending, then the goal's name.
		if !slices.Equal(lines, want) {
			t.Errorf("got %v, want %v", lines, want)
		}

		// A goal filter keeps the goals it names; group_conversion_rate is by the country.
		_, lines = wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "group_conversion_rate"],
			"dimensions": ["visit:country", "event:goal"], "filters": [["is", "event:goal", ["Signup"]]]}`))
		de, _, _ := counted(visits, func(v repotest.Visit) bool { return strings.HasPrefix(v.Values[stats.Country], "DE:") })
		vs, _, _ := counted(visits, convertsOnSignup)
		if want := fmt.Sprint([]any{"DE", "Signup"}, "=", []any{float64(vs), rate(vs, de)}); len(lines) != 1 || lines[0] != want {
			t.Errorf("got %v, want %s", lines, want)
		}
	})

	t.Run("by goal and day, with percentage", func(t *testing.T) {
		body, _ := wantQuery(t, e.in(t).query(key, head+`"metrics": ["visitors", "percentage"],
			"dimensions": ["event:goal", "time:day"], "include": {"total_rows": true}}`))
		all, _, _ := counted(visits, all)
		rows := body["results"].([]any)
		if len(rows) == 0 {
			t.Fatal("no rows")
		}
		for _, r := range rows {
			m := r.(map[string]any)["metrics"].([]any)
			if want := rate(int(m[0].(float64)), all); m[1] != want {
				t.Errorf("%v: percentage %v, want %v", r, m[1], want)
			}
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for body, words := range map[string][]string{
			head + `"metrics": ["conversion_rate"]}`: {"conversion_rate", "event:goal"},
			head + `"metrics": ["group_conversion_rate"], "filters": [["not", ["is", "event:goal", ["Signup"]]]]}`: {"group_conversion_rate", "top level"},
			head + `"metrics": ["visitors"], "filters": [["is_not", "event:goal", ["Signup"]]]}`:                   {"event:goal", "is_not"},
			head + `"metrics": ["bounce_rate"], "dimensions": ["event:goal"]}`:                                     {"bounce_rate", "event:goal"},
			head + `"metrics": ["visitors"], "dimensions": ["event:goal", "event:page"]}`:                          {"event:goal", "event:page"},
		} {
			wantQueryError(t, e.in(t).query(key, body), http.StatusBadRequest, words...)
		}
	})
}
