package phpanalytics_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/analytics-service/analytics/importer/phpanalytics/phpatest"
	"github.com/analytics-service/analytics/repository/repotest"
)

// benchWebsites is how many websites share the benchmark's rows.
const benchWebsites = 10

// benchDay is a day of a busy phpAnalytics website: its statistics, in the order of the stats.name
// enum (the primary key's order, so that MariaDB appends), and how many values each has a day.
var benchDay = []struct {
	name   string
	values int
}{
	{"browser", 7}, {"os", 7}, {"device", 4}, {"visitors", 1}, {"pageviews", 1}, {"country", 60},
	{"city", 120}, {"page", 316}, {"referrer", 80}, {"resolution", 40}, {"language", 10},
	{"landing_page", 120}, {"event", 20}, {"campaign", 8}, {"continent", 6}, {"visitors_hour", 24},
	{"pageviews_hour", 24},
}

// BenchmarkImportPHPAnalytics imports a phpAnalytics database of BENCH_IMPORT_ROWS stats rows
// (default 10 million, over 10 websites) with the real binary, and reports its time, rate and
// peak resident memory. `make bench-import` runs it once.
func BenchmarkImportPHPAnalytics(b *testing.B) {
	total := 10_000_000
	if v := os.Getenv("BENCH_IMPORT_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("BENCH_IMPORT_ROWS=%q is not a positive number", v)
		}
		total = n
	}
	bin := buildBinary(b)
	dsn, pa := phpatest.New(b)
	start := time.Now()
	days := generate(b, dsn, total)
	b.Logf("generated %d rows (%d websites, %d days each) in MariaDB in %s", total, benchWebsites, days, time.Since(start).Round(time.Second))
	if _, err := pa.Exec(`INSERT INTO users (id, name, email, created_at) VALUES (1, 'Owner', 'owner@example.com', NOW())`); err != nil {
		b.Fatal(err)
	}
	for w := 1; w <= benchWebsites; w++ {
		if _, err := pa.Exec(`INSERT INTO websites (id, user_id, domain, privacy, email, exclude_bots, created_at) VALUES (?, 1, ?, 0, 0, 1, NOW())`,
			w, fmt.Sprintf("site%d.example", w)); err != nil {
			b.Fatal(err)
		}
	}
	db, dbURL := repotest.New(b)

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			b.Fatal("run it with -benchtime 1x: a second run imports nothing")
		}
		cmd := exec.Command(bin, "import", "phpanalytics", "--dsn", dsn)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		began := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("import: %v\n%s", err, out.String())
		}
		took := time.Since(began)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		b.ReportMetric(took.Seconds(), "s/import")
		b.ReportMetric(float64(total)/took.Seconds(), "rows/s")
		b.ReportMetric(float64(rss)/1024, "MiB-peak-RSS")
		b.Logf("imported %d rows in %s (%.0f rows/s), peak RSS %.1f MiB\n%s", total, took.Round(time.Millisecond),
			float64(total)/took.Seconds(), float64(rss)/1024, lastLines(out.String(), 3))
	}
	b.StopTimer()

	// The numbers arrived: every pageview and every page view count.
	var want, got int64
	if err := pa.QueryRow(`SELECT SUM(count) FROM stats WHERE name IN ('pageviews', 'page')`).Scan(&want); err != nil {
		b.Fatal(err)
	}
	if err := db.Get(&got, `SELECT sum(count) FROM stats WHERE name IN ('pageview', 'page')`); err != nil {
		b.Fatal(err)
	}
	if got != want {
		b.Errorf("pageviews and pages: %d imported, %d in phpAnalytics", got, want)
	}
}

// generate writes total stats rows into the phpAnalytics database with LOAD DATA from a
// generator, in primary key order, and returns how many days each website has.
func generate(b *testing.B, dsn string, total int) int {
	b.Helper()
	perDay := 0
	for _, s := range benchDay {
		perDay += s.values
	}
	perSite := (total + benchWebsites - 1) / benchWebsites
	days := (perSite + perDay - 1) / perDay
	first := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	dates := make([]string, days)
	for d := range dates {
		dates[d] = first.AddDate(0, 0, d).Format(time.DateOnly)
	}
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		left := total
	sites:
		for site := 1; site <= benchWebsites; site++ {
			for _, s := range benchDay {
				for v := 0; v < s.values; v++ {
					for d, date := range dates {
						if left == 0 {
							break sites
						}
						left--
						value := benchValue(s.name, v, date)
						fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\n", site, s.name, value, 1+(v*7+d)%50+1000/(v+1), date)
					}
				}
			}
		}
		if err := w.Flush(); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.Close()
	}()
	mysql.RegisterReaderHandler("bench", func() io.Reader { return pr })
	defer mysql.DeregisterReaderHandler("bench")
	db := open(b, dsn)
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{`SET SESSION unique_checks = 0`, `SET SESSION foreign_key_checks = 0`,
		`LOAD DATA LOCAL INFILE 'Reader::bench' INTO TABLE stats FIELDS TERMINATED BY '\t' (website_id, name, value, count, date)`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	return days
}

// benchNames are real values of a few statistics, sorted as MariaDB sorts them.
var benchNames = map[string][]string{
	"browser":  {"Chrome", "Edge", "Firefox", "Internet Explorer", "Opera", "Safari", "Samsung Browser"},
	"os":       {"Android", "Chrome OS", "iOS", "Linux", "OS X", "Ubuntu", "Windows"},
	"device":   {"desktop", "mobile", "tablet", "television"},
	"language": {"de", "en", "es", "fr", "it", "ja", "nl", "pl", "pt", "ru"},
}

// benchValue is the v-th value of a statistic, in the order MariaDB's collation sorts them
// (so that rows are appended): zero-padded numbers; days and hours as phpAnalytics writes them.
func benchValue(name string, v int, date string) string {
	switch name {
	case "visitors", "pageviews":
		return date
	case "visitors_hour", "pageviews_hour":
		return fmt.Sprintf("%02d", v)
	case "page", "landing_page":
		return fmt.Sprintf("/page-%04d", v)
	case "resolution":
		return fmt.Sprintf("%dx768", 1000+v)
	case "browser", "os", "device", "language":
		return benchNames[name][v%len(benchNames[name])]
	}
	return fmt.Sprintf("%s-%04d", name, v)
}

func open(b *testing.B, dsn string) *sql.DB {
	b.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// buildBinary builds cmd/analytics, as the benchmark measures the command a person runs.
func buildBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "analytics")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/analytics")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimRight([]byte(s), "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
