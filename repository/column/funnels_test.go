package column

import (
	"context"
	"strings"
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
		var texts strings.Builder
		for range textColumns() {
			texts.WriteString(", ''")
		}
		_, err := s.db.Exec(`INSERT INTO visits VALUES (1, ?, 0, ?, 0, false, 0, NULL, ?, ?, [], [], [], [], [], [], [], []`+texts.String()+`, ?)`,
			day, len(pages), visitor, pages, visitor)
		if err != nil {
			t.Fatal(err)
		}
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
