package repository_test

import (
	"context"
	"maps"
	mathrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestRepeatedVisitorDays checks the visitor-days of several visits the query engine reads
// before its statements against a count in Go, and that the read, which turns hashing off to
// stream the primary key, leaves it on for the statements after it.
func TestRepeatedVisitorDays(t *testing.T) {
	f := newFixture(t, "example.com", "other.example")
	from, to := date("2026-03-01"), date("2026-03-10")
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(3, 5)), from, to, 60)
	repotest.WriteVisitRows(t, f.db, f.sites[0], visits)
	// Another website's visits share days and visitor numbers: they must not count.
	repotest.WriteVisitRows(t, f.db, f.sites[1], visits)
	count := map[int64]int{}
	for _, v := range visits {
		if !v.Day.Before(date("2026-03-02")) && !v.Day.After(date("2026-03-09")) {
			days := int64(v.Day.Sub(date("2000-01-01")).Hours() / 24)
			count[days<<32|int64(uint32(v.Visitor))]++
		}
	}
	var want []int64
	for k, n := range count {
		if n > 1 {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if len(want) == 0 || len(want) == len(count) {
		t.Fatalf("the data set needs visitor-days of one visit and of several: %d of %d", len(want), len(count))
	}
	got, hashagg, err := repository.RepeatedVisitorDays(context.Background(), f.db, f.sites[0], date("2026-03-02"), date("2026-03-09"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("repeated visitor-days: got %d keys %v, want %d %v", len(got), got, len(want), want)
	}
	if hashagg != "on" {
		t.Errorf("enable_hashagg after the read = %q, want on", hashagg)
	}
}

// TestKeptRepeatsAnswerAsTheRows: the closed days' visitor-days of several visits, kept in
// visit_row_repeats by the first query that counts visitors, give the same answers as
// grouping them from the rows, with the range's days all kept, partly kept (the last days
// not closed yet) and none kept, as a list and as a join; and what is kept is each day's
// visitor-days of several visits.
func TestKeptRepeatsAnswerAsTheRows(t *testing.T) {
	f := newFixture(t, "example.com")
	site := f.sites[0]
	from, to := date("2026-03-01"), date("2026-03-10")
	visits := repotest.RandomVisits(mathrand.New(mathrand.NewPCG(8, 13)), from, to, 60)
	repotest.WriteVisitRows(t, f.db, site, visits)
	for _, g := range []stats.Goal{
		{Kind: stats.GoalEvent, Event: "Signup", DisplayName: "Signed up"},
		{Kind: stats.GoalPageview, Page: "/blog/*", DisplayName: "Read the blog"},
	} {
		if _, err := f.repo.CreateGoal(context.Background(), site, g); err != nil {
			t.Fatal(err)
		}
	}
	at := func(day string) *repository.Repository {
		return repository.New(f.db, func() time.Time { return date(day).Add(12 * time.Hour) })
	}
	env := queryapi.Env{Now: to.AddDate(0, 0, 1).Add(12 * time.Hour), Location: time.UTC}
	bodies := []string{
		`"metrics": ["visitors", "visits", "pageviews", "bounce_rate"], "dimensions": ["visit:browser"], "filters": [["is_not", "visit:screen", ["0x0"]]]`,
		`"metrics": ["visitors", "percentage"], "dimensions": ["visit:country", "time:day"], "filters": [["is_not", "visit:device", ["Mobile"]]]`,
		`"metrics": ["visitors", "pageviews"], "dimensions": ["event:page"]`,
		`"metrics": ["visitors", "pageviews", "percentage"], "dimensions": ["event:page", "visit:device"], "filters": [["matches", "event:page", ["^/blog/"]]]`,
		// The goals list's keyed statement (goalsListQuery), which reads the same visitor-days.
		`"metrics": ["visitors", "events", "group_conversion_rate"], "dimensions": ["event:goal", "visit:device"]`,
	}
	ctx := context.Background()
	run := func(repo *repository.Repository, body string) map[string][]float64 {
		t.Helper()
		q, err := queryapi.Parse([]byte(`{"site_id": "example.com", "date_range": ["2026-03-01", "2026-03-10"], `+body+`}`), env)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		answer, err := repo.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		out := map[string][]float64{}
		for _, row := range answer.Rows {
			out[strings.Join(row.Dimensions, "|")] = row.Metrics
		}
		if len(out) == 0 {
			t.Fatalf("%s: no rows", body)
		}
		return out
	}
	// Before the range: no day is closed, every visitor-day is grouped from the rows.
	none := at("2026-02-01")
	for _, maxRepeats := range []int{1_000, -1} {
		for _, body := range bodies {
			restore := none.SetMaxRepeats(maxRepeats)
			want := run(none, body)
			restore()
			// 2026-03-09: closed through 2026-03-06, the last 4 days from the rows; 2026-03-20: all closed.
			for _, now := range []string{"2026-03-09", "2026-03-20"} {
				repo := at(now)
				restore := repo.SetMaxRepeats(maxRepeats)
				if got := run(repo, body); !maps.EqualFunc(got, want, slices.Equal[[]float64]) {
					t.Errorf("now %s, max repeats %d, %s:\n got %v\nwant %v", now, maxRepeats, body, got, want)
				}
				restore()
			}
		}
	}
	// What is kept: each closed day's visitor numbers of several visits.
	want := map[string][]int32{}
	count := map[string]map[int32]int{}
	for _, v := range visits {
		day := v.Day.Format(time.DateOnly)
		if count[day] == nil {
			count[day] = map[int32]int{}
		}
		count[day][v.Visitor]++
	}
	for day, visitors := range count {
		want[day] = []int32{}
		for visitor, n := range visitors {
			if n > 1 {
				want[day] = append(want[day], visitor)
			}
		}
		slices.Sort(want[day])
	}
	var kept []struct {
		Day      time.Time     `db:"day"`
		Visitors pq.Int32Array `db:"visitors"`
	}
	if err := f.db.Select(&kept, `SELECT day, visitors FROM visit_row_repeats WHERE website_id = $1 ORDER BY day`, site); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 10 {
		t.Fatalf("%d days kept, want the 10 of the range", len(kept))
	}
	several := 0
	for _, k := range kept {
		day := k.Day.Format(time.DateOnly)
		if !slices.Equal([]int32(k.Visitors), want[day]) {
			t.Errorf("%s: kept %v, want %v", day, k.Visitors, want[day])
		}
		several += len(k.Visitors)
	}
	if several == 0 {
		t.Fatal("no visitor-day of several visits: the test compares nothing")
	}
}
