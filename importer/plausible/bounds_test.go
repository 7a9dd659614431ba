package plausible_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/plausible"
)

const visitorsHeader = "date,visitors,pageviews,bounces,visits,visit_duration\n"

// zipStream is a zip of one visitors file (with the header given) whose content is written
// by fill, streamed into the zip writer: a cell of hundreds of MiB is never in memory.
func zipStream(t *testing.T, header string, fill func(w io.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.Create("imported_visitors_20240101_20240131.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, header); err != nil {
		t.Fatal(err)
	}
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// repeat writes n bytes of b.
func repeat(w io.Writer, b byte, n int) error {
	chunk := bytes.Repeat([]byte{b}, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// TestImportReadsWithinBounds: a line or field over 64 KiB is refused as soon as the bound
// passes (the allocations stay far below the cell's size), naming the file, line and column;
// a value quoted in a message is cut to 80 characters; a duplicated column is refused as a
// missing one is; nothing is written.
func TestImportReadsWithinBounds(t *testing.T) {
	e := newEnv(t)
	const file = "imported_visitors_20240101_20240131.csv"
	cases := []struct {
		name    string
		zip     []byte
		message string
	}{
		{"a cell of 200 MiB", zipStream(t, visitorsHeader, func(w io.Writer) error {
			if _, err := io.WriteString(w, "2024-01-01,1,"); err != nil {
				return err
			}
			return repeat(w, 'A', 200<<20)
		}), file + ", line 2, column pageviews: the line is longer than 64 KiB"},
		{"a quoted cell of many short lines", zipStream(t, "date,visitors,pageviews,bounces,visits,visit_duration,note\n", func(w io.Writer) error {
			if _, err := io.WriteString(w, "2024-01-01,1,1,0,1,10,\""); err != nil {
				return err
			}
			for range 100 {
				if _, err := io.WriteString(w, strings.Repeat("B", 1000)+"\n"); err != nil {
					return err
				}
			}
			_, err := io.WriteString(w, "\"\n")
			return err
		}), file + ", line 2, column note: the line is longer than 64 KiB"},
		{"a header of 100 KiB", zipStream(t, "date,"+strings.Repeat("h", 100<<10)+"\n", func(io.Writer) error { return nil }),
			file + ", line 1, column 2: the line is longer than 64 KiB"},
		{"a long value that is not a count", zipStream(t, visitorsHeader, func(w io.Writer) error {
			_, err := io.WriteString(w, "2024-01-01,1,"+strings.Repeat("x", 5000)+",0,1,10\n")
			return err
		}), file + `, line 2, column pageviews: "` + strings.Repeat("x", 80) + `…" is not a count`},
		{"a long value that is not a date", zipStream(t, visitorsHeader, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat("é", 5000)+",1,1,0,1,10\n")
			return err
		}), file + `, line 2, column date: "` + strings.Repeat("é", 80) + `…" is not a date`},
		{"a duplicated column", zipStream(t, "date,visitors,pageviews,bounces,visits,visit_duration,visitors\n", func(w io.Writer) error {
			_, err := io.WriteString(w, "2024-01-01,1,1,0,1,10,7\n")
			return err
		}), file + `: the column "visitors" is in the header twice (columns 2 and 7)`},
		{"a row with a field too many", zipStream(t, visitorsHeader, func(w io.Writer) error {
			_, err := io.WriteString(w, "2024-01-01,1,1,0,1,10,\"x\"\n")
			return err
		}), file + `, line 2, column 7: the line has 7 fields, the first line 6`},
		{"a stray quote", zipStream(t, visitorsHeader, func(w io.Writer) error {
			_, err := io.WriteString(w, "2024-01-01,1,1,0,\"1\"2,10\n")
			return err
		}), file + `, line 2, column visits: a quote inside a quoted field is not doubled`},
		{"an empty file", zipStream(t, "", func(io.Writer) error { return nil }), file + ": no header line: the file is empty"},
		{"more days than a hundred years", zipStream(t, visitorsHeader, func(w io.Writer) error {
			day := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range 36_601 {
				if _, err := fmt.Fprintf(w, "%s,1,1,0,1,10\n", day.AddDate(0, 0, i).Format(time.DateOnly)); err != nil {
					return err
				}
			}
			return nil
		}), file + ", line 36602, column date: the export holds more than 36600 days (100 years)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.T = t
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := e.importZip(c.zip, plausible.Options{})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("error %.300v, want one saying %q", err, c.message)
			}
			if len(err.Error()) > 400 {
				t.Errorf("the message has %d bytes, want it short", len(err.Error()))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("the import allocated %d MiB, want it bounded by the line, not the file", alloc>>20)
			}
			var rows int
			if err := e.DB.Get(&rows, `SELECT (SELECT count(*) FROM stats) + (SELECT count(*) FROM imported_days)`); err != nil || rows != 0 {
				t.Fatalf("%d rows written (%v), want none", rows, err)
			}
		})
	}
}

// TestImportLeftOutIsBounded: 3,000 distinct devices with no counterpart are counted under
// their reason, and the summary shows the 20 most frequent, the largest first.
func TestImportLeftOutIsBounded(t *testing.T) {
	e := newEnv(t)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("imported_visitors.csv")
	_, _ = io.WriteString(w, visitorsHeader+"2024-01-01,1,1,0,1,10\n")
	w, _ = z.Create("imported_devices.csv")
	_, _ = io.WriteString(w, "date,device,visits\n2024-01-01,Laptop,500\n2024-01-01,Desktop,7\n")
	for i := range 3000 {
		_, _ = fmt.Fprintf(w, "2024-01-01,Screen %04d,%d\n", i, 1+i%3)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err := e.importZip(buf.Bytes(), plausible.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.LeftOut) != 1 {
		t.Fatalf("left out %+v, want one reason", sum.LeftOut)
	}
	r := sum.LeftOut[0]
	if r.Total != 500+3000*2 || len(r.Values) != 20 || r.Values[0].Value != "Laptop" || r.Values[0].Count != 500 ||
		r.Values[1].Count != 3 || !r.Estimated {
		t.Errorf("left out %+v", r)
	}
	if line := r.String(); len(line) > 1000 || !strings.Contains(line, "more than 980 other values") {
		t.Errorf("the summary line (%d bytes): %s", len(line), line)
	}
	if got := e.internal("device"); got["desktop"] != 7 || len(got) != 1 {
		t.Errorf("devices imported: %v", got)
	}
}

// TestImportRefusesAHugeDirectory: a zip whose directory lists 300,000 files is refused
// without a record of each being made (zip.NewReader reads every entry of the directory,
// whatever count the archive declares, before the limit of 64 files can be checked).
func TestImportRefusesAHugeDirectory(t *testing.T) {
	e := newEnv(t)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for i := range 300_000 {
		if _, err := z.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := e.importZip(buf.Bytes(), plausible.Options{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "more than 64") {
		t.Fatalf("error %v, want one saying the archive has more than 64 files", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading the directory allocated %d MiB, want it bounded", alloc>>20)
	}
}

// TestDayRangesAreCut: days listed on a summary are at most 50 runs, then how many are left.
func TestDayRangesAreCut(t *testing.T) {
	var days []time.Time
	for i := range 200 {
		days = append(days, first.AddDate(0, 0, 2*i)) // every other day: 200 runs
	}
	got := importer.DayRanges(days)
	if n := strings.Count(got, ", "); n != 50 || !strings.HasSuffix(got, ", and 150 more days") {
		t.Errorf("%d parts: %s", n+1, got)
	}
	if got := importer.DayRanges(days[:3]); got != "2024-01-20, 2024-01-22, 2024-01-24" {
		t.Errorf("three days: %s", got)
	}
}
