package repository_test

import (
	"context"
	mathrand "math/rand/v2"
	"slices"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
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
