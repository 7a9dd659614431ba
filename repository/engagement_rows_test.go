package repository_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// engagementOf reads the engagement of pages over day for the visits that match filters, as
// "page:time/depth" in the order of pages ("<nil>" for none).
func engagementOf(t *testing.T, f fixture, day string, filters stats.Filters, pages ...string) string {
	t.Helper()
	got, err := f.repo.Reader(f.sites[0], stats.Range{From: date(day), To: date(day)}, filters).Engagement(context.Background(), pages)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pages {
		e, ok := got[p]
		if !ok {
			out = append(out, p+":-")
			continue
		}
		show := func(n *int) string {
			if n == nil {
				return "<nil>"
			}
			return fmt.Sprint(*n)
		}
		out = append(out, p+":"+show(e.TimeOnPage)+"/"+show(e.ScrollDepth))
	}
	return strings.Join(out, " ")
}

// A row's engagement is the visit's totals per page: a later write without engagement keeps
// it, one with engagement replaces it; filtered reads take the means over the matching visits
// that sent engagement for each page (elements without time or depth count in neither), and a
// page as odd as a stranger may send reaches the row and the read exactly.
func TestVisitRowsKeepEngagement(t *testing.T) {
	f := newFixture(t, "engaged.test")
	ctx := context.Background()
	const day = "2026-03-04"
	if err := f.repo.EnsureVisitRowPartitions(ctx, date(day), date(day)); err != nil {
		t.Fatal(err)
	}
	odd := `{x,"y"}\ NULL`
	row := func(id int64, country string, pages []string, engaged ...repository.EngagedPage) repository.VisitRow {
		return repository.VisitRow{WebsiteID: f.sites[0], Day: date(day), Visitor: int32(id), ID: id, Hour: 10, Pageviews: len(pages),
			Values: stats.ValuesOf(map[stats.Name]string{stats.Country: country}), Pages: pages, Engaged: engaged}
	}
	write := func(batch string, rows ...repository.VisitRow) {
		t.Helper()
		id := "6f1c2d3e-0000-4000-8000-00000000000" + batch
		if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: id, Rows: repository.VisitRowList(rows)}, 0); err != nil {
			t.Fatal(err)
		}
	}
	de := stats.Filters{{Name: stats.Country, Value: "DE"}}
	fr := stats.Filters{{Name: stats.Country, Value: "FR"}}

	write("1",
		row(1, "DE:Germany", []string{"/a", "/b"}, repository.EngagedPage{Page: "/a", Millis: 10_000, Depth: 40}, repository.EngagedPage{Page: "/b", Millis: -1, Depth: 90}),
		row(2, "FR:France", []string{"/a"}, repository.EngagedPage{Page: "/a", Millis: 30_000, Depth: -1}),
		row(3, "DE:Germany", []string{"/a"}))
	if got, want := engagementOf(t, f, day, de, "/a", "/b", "/none"), "/a:10/40 /b:<nil>/90 /none:-"; got != want {
		t.Errorf("first write, Germany: %s, want %s", got, want)
	}
	if got, want := engagementOf(t, f, day, fr, "/a", "/b"), "/a:30/<nil> /b:-"; got != want {
		t.Errorf("first write, France: %s, want %s", got, want)
	}

	// Row 1 goes on without new engagement (kept); row 3 sends its first.
	write("2", row(1, "", []string{"/c"}), row(3, "", nil, repository.EngagedPage{Page: odd, Millis: 5_000, Depth: 0}))
	if got, want := engagementOf(t, f, day, de, "/a", "/b", odd), "/a:10/40 /b:<nil>/90 "+odd+":5/0"; got != want {
		t.Errorf("second write: %s, want %s", got, want)
	}
	// Row 1's totals grow: replaced, not added.
	write("3", row(1, "", nil, repository.EngagedPage{Page: "/a", Millis: 20_000, Depth: 60}, repository.EngagedPage{Page: "/b", Millis: 4_000, Depth: 90}))
	if got, want := engagementOf(t, f, day, de, "/a", "/b", odd), "/a:20/60 /b:4/90 "+odd+":5/0"; got != want {
		t.Errorf("third write: %s, want %s", got, want)
	}
	// Both countries: /a is engaged 20 s and 30 s (mean 25), scrolled by one visit only.
	all := stats.Filters{{Name: stats.Browser, Value: ""}} // every row
	if got, want := engagementOf(t, f, day, all, "/a"), "/a:25/60"; got != want {
		t.Errorf("both countries: %s, want %s", got, want)
	}
	// With a page filter, the rows of the visits that viewed /c: row 1 only.
	if got, want := engagementOf(t, f, day, stats.Filters{{Name: stats.Page, Value: "/c"}}, "/a", "/c"), "/a:20/60 /c:-"; got != want {
		t.Errorf("page filter: %s, want %s", got, want)
	}
	var pages string
	if err := f.db.Get(&pages, `SELECT engaged_pages::text FROM visit_rows WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	if want := `{"{x,\"y\"}\\ NULL"}`; pages != want {
		t.Errorf("row 3's engaged_pages %s, want %s", pages, want)
	}
}

// Rows written before migration 0025 hold no engagement: a filtered page list gives their
// pages no time on page and no scroll depth (null), not 0, and counts them in no mean.
func TestEngagementOfRowsBeforeTheMigration(t *testing.T) {
	f := newFixture(t, "before.test")
	ctx := context.Background()
	const day = "2026-03-04"
	if err := f.repo.EnsureVisitRowPartitions(ctx, date(day), date(day)); err != nil {
		t.Fatal(err)
	}
	// The database as it was before 0025, with a visit row written then.
	for _, q := range []string{
		`ALTER TABLE visit_rows DROP COLUMN engaged_pages, DROP COLUMN engaged_ms, DROP COLUMN scroll_depth`,
		`DELETE FROM schema_migrations WHERE version LIKE '0025%'`,
		fmt.Sprintf(`INSERT INTO visit_rows (website_id, day, visitor, id, hour, pageviews, country, pages)
			VALUES (%d, '%s', 1, 1, 10, 2, 'DE:Germany', '{/old,/both}')`, f.sites[0], day),
	} {
		if _, err := f.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := repository.Migrate(ctx, f.db); err != nil {
		t.Fatal(err)
	}
	row := repository.VisitRow{WebsiteID: f.sites[0], Day: date(day), Visitor: 2, ID: 2, Hour: 10, Pageviews: 1,
		Values: stats.ValuesOf(map[stats.Name]string{stats.Country: "DE:Germany"}), Pages: []string{"/both"},
		Engaged: []repository.EngagedPage{{Page: "/both", Millis: 8_000, Depth: 30}}}
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000009", Rows: repository.VisitRowList{row}}, 0); err != nil {
		t.Fatal(err)
	}
	de := stats.Filters{{Name: stats.Country, Value: "DE"}}
	if got, want := engagementOf(t, f, day, de, "/old", "/both"), "/old:- /both:8/30"; got != want {
		t.Errorf("engagement %s, want %s", got, want)
	}
	list, _, err := f.repo.Reader(f.sites[0], stats.Range{From: date(day), To: date(day)}, de).List(ctx, repository.StatQuery{Name: stats.Page, SortBy: "count", Desc: true, Limit: 10})
	if err != nil || len(list) != 2 {
		t.Fatalf("page list %v (%v): both pages count", list, err)
	}
}
