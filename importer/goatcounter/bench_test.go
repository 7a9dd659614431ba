package goatcounter_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer/goatcounter/goatcountertest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// BenchmarkImportGoatCounter imports a generated GoatCounter export of BENCH_IMPORT_ROWS hits
// (default 10 million over a year, gzipped as GoatCounter writes it) with the real binary
// (`analytics import goatcounter`, built without -race), and reports its time, rate and peak
// resident memory. `make bench-import` runs it once.
func BenchmarkImportGoatCounter(b *testing.B) {
	rows := int64(10_000_000)
	if v := os.Getenv("BENCH_IMPORT_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			b.Fatalf("BENCH_IMPORT_ROWS=%q is not a positive number", v)
		}
		rows = n
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "analytics")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/analytics").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "export.csv.gz")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	began := time.Now()
	export, err := goatcountertest.Write(zw, rows, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 365, 5000)
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(file)
	b.Logf("generated %d hits (%d pageviews, %d events, %d bots) in %s: %.1f MiB gzipped",
		export.Rows, export.Pageviews, export.Events, export.Bots, time.Since(began).Round(time.Second), float64(info.Size())/(1<<20))

	db, dbURL := repotest.New(b)
	repo := repository.New(db, nil)
	user, err := repo.CreateUser(context.Background(), "owner@example.com")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := repo.CreateWebsite(context.Background(), user.ID, repository.NewWebsite{Domain: "gc.example"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			b.Fatal("run it with -benchtime 1x: a second run imports nothing")
		}
		cmd := exec.Command(bin, "import", "goatcounter", "--website", "gc.example", file)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("import: %v\n%s", err, out.String())
		}
		took := time.Since(start)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		b.ReportMetric(took.Seconds(), "s/import")
		b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
		b.ReportMetric(float64(rss)/1024, "MiB-peak-RSS")
		b.Logf("imported %d hits in %s (%.0f rows/s), peak RSS %.1f MiB\n%s", rows, took.Round(time.Millisecond),
			float64(rows)/took.Seconds(), float64(rss)/1024, out.String())
	}
	b.StopTimer()
	var got int64
	if err := db.Get(&got, `SELECT coalesce(sum(count), 0) FROM stats WHERE name = 'pageview'`); err != nil {
		b.Fatal(err)
	}
	if got != export.Pageviews {
		b.Errorf("pageviews: %d imported, %d in the export", got, export.Pageviews)
	}
}
