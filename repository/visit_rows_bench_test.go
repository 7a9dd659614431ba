package repository_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// BenchmarkAddVisitRows writes a flush's visit rows (one op: one batch of VisitRowChunk new
// rows, each with its first hit's values, three pages and an event) through AddVisitBatch, as
// the flusher does. Its B/op and allocs/op are the rows' encoding and the driver's, which a
// loaded machine does not distort; its ns/op includes PostgreSQL's work. It also reports the
// CPU time of this process (go-cpu-ms/op: the encoding, the driver, the garbage collector)
// and of the PostgreSQL backend (pg-cpu-ms/op, when the server runs on this machine), which a
// busy machine distorts less than the time.
//
//	scripts/test.sh go test -run '^$' -bench AddVisitRows -benchmem ./repository/
func BenchmarkAddVisitRows(b *testing.B) {
	f := newFixture(b, "rows.bench")
	f.db.SetMaxOpenConns(1) // one backend, whose CPU time is read
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		b.Fatal(err)
	}
	n := repository.VisitRowChunk
	rows := benchRows(f.sites[0], day, n)
	b.ReportAllocs()
	pg0, self0 := backendCPU(b, f.db), processCPU(b)
	for op := 0; b.Loop(); op++ {
		b.StopTimer()
		for i := range rows {
			rows[i].ID = int64(op*n + i + 1) // new rows each op, as a flush's first writes
		}
		batch := repository.VisitBatch{ID: fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", op), Rows: rows}
		b.StartTimer()
		if added, err := f.repo.AddVisitBatch(ctx, batch, 100); err != nil || added.RowsDropped != 0 {
			b.Fatalf("%d dropped (%v)", added.RowsDropped, err)
		}
	}
	b.ReportMetric(float64(processCPU(b)-self0)/float64(time.Millisecond)/float64(b.N), "go-cpu-ms/op")
	if pg := backendCPU(b, f.db); pg0 >= 0 && pg >= 0 {
		b.ReportMetric(float64(pg-pg0)/float64(time.Millisecond)/float64(b.N), "pg-cpu-ms/op")
	}
}

// processCPU is the CPU time this process has taken, user and system.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchRows are n new rows of a website's day, each with its first hit's values, three pages
// and an event.
func benchRows(websiteID int64, day time.Time, n int) repository.VisitRowList {
	rows := make(repository.VisitRowList, n)
	for i := range rows {
		page := fmt.Sprintf("/blog/2026/03/post-number-%06d", i%500)
		rows[i] = repository.VisitRow{WebsiteID: websiteID, Day: day, Visitor: int32(i), ID: int64(i + 1), Hour: 10, Pageviews: 3, Seconds: 95,
			Values: stats.ValuesOf(map[stats.Name]string{stats.Referrer: "www.google.com", stats.Country: "DE:Germany",
				stats.City: "DE:Berlin", stats.Browser: "Chrome", stats.OperatingSystem: "Windows", stats.Device: "desktop",
				stats.Language: "de", stats.ScreenResolution: "1920x1080", stats.Continent: "EU", stats.Source: "Google", stats.Channel: "Organic Search", stats.LandingPage: page, stats.ExitPage: "/pricing"}),
			Pages: []string{page, "/about", "/pricing"}, Events: []string{"Signup::"}, EventNames: []string{"Signup"},
			Order: []byte("ppep")}
	}
	return rows
}
