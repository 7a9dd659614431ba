package repository_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A website's visit rows of a day take at most what VisitBatch.RowBytesPerDay lets them
// (VISIT_ROW_BYTES_PER_DAY): past it, its writes of that day are not written (RowsOverDay),
// in this flush and the next, while another website's and the next day's are; what the
// day's rows took is kept in visit_row_days, within the limit.
func TestVisitRowsOfADayAreBoundedInBytes(t *testing.T) {
	f := newFixture(t, "full.test", "other.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day.AddDate(0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	const limit = 3000
	row := func(site int64, id int, d string) repository.VisitRow {
		page := fmt.Sprintf("/%0100d", id) // 101 bytes, as the landing and exit page too
		return repository.VisitRow{WebsiteID: site, Day: date(d), Visitor: 1, ID: int64(id), Pageviews: 1, Bounce: true,
			Values: stats.ValuesOf(map[stats.Name]string{stats.LandingPage: page, stats.ExitPage: page}),
			Pages:  []string{page}, Order: []byte{repository.HitPage}}
	}
	batch := 0
	write := func(rows ...repository.VisitRow) repository.Added {
		t.Helper()
		batch++
		added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", 700+batch),
			Rows: repository.VisitRowList(rows), RowBytesPerDay: limit}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return added
	}
	// Each write costs 128 + 3 x 101 + 1 = 432 bytes: 6 fit in 3,000.
	var rows []repository.VisitRow
	for i := range 10 {
		rows = append(rows, row(f.sites[0], i+1, "2026-03-04"))
	}
	rows = append(rows, row(f.sites[1], 100, "2026-03-04"), row(f.sites[0], 200, "2026-03-05"))
	if added := write(rows...); added.RowsOverDay != 4 || added.RowsDropped != 0 {
		t.Fatalf("first flush: %+v, want 4 writes past the day", added)
	}
	if added := write(row(f.sites[0], 11, "2026-03-04"), row(f.sites[1], 101, "2026-03-04")); added.RowsOverDay != 1 {
		t.Fatalf("second flush: %+v, want the full day's write refused", added)
	}
	counts := map[string]int{}
	var rowsOf []struct {
		WebsiteID int64  `db:"website_id"`
		Day       string `db:"day"`
		N         int    `db:"n"`
	}
	if err := f.db.Select(&rowsOf, `SELECT website_id, to_char(day, 'YYYY-MM-DD') AS day, count(*) AS n FROM visit_rows GROUP BY 1, 2`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rowsOf {
		counts[fmt.Sprintf("%v %s", r.WebsiteID == f.sites[0], r.Day)] = r.N
	}
	if counts["true 2026-03-04"] != 6 || counts["false 2026-03-04"] != 2 || counts["true 2026-03-05"] != 1 {
		t.Fatalf("rows written %v", counts)
	}
	var taken int64
	if err := f.db.Get(&taken, `SELECT bytes FROM visit_row_days WHERE website_id = $1 AND day = '2026-03-04'`, f.sites[0]); err != nil || taken != 6*432 {
		t.Fatalf("the full day took %d bytes (%v), want 6 x 432", taken, err)
	}
	// The day's rows go with its partition, and the record of what they took with them.
	if _, err := f.repo.DropVisitRowPartitions(ctx, date("2026-03-05")); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := f.db.Get(&left, `SELECT count(*) FROM visit_row_days WHERE day = '2026-03-04'`); err != nil || left != 0 {
		t.Fatalf("%d records of the dropped day left (%v)", left, err)
	}
}

// The property values of all a website's keys of a day together are bounded too: 10 times
// MAX_VALUES_PER_DAY (at least 3,000); past them a new value is written KEY=(other). On main
// 300 keys could keep MAX_VALUES_PER_DAY values each: 3 million rows a day.
func TestPropertyValuesOfADayAreBounded(t *testing.T) {
	f := newFixture(t, "props.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	const maxValues = 400 // 4,000 values a day in all
	var rows []repository.VisitRow
	for k := range 11 { // 11 keys of 400 values each: 4,400
		r := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 1, ID: int64(k + 1), Pageviews: 1,
			Pages: []string{"/"}, Order: []byte{repository.HitPage}}
		for v := range maxValues {
			r.Props = append(r.Props, stats.PropPair(fmt.Sprintf("key%02d", k), fmt.Sprint(v)))
		}
		rows = append(rows, r)
	}
	added, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000801", Rows: repository.VisitRowList(rows)}, maxValues)
	if err != nil {
		t.Fatal(err)
	}
	var values int
	if err := f.db.Get(&values, `SELECT count(*) FROM property_values WHERE website_id = $1`, f.sites[0]); err != nil {
		t.Fatal(err)
	}
	if values != 4000 || added.PropsOverCap != 400 {
		t.Fatalf("%d values recorded, %d pairs over the cap; want 4,000 and 400", values, added.PropsOverCap)
	}
	var other int
	if err := f.db.Get(&other, `SELECT count(*) FROM visit_rows, unnest(props) AS p WHERE p = 'key10' || chr(31) || '(other)'`); err != nil || other != 400 {
		t.Fatalf("%d pairs of the last key written as (other) (%v), want 400", other, err)
	}
}
