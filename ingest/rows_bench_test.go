package ingest

import (
	"fmt"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// BenchmarkTakenRows is the collector's side of a flush's visit rows: one op takes 5,000 rows
// held (each a first hit's values and three pageviews) and makes each as the batch writes it
// (takenRows.Row), without the database (BenchmarkAddVisitRows in repository writes them).
//
//	go test -run '^$' -bench TakenRows -benchmem ./ingest/
func BenchmarkTakenRows(b *testing.B) {
	const n = 5000
	values := stats.ValuesOf(map[stats.Name]string{stats.Referrer: "www.google.com", stats.Country: "DE:Germany",
		stats.Browser: "Chrome", stats.OperatingSystem: "Windows", stats.Device: "desktop", stats.ScreenResolution: "1920x1080"})
	pages := make([]string, 500)
	for i := range pages {
		pages[i] = fmt.Sprintf("/blog/2026/03/post-number-%06d", i)
	}
	counters := NewCounters(1 << 30)
	b.ReportAllocs()
	var row repository.VisitRow
	for op := 0; b.Loop(); op++ {
		b.StopTimer()
		for i := range n {
			ref := rowRef{websiteID: 1, day: 20516, id: int64(op*n + i + 1)}
			counters.openRow(ref, 10)
			for hit, page := range []string{pages[i%500], "/about", "/pricing"} {
				x := hitExtras{hasRow: true, hasPageview: true, rowPage: page, hasValues: hit == 0, values: values,
					row: rowEnd{ref: ref, hour: 10, landing: pages[i%500], exit: page, seconds: int32(hit * 30)}}
				if err := counters.AddHit(nil, &x); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		t := counters.take()
		for i := range t.rows.Len() {
			t.rows.Row(i, &row)
		}
		b.StopTimer()
		if t.rows.Len() != n {
			b.Fatalf("%d rows taken, want %d", t.rows.Len(), n)
		}
		counters.release(t.size())
		b.StartTimer()
	}
}
