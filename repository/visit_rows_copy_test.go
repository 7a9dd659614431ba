package repository_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// hostile are values a stranger may send, at the edges of COPY's text format (tab, newline,
// carriage return, backslash, \N and \.) and of array literals (quotes, braces, commas, NULL,
// spaces, the empty string), with unicode and control bytes.
var hostile = []string{"tab\there", "new\nline", "cr\rreturn", `back\slash`, `\\`, `trailing\`, `a"b`, `"`, `{x,y}`,
	`a,b`, `NULL`, `null`, `\N`, ``, ` spaced `, "é ü 日本 🙂", `\.`, `{"}`, `'quote'`, `\t`, "\\\"\t\n", `}`, `{`, `(x)`,
	"\x01\x0b\x7f", "\\.\n", `\\N`, "\u00a0", `""`, `\"`}

// rotated is values from the i-th on, then the first i.
func rotated(values []string, i int) []string {
	i %= len(values)
	return append(slices.Clone(values[i:]), values[:i]...)
}

// hostileValues gives each dimension a hostile value, from the i-th on.
func hostileValues(i int) stats.Values {
	var v stats.Values
	for j := range stats.Dimensions {
		v[j] = hostile[(i+j)%len(hostile)]
	}
	return v
}

// hostilePairs are n property pairs of hostile keys (never empty) and values, from the i-th on.
func hostilePairs(i, n int) []string {
	var pairs []string
	for k := range n {
		key := "k" + hostile[(i+k)%len(hostile)]
		pairs = append(pairs, stats.PropPair(key, hostile[(i+k+1)%len(hostile)]))
	}
	return pairs
}

// A visit's row written in three flushes holds every byte of every value as sent: the first
// hit's values of the first write, the visit's (landing and exit page) of the last, the
// arrays of all three appended in order, the engagement of the last write that carried some;
// props, revenue and engagement stay NULL for a row that never had any, its arrays {}, and
// an empty string stays one element, never NULL or no element.
func TestVisitRowsKeepHostileValuesExactly(t *testing.T) {
	f := newFixture(t, "hostile.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	first := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: -3, ID: 1, Hour: 23, Pageviews: len(hostile), Seconds: 10,
		Bounce: true, Values: hostileValues(0), Pages: hostile, Events: rotated(hostile, 5), EventNames: rotated(hostile, 7),
		Order: []byte("ppep"), Props: hostilePairs(0, 12),
		RevenueNames: hostile[:3], RevenueCurrencies: []string{"EUR", "USD", "JPY"}, RevenueAmounts: []string{"12.500", "0.001", "999999999999999.999"},
		Engaged: []repository.EngagedPage{{Page: hostile[0], Millis: 5, Depth: -1}, {Page: hostile[1], Millis: -1, Depth: 100},
			{Page: hostile[2], Millis: 0, Depth: 0}, {Page: hostile[3], Millis: math.MaxInt32, Depth: 3}}}
	second := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: -3, ID: 1, Hour: 23, Pageviews: 2, Seconds: 50,
		Values: hostileValues(11), Pages: rotated(hostile, 13), Events: []string{""}, EventNames: []string{""}, Order: []byte("pe"),
		Props: hostilePairs(20, 3), RevenueNames: []string{""}, RevenueCurrencies: []string{"EUR"}, RevenueAmounts: []string{"1"},
		Engaged: []repository.EngagedPage{{Page: hostile[12], Millis: 9, Depth: 50}}}
	third := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: -3, ID: 1, Hour: 23, Pageviews: 1, Seconds: 60,
		Values: hostileValues(11)}
	bare := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 7, ID: 2, Hour: 0}
	empty := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 7, ID: 3, Hour: 0, Pages: []string{""}, Props: []string{stats.PropPair("k", "")}}
	for i, rows := range []repository.VisitRowList{{first, bare}, {second, empty}, {third}} {
		id := fmt.Sprintf("6f1c2d3e-0000-4000-8000-0000000001%02d", i)
		if added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Rows: rows}, 100); err != nil || added.RowsDropped != 0 {
			t.Fatalf("write %d: %d dropped (%v)", i+1, added.RowsDropped, err)
		}
	}

	row := rowReader{t: t, db: f.db, websiteID: f.sites[0]}
	var own struct{ Pageviews, Seconds, Hour, Visitor int }
	var bounce bool
	if err := f.db.QueryRow(`SELECT pageviews, seconds, hour, visitor, bounce FROM visit_rows WHERE website_id = $1 AND id = 1`,
		f.sites[0]).Scan(&own.Pageviews, &own.Seconds, &own.Hour, &own.Visitor, &bounce); err != nil {
		t.Fatal(err)
	}
	if own.Pageviews != len(hostile)+3 || own.Seconds != 60 || own.Hour != 23 || own.Visitor != -3 || bounce {
		t.Errorf("row 1: %+v, bounce %v", own, bounce)
	}
	kept, last := hostileValues(0), hostileValues(11)
	for j, d := range stats.Dimensions {
		want := kept[j]
		if d.From == stats.FromVisit {
			want = last[j]
		}
		if got := row.text(1, pq.QuoteIdentifier(d.Column)); got != want {
			t.Errorf("row 1's %s: %q, want %q", d.Column, got, want)
		}
	}
	want := map[string][]string{
		"pages":              append(slices.Clone(hostile), rotated(hostile, 13)...),
		"events":             append(rotated(hostile, 5), ""),
		"event_names":        append(rotated(hostile, 7), ""),
		"props":              append(hostilePairs(0, 12), hostilePairs(20, 3)...),
		"revenue_names":      {hostile[0], hostile[1], hostile[2], ""},
		"revenue_currencies": {"EUR", "USD", "JPY", "EUR"},
		"revenue_amounts":    {"12.500", "0.001", "999999999999999.999", "1"},
		"engaged_pages":      {hostile[12]},
		"engaged_ms":         {"9"},
		"scroll_depth":       {"50"},
	}
	for column, values := range want {
		if got := row.array(1, column); !slices.Equal(got, values) {
			t.Errorf("row 1's %s:\n got %q\nwant %q", column, got, values)
		}
	}
	if got := row.text(1, "hit_order"); got != "ppeppe" {
		t.Errorf("row 1's hit_order %q, want ppeppe", got)
	}
	if got := row.text(2, "concat_ws('|', pages, events, event_names, hit_order, props IS NULL, revenue_names IS NULL, "+
		"revenue_currencies IS NULL, revenue_amounts IS NULL, engaged_pages IS NULL, engaged_ms IS NULL, scroll_depth IS NULL, "+
		"landing_page, referrer)"); got != "{}|{}|{}||t|t|t|t|t|t|t||" {
		t.Errorf("a row without arrays: %s", got)
	}
	if got := row.array(3, "pages"); !slices.Equal(got, []string{""}) {
		t.Errorf("a page \"\": %q", got)
	}
	if got := row.array(3, "props"); !slices.Equal(got, []string{stats.PropPair("k", "")}) {
		t.Errorf("a property of value \"\": %q", got)
	}
}

// A row's engagement stays as its last write with engagement sent it, each page's time and
// depth NULL where none came (-1).
func TestVisitRowsKeepEngagementNulls(t *testing.T) {
	f := newFixture(t, "nulls.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	row := repository.VisitRow{WebsiteID: f.sites[0], Day: day, ID: 1, Engaged: []repository.EngagedPage{
		{Page: "/a", Millis: -1, Depth: 20}, {Page: "/b", Millis: 300, Depth: -1}}}
	later := repository.VisitRow{WebsiteID: f.sites[0], Day: day, ID: 1, Pages: []string{"/c"}}
	for i, r := range []repository.VisitRow{row, later} {
		id := fmt.Sprintf("6f1c2d3e-0000-4000-8000-0000000002%02d", i)
		if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Rows: repository.VisitRowList{r}}, 100); err != nil {
			t.Fatal(err)
		}
	}
	read := rowReader{t: t, db: f.db, websiteID: f.sites[0]}
	got := fmt.Sprint(read.array(1, "engaged_pages"), read.array(1, "engaged_ms"), read.array(1, "scroll_depth"))
	if want := "[/a /b] [<null> 300] [20 <null>]"; got != want {
		t.Fatalf("engagement %s, want %s", got, want)
	}
}

// A flush that fails, in its COPY or in the statement after it, leaves nothing in the
// session's table for the next flush of the same session, which writes its own rows only.
func TestVisitRowsAfterFailedFlushesOfTheSession(t *testing.T) {
	f := newFixture(t, "session.test")
	f.db.SetMaxOpenConns(1) // one session: every flush finds the table the others used
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	row := func(id int64, pageviews int) repository.VisitRow {
		return repository.VisitRow{WebsiteID: f.sites[0], Day: day, ID: id, Pageviews: pageviews, Pages: []string{fmt.Sprint("/", id)}}
	}
	failing := map[string]repository.VisitRowList{
		"a pageview count past integer (COPY)":  {row(1, 1), row(2, math.MaxInt32+1)},
		"one row twice in a statement (INSERT)": {row(3, 1), row(3, 1)},
	}
	for name, rows := range failing {
		id := fmt.Sprintf("6f1c2d3e-0000-4000-8000-0000000003%02d", len(name))
		if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Rows: rows}, 100); err == nil {
			t.Fatalf("%s: written", name)
		}
	}
	for i := range 2 {
		id := fmt.Sprintf("6f1c2d3e-0000-4000-8000-0000000004%02d", i)
		if added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Rows: repository.VisitRowList{row(int64(10+i), 1)}}, 100); err != nil || added.RowsDropped != 0 {
			t.Fatalf("flush %d after the failures: %d dropped (%v)", i, added.RowsDropped, err)
		}
	}
	var ids []int64
	if err := f.db.Select(&ids, `SELECT id FROM visit_rows ORDER BY id`); err != nil || fmt.Sprint(ids) != "[10 11]" {
		t.Fatalf("rows %v (%v), want [10 11]", ids, err)
	}
}

// A flush's visit rows go to PostgreSQL without a copy of them all in memory: a flush of
// VisitRowChunk rows allocates well under what their text takes (1.4 MB of COPY lines),
// where one statement's arguments took 12.5 MB.
func TestVisitRowsFlushAllocatesLessThanItsRows(t *testing.T) {
	f := newFixture(t, "alloc.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	rows := benchRows(f.sites[0], day, repository.VisitRowChunk)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000501", Rows: rows}, 100); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Fatalf("a flush of %d rows allocated %d bytes, want at most 1 MiB", len(rows), allocated)
	}
}

// rowReader reads a website's visit row by its id.
type rowReader struct {
	t         *testing.T
	db        *sqlx.DB
	websiteID int64
}

// text is an expression of the row's columns, as text.
func (r rowReader) text(id int64, expr string) string {
	r.t.Helper()
	var v string
	if err := r.db.Get(&v, `SELECT (`+expr+`)::text FROM visit_rows WHERE website_id = $1 AND id = $2`, r.websiteID, id); err != nil {
		r.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// array is the elements of an array column in order, as text: "<null>" for a NULL element.
func (r rowReader) array(id int64, column string) []string {
	r.t.Helper()
	var elements []sql.NullString
	err := r.db.Select(&elements, `SELECT e::text FROM visit_rows, unnest(`+column+`) WITH ORDINALITY AS u (e, o)
		WHERE website_id = $1 AND id = $2 ORDER BY o`, r.websiteID, id)
	if err != nil {
		r.t.Fatalf("%s: %v", column, err)
	}
	out := make([]string, len(elements))
	for i, e := range elements {
		out[i] = e.String
		if !e.Valid {
			out[i] = "<null>"
		}
	}
	return out
}
