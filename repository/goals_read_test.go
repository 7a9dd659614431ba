package repository_test

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// goalPatterns and goalEvents are what the goals of TestConversionsMatchAReference are made of,
// cycled through so that the website has more goals than one 64-bit word of them holds.
var (
	goalPatterns = []string{"/", "/blog/*", "/pricing|/docs", "/*", "/blog/a", "/signup/*", `/q'"uote`, "/100%",
		"/a_b", "/ünï", "/never", "/shop/*/1", "/shop/*|/about"}
	goalEvents = []string{"Signup", "Outbound Link: Click", "Outbound Link  Click", "Download", "Never"}
)

// goalVisitsOf draws the random visits of the test: RandomVisits' pages plus some with a query
// string or deeper paths, and events whose names are kept as sent on half the visits that have
// some (the others are rows written before names were kept, whose events hold the names
// encoded, ':' as a space).
func goalVisitsOf(rng *mathrand.Rand) []repotest.Visit {
	visits := repotest.RandomVisits(rng, date("2026-03-01"), date("2026-03-04"), 150)
	extra := []string{"/signup/done?x=1", "/signup/done", "/shop/a/1", "/shop/b/2", "/blog/a?ref=x", "/signup"}
	for i := range visits {
		v := &visits[i]
		if rng.IntN(3) == 0 {
			v.Pages = append(v.Pages, extra[rng.IntN(len(extra))])
		}
		if rng.IntN(4) != 0 {
			continue
		}
		v.Events, v.EventNames = nil, nil
		kept := rng.IntN(2) == 0
		for range 1 + rng.IntN(3) {
			name := goalEvents[rng.IntN(len(goalEvents)-1)]
			v.Events = append(v.Events, strings.ReplaceAll(name, ":", " ")+":v:")
			if kept {
				v.EventNames = append(v.EventNames, name)
			}
		}
	}
	return visits
}

// globMatch is a pageview goal's pattern matched with a page, written apart from the code
// under test: the page without its query string against each alternative, where * matches
// any run of characters.
func globMatch(pattern, page string) bool {
	page, _, _ = strings.Cut(page, "?")
	for _, alt := range strings.Split(pattern, "|") {
		if glob(alt, page) {
			return true
		}
	}
	return false
}

func glob(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == s
	}
	if !strings.HasPrefix(s, pattern[:star]) {
		return false
	}
	for i := star; i <= len(s); i++ {
		if glob(pattern[star+1:], s[i:]) {
			return true
		}
	}
	return false
}

// goalHits is how many of a visit's hits convert on the goal.
func goalHits(v repotest.Visit, g stats.Goal) int64 {
	var n int64
	if g.Kind == stats.GoalPageview {
		for _, p := range v.Pages {
			if globMatch(g.Page, p) {
				n++
			}
		}
		return n
	}
	for i, e := range v.Events {
		if len(v.EventNames) > 0 && v.EventNames[i] == g.Event ||
			len(v.EventNames) == 0 && strings.Split(e, ":")[0] == strings.ReplaceAll(g.Event, ":", " ") {
			n++
		}
	}
	return n
}

// referenceConversions is "visitors events" of each goal by display name, and the visitors
// of the visits that match the filters, computed from the visits.
func referenceConversions(visits []repotest.Visit, goals []stats.Goal, filters stats.Filters) (map[string]string, int64) {
	type dayVisitor struct {
		day     string
		visitor int32
	}
	all := map[dayVisitor]bool{}
	out := map[string]string{}
	for _, g := range goals {
		converted := map[dayVisitor]bool{}
		var events int64
		for _, v := range visits {
			if !v.Matches(filters) {
				continue
			}
			key := dayVisitor{v.Day.Format("2006-01-02"), v.Visitor}
			all[key] = true
			if n := goalHits(v, g); n > 0 {
				converted[key] = true
				events += n
			}
		}
		out[g.DisplayName] = fmt.Sprintf("%d %d", len(converted), events)
	}
	return out, int64(len(all))
}

// The goals list and filter[goal] agree with a computation from the visits themselves, on
// random visits and 70 goals (more than one 64-bit word of them): pageview goals whose
// patterns match no page, one page or many, overlap, and event goals on rows with and without
// names as sent.
func TestConversionsMatchAReference(t *testing.T) {
	f := newFixture(t, "goals.example")
	site, ctx := f.sites[0], context.Background()
	visits := goalVisitsOf(mathrand.New(mathrand.NewPCG(25, 1)))
	repotest.WriteVisitRows(t, f.db, site, visits)
	for i := range 70 {
		g := stats.Goal{Kind: stats.GoalPageview, Page: goalPatterns[i%len(goalPatterns)], DisplayName: fmt.Sprintf("goal %02d", i)}
		if i%3 == 1 {
			g = stats.Goal{Kind: stats.GoalEvent, Event: goalEvents[i%len(goalEvents)], DisplayName: g.DisplayName}
		}
		if _, err := f.repo.CreateGoal(ctx, site, g); err != nil {
			t.Fatal(err)
		}
	}
	goals, err := f.repo.Goals(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	// The first days are closed (their pages are kept in memory once read), the last is not.
	if _, err := f.db.Exec(`UPDATE visit_row_partitions SET clustered = day < '2026-03-04'`); err != nil {
		t.Fatal(err)
	}
	days := stats.Range{From: date("2026-03-01"), To: date("2026-03-04")}
	checkConversions(t, f, site, days, visits, goals)
	checkConversions(t, f, site, days, visits, goals)

	// A stats reset of a closed day, made on another node, counts at once: the numbers kept
	// are of the rows before it (their rows_generation names them).
	reset := stats.Range{From: date("2026-03-02"), To: date("2026-03-02")}
	if _, err := repository.New(f.db, nil).DeleteStats(ctx, site, &reset, stats.FixedZone(time.UTC)); err != nil {
		t.Fatal(err)
	}
	visits = slices.DeleteFunc(visits, func(v repotest.Visit) bool { return v.Day.Equal(reset.From) })
	checkConversions(t, f, site, days, visits, goals)

	// A visit of the open day, after the closed days were kept, counts; so does a new goal,
	// on a page first seen that day.
	late := repotest.Visit{Day: date("2026-03-04"), Visitor: 7, Pages: []string{"/late/page"}}
	repotest.WriteVisitRows(t, f.db, site, []repotest.Visit{late})
	visits = append(visits, late)
	checkConversions(t, f, site, days, visits, goals)
	if _, err := f.repo.CreateGoal(ctx, site, stats.Goal{Kind: stats.GoalPageview, Page: "/late/*", DisplayName: "late"}); err != nil {
		t.Fatal(err)
	}
	if goals, err = f.repo.Goals(ctx, site); err != nil {
		t.Fatal(err)
	}
	checkConversions(t, f, site, days, visits, goals)
	checkGoalFilter(t, f, site, days, visits, append(goals[:8:8], goals[len(goals)-1]))
}

// checkConversions compares the goals list with referenceConversions, with and without
// filters.
func checkConversions(t *testing.T, f fixture, site int64, days stats.Range, visits []repotest.Visit, goals []stats.Goal) {
	t.Helper()
	ctx := context.Background()
	for _, filters := range []stats.Filters{nil, {{Name: stats.Country, Value: "DE:Germany"}}, {{Name: stats.Page, Value: "/docs"}}} {
		conv, visitors, _, err := f.repo.Conversions(ctx, site, days, filters, goals)
		if err != nil {
			t.Fatal(err)
		}
		want, wantVisitors := referenceConversions(visits, goals, filters)
		if visitors != wantVisitors {
			t.Errorf("%v: %d visitors, want %d", filters, visitors, wantVisitors)
		}
		converting := 0
		for _, c := range conv {
			if got := fmt.Sprintf("%d %d", c.Visitors, c.Events); got != want[c.Goal.DisplayName] {
				t.Errorf("%v: %s (%s %s%s): %s, want %s", filters, c.Goal.DisplayName, c.Goal.Kind, c.Goal.Page, c.Goal.Event, got, want[c.Goal.DisplayName])
			}
			if c.Visitors > 0 {
				converting++
			}
		}
		if len(conv) != len(goals) || converting < 40 {
			t.Errorf("%v: %d goals, %d converting", filters, len(conv), converting)
		}
	}
}

// checkGoalFilter compares the totals of filter[goal] with those of the converting visits.
func checkGoalFilter(t *testing.T, f fixture, site int64, days stats.Range, visits []repotest.Visit, goals []stats.Goal) {
	t.Helper()
	for _, g := range goals {
		filters := stats.Filters{{Name: stats.GoalName, Value: g.DisplayName}}
		got, err := f.repo.Reader(site, days, filters).Totals(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var want stats.Totals
		dayVisitors := map[string]bool{}
		for _, v := range visits {
			if goalHits(v, g) > 0 {
				dayVisitors[fmt.Sprint(v.Day, v.Visitor)] = true
				want.Visits++
				want.Pageviews += int64(len(v.Pages))
			}
		}
		want.Visitors = int64(len(dayVisitors))
		if got.Visitors != want.Visitors || got.Visits != want.Visits || got.Pageviews != want.Pageviews {
			t.Errorf("filter[goal]=%s (%s%s): %d visitors, %d visits, %d pageviews; want %d, %d, %d", g.DisplayName, g.Page, g.Event,
				got.Visitors, got.Visits, got.Pageviews, want.Visitors, want.Visits, want.Pageviews)
		}
	}
}
