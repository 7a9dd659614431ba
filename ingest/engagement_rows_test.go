package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// engaged is the visit rows' engagement as "page:ms/depth" per row (NULL: none).
func (e *rowsEnv) engaged() string {
	e.t.Helper()
	var rows []string
	err := e.db.Select(&rows, `SELECT coalesce((SELECT string_agg(p || ':' || coalesce(ms::text, 'NULL') || '/' || coalesce(d::text, 'NULL'), ' ')
			FROM unnest(engaged_pages, engaged_ms, scroll_depth) AS u (p, ms, d)), 'NULL')
		FROM visit_rows WHERE website_id = $1 ORDER BY id`, e.siteID)
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Join(rows, " | ")
}

// engagement sends an engagement hit as the trackers do (ms and depth omitted when negative).
func (e *rowsEnv) engagement(path string, ms, depth int) {
	e.t.Helper()
	body := `{"n":"engagement","d":"rows.test","u":"https://rows.test` + path + `"`
	if ms >= 0 {
		body += fmt.Sprintf(`,"e":%d`, ms)
	}
	if depth >= 0 {
		body += fmt.Sprintf(`,"sd":%d`, depth)
	}
	e.send(body + "}")
}

// A visit's engagement goes with its row as the visit's totals per page, with the row's later
// parts (every resendEvery and at its end): a second hit for a page adds its time and keeps
// the deepest scroll, a page with only a scroll depth has no time. Read filtered, the rows
// give the same time on page and scroll depth as the counters do unfiltered.
func TestEngagementGoesWithTheVisitRow(t *testing.T) {
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { return repo }, true, 1000)
	ctx := context.Background()
	flush := func() {
		t.Helper()
		if err := e.flusher.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.page("/a")
	flush()
	e.engagement("/a", 5_000, 30)
	flush()
	if got := e.engaged(); got != "NULL" {
		t.Fatalf("a held part's engagement was written at once: %s", got)
	}
	e.now = e.now.Add(resendEvery)
	flush()
	if got, want := e.engaged(), "/a:5000/30"; got != want {
		t.Fatalf("after resendEvery: %s, want %s", got, want)
	}
	e.page("/b")
	e.engagement("/a", 2_000, 20) // not deeper
	e.engagement("/b", -1, 50)
	e.now = e.now.Add(time.Hour) // the visit ends
	flush()
	if got, want := e.engaged(), "/a:7000/30 /b:NULL/50"; got != want {
		t.Fatalf("at the visit's end: %s, want %s", got, want)
	}

	days := stats.Range{From: stats.Day(e.now), To: stats.Day(e.now)}
	counted, err := e.repo.Reader(e.siteID, days, nil).Engagement(ctx, []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	filtered, err := e.repo.Reader(e.siteID, days, stats.Filters{{Name: stats.Browser, Value: ""}}).Engagement(ctx, []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	show := func(m map[string]repository.PageEngagement) string {
		var out []string
		for _, p := range []string{"/a", "/b"} {
			out = append(out, fmt.Sprintf("%s:%v/%v", p, deref(m[p].TimeOnPage), deref(m[p].ScrollDepth)))
		}
		return strings.Join(out, " ")
	}
	if got, want := show(counted), "/a:7/30 /b:<nil>/50"; got != want {
		t.Fatalf("the counters: %s, want %s", got, want)
	}
	if got, want := show(filtered), show(counted); got != want {
		t.Fatalf("the rows (filtered): %s, the counters: %s", got, want)
	}
}

func deref(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

// The batch that carries a visit's engagement is written once however its flush fails: its
// answer lost, then the database down while more engagement comes; the row ends with the
// visit's totals, not twice them.
func TestVisitRowEngagementSurvivesFaults(t *testing.T) {
	var w *faultyWriter
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter {
		w = &faultyWriter{repo: repo, lose: map[int]bool{2: true}, fail: map[int]bool{3: true}}
		return w
	}, true, 1000)
	ctx := context.Background()
	e.page("/a")
	if err := e.flusher.Flush(ctx); err != nil { // write 1
		t.Fatal(err)
	}
	e.engagement("/a", 4_000, 10)
	e.now = e.now.Add(resendEvery)
	if err := e.flusher.Flush(ctx); err == nil { // write 2: committed, its answer lost
		t.Fatal("the lost answer was not a failure")
	}
	e.engagement("/a", 6_000, 80)
	e.now = e.now.Add(time.Hour)
	if err := e.flusher.Flush(ctx); err == nil { // write 3: the retry fails
		t.Fatal("the failing write did not fail")
	}
	for range 2 { // the retry of 2, then the visit's end
		if err := e.flusher.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := e.engaged(), "/a:10000/80"; got != want || w.calls != 5 {
		t.Fatalf("after %d writes: %s, want %s", w.calls, got, want)
	}
}
