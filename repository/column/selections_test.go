package column

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/query"
)

// selectionFixture is a store holding one day of website 1 with visits whose pages are given,
// and how to add one more visit to it.
type selectionFixture struct {
	s      *Store
	day    time.Time
	visits int
}

func newSelectionFixture(t *testing.T) *selectionFixture {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &selectionFixture{s: s, day: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
}

// add writes a visit of the pages (as a copy would: its vid its place in the day).
func (f *selectionFixture) add(t *testing.T, pages ...string) {
	t.Helper()
	insertVisit(t, f.s, f.day, f.visits, nil, int64(f.visits), pages...)
	f.visits++
}

// pagesIn is a filter on event:page of more values than a list of each visit's pages is tested
// against (partBuild.pageCond): its statement joins with a selection.
func pagesIn(first string) query.Filter {
	values := []string{first}
	for i := range 9 {
		values = append(values, fmt.Sprintf("/never-%d", i))
	}
	return query.Filter{Op: query.Is, Field: query.Field{Name: "event:page", Level: query.PageLevel}, Values: values}
}

// visitsOf counts the visits of the day that the filter keeps, with the store's statement.
func (f *selectionFixture) visitsOf(ctx context.Context, filter query.Filter) (int64, error) {
	rows, err := f.s.Start(ctx, Part{WebsiteID: 1, From: f.day, To: f.day, Filters: []query.Filter{filter}})()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, v := range rows.Visits {
		n += v
	}
	return n, nil
}

// TestSelectionKeptAndShared: the statements of one page filter over the same copies share one
// selection table, made once however many ask at the same time; another filter, or the day
// copied again, makes another, whose answers are those of the file's rows now.
func TestSelectionKeptAndShared(t *testing.T) {
	f := newSelectionFixture(t)
	ctx := context.Background()
	f.add(t, "/a", "/b")
	f.add(t, "/a")
	f.add(t, "/b")
	f.s.markHeld(1, f.day, 1)
	tables := func(want int) {
		t.Helper()
		n, err := f.s.KeptSelections(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%d selection tables, want %d", n, want)
		}
	}
	count := func(stage string, filter query.Filter, want int64) {
		t.Helper()
		n, err := f.visitsOf(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d visits, want %d", stage, n, want)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			n, err := f.visitsOf(ctx, pagesIn("/a"))
			if err == nil && n != 2 {
				err = fmt.Errorf("%d visits of /a, want 2", n)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	tables(1)
	count("again", pagesIn("/a"), 2)
	tables(1)
	count("another filter", pagesIn("/b"), 2)
	tables(2)

	f.add(t, "/a", "/c") // behind the store's back: the same copy, whose selection is kept
	count("kept", pagesIn("/a"), 2)
	f.s.markHeld(1, f.day, 1) // copied again
	count("another copy", pagesIn("/a"), 3)
	tables(3)
}

// TestSelectionsRetired: a selection past its time is made again, and its table dropped once no
// statement reads it; past keptRowsMax rows the oldest go first.
func TestSelectionsRetired(t *testing.T) {
	f := newSelectionFixture(t)
	ctx := context.Background()
	f.add(t, "/a")
	f.s.markHeld(1, f.day, 1)
	if _, err := f.visitsOf(ctx, pagesIn("/a")); err != nil {
		t.Fatal(err)
	}
	f.s.kept.mu.Lock()
	for _, k := range f.s.kept.byKey {
		k.made = k.made.Add(-selectionTTL)
	}
	f.s.kept.mu.Unlock()
	if _, err := f.visitsOf(ctx, pagesIn("/a")); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.KeptSelections(ctx); err != nil || n != 1 {
		t.Errorf("past its time: %d tables (%v), want the new one alone", n, err)
	}

	f.s.kept.mu.Lock()
	for _, k := range f.s.kept.byKey {
		k.rows, f.s.kept.rows = keptRowsMax, keptRowsMax // as if it held that many
	}
	f.s.kept.mu.Unlock()
	f.add(t, "/b") // the next selection holds a row: one more than keptRowsMax
	if _, err := f.visitsOf(ctx, pagesIn("/b")); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.KeptSelections(ctx); err != nil || n != 1 {
		t.Errorf("past keptRowsMax: %d tables (%v), want the newest alone", n, err)
	}
	f.s.ForgetKept()
	if n, err := f.s.KeptSelections(ctx); err != nil || n != 0 {
		t.Errorf("forgotten: %d tables (%v), want none", n, err)
	}
}

// TestSelectionWaitCanceled: a statement whose context ends while it waits for a selection
// says so, and the selection is made for the others all the same.
func TestSelectionWaitCanceled(t *testing.T) {
	f := newSelectionFixture(t)
	f.add(t, "/a")
	f.s.markHeld(1, f.day, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.visitsOf(ctx, pagesIn("/a")); err == nil {
		t.Error("a canceled read answered")
	}
	n, err := f.visitsOf(context.Background(), pagesIn("/a"))
	if err != nil || n != 1 {
		t.Errorf("after a canceled read: %d visits (%v), want 1", n, err)
	}
}
