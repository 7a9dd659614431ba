package ingest

import (
	"fmt"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// pageHit is a pageview of page in the row of visit id, as the collector adds it; values, when
// given, make it the visit's first hit.
func pageHit(c *Counters, id int64, page string, values map[stats.Name]string) {
	landing := "/landing"
	if id == 1 {
		landing = "/first"
	}
	x := hitExtras{hasRow: true, hasPageview: true, pageview: recentView{page: page}, rowPage: page,
		row: rowEnd{ref: rowRef{websiteID: 1, day: 20516, id: id}, landing: landing, exit: page}}
	if values != nil {
		x.hasValues, x.values = true, stats.ValuesOf(values)
	}
	if err := c.AddHit(nil, &x); err != nil {
		panic(err)
	}
}

// takeRows takes the ready rows as the flusher does and says what each writes, by id.
func takeRows(c *Counters) map[int64]string {
	t := c.take()
	c.release(t.size())
	return rowsOf(t.rows)
}

// rowsOf says what each row taken writes, by id.
func rowsOf(t takenRows) map[int64]string {
	out := map[int64]string{}
	var r repository.VisitRow
	for i := range t.Len() {
		t.Row(i, &r)
		out[r.ID] = fmt.Sprintf("%d %v %v %s %s %s %s", r.Pageviews, r.Pages, r.Events, r.Values.Get(stats.LandingPage), r.Values.Get(stats.ExitPage),
			r.Values.Get(stats.Browser), r.Values.Get(stats.City))
	}
	return out
}

// Parts of rows that come interleaved are written each with its own pages and values in
// order; a part that waits keeps its pages for a later take, and a taken row's slot is used
// again without mixing rows.
func TestRowStoreKeepsEachRowsParts(t *testing.T) {
	c := NewCounters(1000)
	for id := int64(1); id <= 3; id++ {
		c.openRow(rowRef{websiteID: 1, day: 20516, id: id}, 10)
	}
	pageHit(c, 1, "/a1", map[stats.Name]string{stats.Browser: "Firefox"})
	pageHit(c, 2, "/a2", map[stats.Name]string{stats.City: "Bern"})
	pageHit(c, 1, "/b1", nil)
	pageHit(c, 4, "/x4", nil) // a later part (written before), held: not due
	pageHit(c, 2, "/b2", nil)
	got := takeRows(c)
	want := map[int64]string{1: "2 [/a1 /b1] [] /first /a1 Firefox ", 2: "2 [/a2 /b2] [] /landing /a2  Bern"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("first take %v, want %v", got, want)
	}
	// Row 3 still misses its values, row 4 is held: neither went; two slots are free again.
	if n := c.rowStore.waiting(); n != 2 || len(c.rowStore.free) != 2 {
		t.Fatalf("%d rows waiting, %d slots free; want 2 and 2", n, len(c.rowStore.free))
	}
	pageHit(c, 5, "/a5", nil) // reuses a slot
	pageHit(c, 4, "/y4", nil)
	pageHit(c, 3, "/a3", map[stats.Name]string{stats.Browser: "Safari"})
	c.mu.Lock()
	c.setEnd(&rowEnd{ref: rowRef{websiteID: 1, day: 20516, id: 4}, landing: "/landing", exit: "/y4", due: true})
	c.mu.Unlock()
	got = takeRows(c)
	want = map[int64]string{3: "1 [/a3] [] /landing /a3 Safari ", 4: "2 [/x4 /y4] [] /landing /y4  "}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("second take %v, want %v", got, want)
	}
	if c.rowStore.waiting() != 1 || len(c.rowStore.parts) != 1 {
		t.Fatalf("%d rows and %d parts left, want row 5's", c.rowStore.waiting(), len(c.rowStore.parts))
	}
}

// The texts are numbered anew once they have grown past twice those of the rows held: the
// pages of rows written long ago do not stay in memory, and the rows held keep theirs.
func TestRowStoreCompactsItsTexts(t *testing.T) {
	c := NewCounters(1 << 20)
	c.openRow(rowRef{websiteID: 1, day: 20516, id: 1}, 10)
	pageHit(c, 1, "/first", map[stats.Name]string{stats.Browser: "Firefox"})
	takeRows(c)
	pageHit(c, 1, "/kept", nil) // held across every take below
	most := 0
	for round := range 10 {
		for i := range 1000 {
			id := int64(2 + round*1000 + i)
			c.openRow(rowRef{websiteID: 1, day: 20516, id: id}, 10)
			pageHit(c, id, fmt.Sprintf("/page-%d-%d", round, i), map[stats.Name]string{stats.City: fmt.Sprintf("city-%d-%d", round, i)})
		}
		if got := takeRows(c); len(got) != 1000 || got[2+int64(round)*1000] != fmt.Sprintf("1 [/page-%d-0] [] /landing /page-%d-0  city-%d-0", round, round, round) {
			t.Fatalf("round %d: %d rows, the first %q", round, len(got), got[2+int64(round)*1000])
		}
		most = max(most, len(c.rowStore.texts.list))
	}
	// 2,000 new texts a take: without compaction they would be 20,000 and more.
	if most >= 2*3+minTexts+2000 {
		t.Fatalf("the texts grew to %d", most)
	}
	// maxHeldHits pages make it due, with the end its part was given before the compactions.
	pages := []string{"/kept"}
	for range maxHeldHits - 1 {
		pageHit(c, 1, "/later", nil)
		pages = append(pages, "/later")
	}
	if got, want := takeRows(c), fmt.Sprintf("%d %v [] /first /kept  ", maxHeldHits, pages); got[1] != want || len(got) != 1 {
		t.Fatalf("the held row after the compactions: %v, want %q", got, want)
	}
}

// A batch taken writes what it was taken as while it is written, outside c.mu, and when its
// write is retried: the hits that come meanwhile reuse its rows' slots and add texts, and the
// takes after it number the texts anew.
func TestTakenRowsStayAsTaken(t *testing.T) {
	c := NewCounters(1 << 20)
	for id := int64(1); id <= 3; id++ {
		c.openRow(rowRef{websiteID: 1, day: 20516, id: id}, 10)
		pageHit(c, id, fmt.Sprintf("/a%d", id), map[stats.Name]string{stats.City: fmt.Sprintf("city-%d", id)})
	}
	batch := c.take()
	c.release(batch.size())
	want := map[int64]string{1: "1 [/a1] [] /first /a1  city-1", 2: "1 [/a2] [] /landing /a2  city-2", 3: "1 [/a3] [] /landing /a3  city-3"}
	if got := rowsOf(batch.rows); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("taken %v, want %v", got, want)
	}
	done := make(chan struct{})
	go func() { // the hits and flushes that come while the batch is written
		defer close(done)
		for id := int64(10); id < 10+3*minTexts; id++ {
			c.openRow(rowRef{websiteID: 1, day: 20516, id: id}, 10)
			pageHit(c, id, fmt.Sprintf("/b%d", id), map[stats.Name]string{stats.City: fmt.Sprintf("city-%d", id)})
			if id%1000 == 0 {
				takeRows(c)
			}
		}
	}()
	for writing := true; writing; {
		select {
		case <-done:
			writing = false
		default:
		}
		if got := rowsOf(batch.rows); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("taken %v, want %v", got, want)
		}
	}
	if len(c.rowStore.rows) >= 3*minTexts || c.rowStore.texts.kept == 0 {
		t.Fatalf("%d slots, %d texts kept: the slots were not reused, or the texts never numbered anew",
			len(c.rowStore.rows), c.rowStore.texts.kept)
	}
}

// A visit whose first hit was refused (abandonRow) has its row written without values once it
// has its end, not held for values that will not come; a row the store does not hold is not
// made by it.
func TestAnAbandonedRowIsWrittenWithoutValues(t *testing.T) {
	c := NewCounters(1000)
	ref := rowRef{websiteID: 1, day: 20516, id: 7}
	c.openRow(ref, 10)
	c.mu.Lock()
	c.setEnd(&rowEnd{ref: ref, landing: "/a", exit: "/b", seconds: 5, due: true})
	c.mu.Unlock()
	if got := takeRows(c); len(got) != 0 || c.rowStore.waiting() != 1 {
		t.Fatalf("taken %v with %d waiting: the row must wait for its values", got, c.rowStore.waiting())
	}
	c.abandonRow(ref)
	c.abandonRow(rowRef{websiteID: 1, day: 20516, id: 8})
	if got, want := takeRows(c), map[int64]string{7: "0 [] [] /a /b  "}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("taken %v, want %v", got, want)
	}
	if len(c.rowStore.slots) != 0 || c.Size() != 0 {
		t.Fatalf("%d parts and %d keys left", len(c.rowStore.slots), c.Size())
	}
}
