package column

import (
	"context"
	"testing"
	"time"
)

// TestFunnelCountsKept: a funnel part's counts are kept for the same statement over the same
// copies of its days (the file's rows changed behind the store's back still answer the kept
// counts), read again once emptied (ForgetKept) or when a day of the part is another copy.
func TestFunnelCountsKept(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	insert := func(visitor int, pages ...string) {
		t.Helper()
		insertVisit(t, s, day, visitor, nil, int64(visitor), pages...)
	}
	insert(1, "/a", "/b")
	insert(2, "/a")
	s.markHeld(1, day, 1)
	part := FunnelPart{Part: Part{WebsiteID: 1, From: day, To: day}, Steps: 2,
		Pages: MaskTable{Texts: []string{"/a", "/b"}, Words: [][]int64{{1, 2}}}}
	read := func() FunnelCounts {
		t.Helper()
		c, err := s.StartFunnel(ctx, part)()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	check := func(stage string, got FunnelCounts, visitors, last int64) {
		t.Helper()
		if got.Visitors != visitors || got.Steps[0] != visitors || got.Steps[1] != last {
			t.Errorf("%s: %+v, want %d visitors entering, %d reaching step 2", stage, got, visitors, last)
		}
	}
	check("first read", read(), 2, 1)
	insert(3, "/a", "/b") // behind the store's back: the same copy, as far as it knows
	check("kept", read(), 2, 1)
	s.ForgetKept()
	check("emptied", read(), 3, 2)
	insert(4, "/a", "/b")
	s.markHeld(1, day, 1) // copied again: another copy of the day
	check("another copy", read(), 4, 3)
}

// TestFunnelDayCounts: an unfiltered part of named goals is counted by day: each day's counts
// are those of the range read at once, a visitor-day of several visits counts once at its
// furthest, and a day counted by one range is not read again by another (the file's rows
// changed behind the store's back still answer its kept counts) until it is another copy.
func TestFunnelDayCounts(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	first := time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC)
	day := func(i int) time.Time { return first.AddDate(0, 0, i) }
	insert := func(d, visitor int, rkey any, pages ...string) {
		t.Helper()
		insertVisit(t, s, day(d), visitor, rkey, int64(d<<32|visitor), pages...)
	}
	insert(0, 1, nil, "/a", "/b")
	insert(0, 2, nil, "/a")
	insert(1, 1, nil, "/a", "/b") // visitor 1 again, on another day: another visitor-day
	insert(1, 3, int64(1<<32|3), "/a")
	insert(1, 3, int64(1<<32|3), "/b", "/a", "/b") // the same visitor-day, further
	insert(2, 4, nil, "/b")                        // never entering
	for d := range 4 {
		s.markHeld(1, day(d), 1)
	}
	pages := MaskTable{Texts: []string{"/a", "/b"}, Words: [][]int64{{1, 2}}}
	read := func(from, to int, goals string) FunnelCounts {
		t.Helper()
		p := FunnelPart{Part: Part{WebsiteID: 1, From: day(from), To: day(to)}, Steps: 2, Pages: pages, Goals: goals}
		c, err := s.StartFunnel(ctx, p)()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	check := func(stage string, got FunnelCounts, visitors, entering, last int64) {
		t.Helper()
		if got.Visitors != visitors || got.Steps[0] != entering || got.Steps[1] != last {
			t.Errorf("%s: %+v, want %d visitors, %d entering, %d reaching step 2", stage, got, visitors, entering, last)
		}
	}
	check("days 0-2 at once", read(0, 2, ""), 5, 4, 3)
	check("days 0-2 by day", read(0, 2, "goals"), 5, 4, 3)
	check("day 1 alone, kept", read(1, 1, "goals"), 2, 2, 2)
	insert(1, 5, nil, "/a", "/b") // behind the store's back: the same copy, as far as it knows
	insert(3, 6, nil, "/a")
	check("days 1-3: 1 and 2 kept, 3 read", read(1, 3, "goals"), 4, 3, 2)
	check("other goals are counted apart", read(1, 1, "other goals"), 3, 3, 3)
	s.ForgetKept() // what a dashboard's view keeps, not the days' counts
	check("after ForgetKept", read(1, 1, "goals"), 2, 2, 2)
	s.markHeld(1, day(1), 1) // copied again: another copy of the day
	check("day 1 another copy", read(0, 3, "goals"), 7, 6, 4)
}
