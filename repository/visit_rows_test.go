package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A row's later writes append its pages and events, add its pageviews and replace landing and
// exit page, bounce and seconds, while its visit-level values stay those of its first write;
// rows of a day without a partition or of a website that is gone are skipped (RowsDropped),
// not the flush; deleting a website deletes its rows, and only its.
func TestVisitRowsUpsertSkipAndDelete(t *testing.T) {
	f := newFixture(t, "a.example", "b.example")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	first := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 5, ID: 1, Hour: 9, Pageviews: 1, Bounce: true,
		Values: stats.ValuesOf(map[stats.Name]string{stats.Referrer: "news.example", stats.Country: "DE:Germany",
			stats.LandingPage: "/a", stats.ExitPage: "/a"}), Pages: []string{"/a"}}
	other := first
	other.WebsiteID = f.sites[1]
	added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000011", Rows: repository.VisitRowList{first, other}}, 100)
	if err != nil || added.RowsDropped != 0 {
		t.Fatalf("first write: %d dropped (%v)", added.RowsDropped, err)
	}
	later := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 5, ID: 1, Hour: 9, Pageviews: 2, Seconds: 40,
		Values: stats.ValuesOf(map[stats.Name]string{stats.LandingPage: "/a", stats.ExitPage: "/c"}),
		Pages:  []string{"/b", "/c"}, Events: []string{"Play::"}}
	noPartition := later
	noPartition.Day = day.AddDate(0, 0, 1)
	gone := later
	gone.WebsiteID = f.sites[1] + 1000
	added, err = f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000012", Rows: repository.VisitRowList{later, noPartition, gone}}, 100)
	if err != nil || added.RowsDropped != 2 {
		t.Fatalf("later write: %d dropped (%v), want 2", added.RowsDropped, err)
	}
	var got struct {
		Pageviews, Seconds               int
		Bounce                           bool
		Referrer, Country, Landing, Exit string
		Pages, Events                    pq.StringArray
	}
	err = f.db.QueryRowContext(ctx, `SELECT pageviews, seconds, bounce, referrer, country, landing_page, exit_page, pages, events
		FROM visit_rows WHERE website_id = $1`, f.sites[0]).Scan(&got.Pageviews, &got.Seconds, &got.Bounce, &got.Referrer,
		&got.Country, &got.Landing, &got.Exit, &got.Pages, &got.Events)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pageviews != 3 || got.Seconds != 40 || got.Bounce || got.Referrer != "news.example" || got.Country != "DE:Germany" ||
		got.Landing != "/a" || got.Exit != "/c" || len(got.Pages) != 3 || got.Pages[1] != "/b" || len(got.Events) != 1 {
		t.Fatalf("row after two writes: %+v", got)
	}
	if err := f.repo.DeleteWebsite(ctx, f.sites[0]); err != nil {
		t.Fatal(err)
	}
	var left []int64
	if err := f.db.Select(&left, `SELECT website_id FROM visit_rows`); err != nil || len(left) != 1 || left[0] != f.sites[1] {
		t.Fatalf("rows of websites %v left (%v), want only %d's", left, err, f.sites[1])
	}
}

// madeRows are VisitRows made one at a time as they are read, reusing the arrays of the row
// they are given, as the collector's are (ingest.takenRows).
type madeRows struct {
	websiteID int64
	day       time.Time
	n         int
}

func (m madeRows) Len() int { return m.n }

func (m madeRows) Row(i int, r *repository.VisitRow) {
	*r = repository.VisitRow{WebsiteID: m.websiteID, Day: m.day, Visitor: int32(i), ID: int64(i + 1), Pageviews: 1,
		Values: stats.ValuesOf(map[stats.Name]string{stats.City: fmt.Sprintf("c%d", i+1), stats.LandingPage: fmt.Sprintf("/p%d", i+1),
			stats.ExitPage: fmt.Sprintf("/p%d", i+1)}),
		Pages: append(r.Pages[:0], fmt.Sprintf("/p%d", i+1)), Events: append(r.Events[:0], fmt.Sprintf("e%d", i+1))}
}

// A batch of more rows than a statement writes goes in several, each row once and whole, even
// when its rows are made as they are read into arrays that the next row reuses.
func TestVisitRowsOfSeveralStatements(t *testing.T) {
	f := newFixture(t, "chunks.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	n := 2*repository.VisitRowChunk + 1
	added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000021",
		Rows: madeRows{websiteID: f.sites[0], day: day, n: n}}, 100)
	if err != nil || added.RowsDropped != 0 {
		t.Fatalf("write: %d dropped (%v)", added.RowsDropped, err)
	}
	var got struct {
		Rows, Whole int
	}
	err = f.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE city = 'c' || id AND landing_page = '/p' || id
		AND exit_page = '/p' || id AND pages = ARRAY['/p' || id] AND events = ARRAY['e' || id] AND visitor = id - 1)
		FROM visit_rows WHERE website_id = $1`, f.sites[0]).Scan(&got.Rows, &got.Whole)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != n || got.Whole != n {
		t.Fatalf("%d rows, %d of them whole; want %d", got.Rows, got.Whole, n)
	}
}

// The rows' writer holds every row to the bounds of a row (stats.MaxRowHits and the others),
// whatever its writes carry: a write that carries more than a whole row may is written
// without its hits, properties and revenue (RowWritesCut), and a later write that would take
// the row past them is not applied (RowsDropped); writes within them go on. The collector
// keeps the bounds itself: these are the guards behind it. On main every write appended.
func TestVisitRowsAreHeldToTheirBounds(t *testing.T) {
	f := newFixture(t, "bounds.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	batch := 0
	write := func(r repository.VisitRow) repository.Added {
		t.Helper()
		batch++
		added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", 900+batch),
			Rows: repository.VisitRowList{r}}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return added
	}
	pages := func(n int, page string) ([]string, []byte) {
		p, o := make([]string, n), make([]byte, n)
		for i := range p {
			p[i], o[i] = page, repository.HitPage
		}
		return p, o
	}
	row := func(id int64, n int, page string) repository.VisitRow {
		r := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 1, ID: id, Pageviews: n,
			Values: stats.ValuesOf(map[stats.Name]string{stats.LandingPage: "/a", stats.ExitPage: "/a"})}
		r.Pages, r.Order = pages(n, page)
		return r
	}
	type sizes struct {
		Pageviews, Pages, Hits, Props int
	}
	read := func(id int64) sizes {
		t.Helper()
		var s sizes
		err := f.db.QueryRowContext(ctx, `SELECT pageviews, cardinality(pages), length(hit_order), coalesce(cardinality(props), 0)
			FROM visit_rows WHERE id = $1`, id).Scan(&s.Pageviews, &s.Pages, &s.Hits, &s.Props)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// One write of more hits than a row may hold: written, without them.
	if added := write(row(1, stats.MaxRowHits+1, "/p")); added.RowWritesCut != 1 || added.RowsDropped != 0 {
		t.Fatalf("a write past the bounds: %+v", added)
	}
	if got := read(1); got != (sizes{Pageviews: stats.MaxRowHits + 1}) {
		t.Fatalf("row 1: %+v", got)
	}
	// Bytes, and properties, likewise.
	long := row(2, 2, strings.Repeat("x", stats.MaxRowHitBytes/2+1))
	if added := write(long); added.RowWritesCut != 1 {
		t.Fatalf("a write of too many bytes: %+v", added)
	}
	props := row(3, 1, "/p")
	for range stats.MaxRowProps + 1 {
		props.Props = append(props.Props, stats.PropPair("k", "v"))
	}
	if added := write(props); added.RowWritesCut != 1 || read(3).Props != 0 {
		t.Fatalf("a write of too many properties: %+v, row %+v", added, read(3))
	}

	// Writes within the bounds whose sum is not: the first two apply, the third does not.
	for i, n := range []int{stats.MaxRowHits / 2, stats.MaxRowHits / 2, 1} {
		added := write(row(4, n, "/q"))
		if applied := added.RowsDropped == 0; applied != (i < 2) {
			t.Fatalf("write %d of row 4: %+v", i+1, added)
		}
	}
	if got := read(4); got != (sizes{Pageviews: stats.MaxRowHits, Pages: stats.MaxRowHits, Hits: stats.MaxRowHits}) {
		t.Fatalf("row 4: %+v", got)
	}
	// The stored size: a page of nearly 64 KiB of random letters (which barely compress) each
	// time, which the hits' bound lets through alone; the fifth would pass 256 KiB.
	rng := rand.New(rand.NewPCG(5, 5))
	applied := 0
	for range 5 {
		page := make([]byte, stats.MaxRowHitBytes-10)
		for i := range page {
			page[i] = byte('a' + rng.IntN(26))
		}
		if added := write(row(5, 1, string(page))); added.RowsDropped == 0 {
			applied++
		}
	}
	var stored int
	if err := f.db.QueryRowContext(ctx, `SELECT pg_column_size(pages) FROM visit_rows WHERE id = 5`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if applied == 5 || applied < 2 || stored > stats.MaxRowStoredBytes {
		t.Fatalf("row 5: %d of 5 writes applied, %d bytes of pages stored", applied, stored)
	}
}
