package main

// The import's memory, measured on the real server: the binary built without -race (which
// multiplies memory), run as a process of its own, its peak resident memory read from the
// kernel while two hostile exports are uploaded through the owner's form.

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer/goatcounter/goatcountertest"
)

// The bounds the upload must hold whatever the file holds.
const (
	importMemoryBound = 256 << 20 // peak resident memory above idle
	importPageBound   = 1 << 20   // the answer page
)

// TestImportMemory uploads (1) an export whose imported_visitors.csv has one cell of 1,000 MiB
// of 'A' (deflated to about 1 MB) and (2) one of 3,000,000 distinct devices, and requires of
// each: a readable answer (422, 200) under 1 MiB, and the server's peak resident memory under
// 256 MiB above its idle memory. Both files are generated here, streamed to disk.
func TestImportMemory(t *testing.T) {
	bin := buildPlainBinary(t)
	dbURL := freshDatabase(t)
	s := startServerProc(t, bin, "import-memory", dbURL)
	key := createAPIUser(t, bin, dbURL)
	const email, password = "fault@example.com", "memory test password"
	setUserPassword(t, bin, dbURL, email, password)
	id := s.createSite(t, key, "memory.test")
	owner := signInTo(t, s.base, email, password)

	dir := t.TempDir()
	cell := filepath.Join(dir, "cell.zip")
	writeCellExport(t, cell, 1000)
	devices := filepath.Join(dir, "devices.zip")
	writeExport(t, devices, func(w io.Writer) error {
		_, err := io.WriteString(w, "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,1,1,0,1,10\n")
		return err
	}, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if _, err := bw.WriteString("date,device,visits\n"); err != nil {
			return err
		}
		line := make([]byte, 0, 64)
		for i := range 3_000_000 {
			line = append(strconv.AppendInt(append(line[:0], "2024-01-01,Screen "...), int64(i), 10), ',', byte('1'+i%5), '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		return bw.Flush()
	})

	// A GoatCounter export of 1,000,000 hits of some 330,000 sessions, gzipped: its sessions
	// pass what the import holds at once (goatcounter.MaxSessions) three times over.
	hits := filepath.Join(dir, "goatcounter.csv.gz")
	writeGoatCounterExport(t, hits, 1_000_000)

	for _, c := range []struct {
		name   string
		file   string
		form   string // the upload's address under the website's
		status int
		want   string
	}{
		{"a cell of 1,000 MiB", cell, "import", http.StatusUnprocessableEntity, "line 2, column visitors: the line is longer than 64 KiB"},
		{"3,000,000 distinct devices", devices, "import", http.StatusOK, "and more than 980 other values"},
		{"1,000,000 GoatCounter hits", hits, "import-goatcounter", http.StatusOK, "What the file held (1\u202f000\u202f000 rows (hits))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			size := fileSize(t, c.file)
			idle := procMemory(t, s.cmd.Process.Pid, "VmRSS")
			resetPeakMemory(t, s.cmd.Process.Pid)
			sampled := sampleMemory(s.cmd.Process.Pid)
			began := time.Now()
			status, page, truncated := owner.upload(t, fmt.Sprintf("/websites/%d/%s", id, c.form), c.file)
			took := time.Since(began)
			peak := max(sampled(), procMemory(t, s.cmd.Process.Pid, "VmHWM"))
			t.Logf("%s (%d bytes zipped): %d in %v, a page of %d bytes; resident memory idle %d MiB, peak %d MiB (+%d MiB)",
				c.name, size, status, took.Round(time.Millisecond), len(page), idle>>20, peak>>20, (peak-idle)>>20)
			if status != c.status || !strings.Contains(page, c.want) {
				t.Errorf("answer %d, want %d saying %q\n%.3000s", status, c.status, c.want, page)
			}
			if truncated {
				t.Errorf("the answer page is over %d bytes", importPageBound)
			}
			if peak-idle > importMemoryBound {
				t.Errorf("the server's resident memory went from %d MiB to %d MiB, more than %d MiB above idle",
					idle>>20, peak>>20, importMemoryBound>>20)
			}
		})
	}
}

// writeGoatCounterExport writes a gzipped GoatCounter export of rows hits over a year.
func writeGoatCounterExport(t *testing.T, path string, rows int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := goatcountertest.Write(zw, rows, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 365, 5000); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeCellExport writes a zip whose imported_visitors.csv is a header and a row whose
// visitors cell is mib MiB of 'A', deflated to about 1 KiB a MiB. The deflate stream is one
// compressed MiB repeated: compressing 1,000 MiB here would take minutes under -race. After a
// sync flush the compressor's blocks start on a byte and refer to the last 32 KiB only, all
// 'A' whichever MiB came before, so the same bytes decompress to each MiB
// (TestCellExportDecompresses checks it on a smaller one).
func writeCellExport(t *testing.T, path string, mib int) {
	t.Helper()
	prefix := []byte("date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,")
	suffix := []byte(",1,0,1,10\n")
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	var out bytes.Buffer
	fw, err := flate.NewWriter(&out, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	take := func(data []byte, end func() error) []byte {
		if _, err := fw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := end(); err != nil {
			t.Fatal(err)
		}
		b := bytes.Clone(out.Bytes())
		out.Reset()
		return b
	}
	head := take(append(bytes.Clone(prefix), chunk...), fw.Flush)
	unit := take(chunk, fw.Flush)
	tail := take(suffix, fw.Close)
	sum := crc32.NewIEEE()
	sum.Write(prefix)
	for range mib {
		sum.Write(chunk)
	}
	sum.Write(suffix)

	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z := zip.NewWriter(f)
	w, err := z.CreateRaw(&zip.FileHeader{
		Name: "imported_visitors.csv", Method: zip.Deflate, CRC32: sum.Sum32(),
		CompressedSize64:   uint64(len(head) + (mib-1)*len(unit) + len(tail)),
		UncompressedSize64: uint64(len(prefix) + mib<<20 + len(suffix)),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range append(append([][]byte{head}, slices.Repeat([][]byte{unit}, mib-1)...), tail) {
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCellExportDecompresses: the cell export's repeated stream is the file it claims to be.
func TestCellExportDecompresses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cell.zip")
	writeCellExport(t, path, 5)
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	rc, err := z.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc) // the checksum is checked at the end
	if err != nil {
		t.Fatal(err)
	}
	want := "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01," + strings.Repeat("A", 5<<20) + ",1,0,1,10\n"
	if string(b) != want {
		t.Fatalf("the cell export decompresses to %d bytes, not the %d bytes it claims", len(b), len(want))
	}
}

// writeExport writes a zip of imported_visitors.csv and, when devices is not nil,
// imported_devices.csv, each streamed into the zip writer (never whole in memory).
func writeExport(t *testing.T, path string, visitors, devices func(io.Writer) error) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	z := zip.NewWriter(bw)
	for _, file := range []struct {
		name string
		fill func(io.Writer) error
	}{{"imported_visitors.csv", visitors}, {"imported_devices.csv", devices}} {
		if file.fill == nil {
			continue
		}
		w, err := z.Create(file.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := file.fill(w); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// procMemory reads a field of /proc/PID/status (VmRSS: resident now; VmHWM: the peak), in bytes.
func procMemory(t *testing.T, pid int, field string) int64 {
	t.Helper()
	n, err := readProcMemory(pid, field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func readProcMemory(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// resetPeakMemory sets the process's VmHWM back to its resident memory now (Linux's
// clear_refs 5), so that VmHWM after the upload is the upload's own peak.
func resetPeakMemory(t *testing.T, pid int) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the server's peak memory: %v", err)
	}
}

// sampleMemory reads VmRSS every 10 ms until the returned function is called, which gives the
// largest read: a second measure beside VmHWM.
func sampleMemory(pid int) func() int64 {
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := readProcMemory(pid, "VmRSS"); err == nil {
				mu.Lock()
				peak = max(peak, n)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// buildPlainBinary builds the server without -race into the test's directory: the race
// detector's shadow memory would be measured with the server's.
func buildPlainBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "analytics")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// setUserPassword runs `analytics user password`, the password on stdin.
func setUserPassword(t *testing.T, bin, dbURL, email, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "user", "password", "--email", email)
	cmd.Env = childEnv(dbURL)
	cmd.Stdin = strings.NewReader(password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("analytics user password: %v\n%s", err, out)
	}
}

// pagesClient is a browser signed in to the stats pages, with the form's CSRF token.
type pagesClient struct {
	base   string
	client *http.Client
	token  string
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func signInTo(t *testing.T, base, email, password string) *pagesClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &pagesClient{base: base, client: &http.Client{Jar: jar, Timeout: 10 * time.Minute, Transport: &http.Transport{Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	c.token = c.csrf(t, "/login")
	res, err := c.client.PostForm(base+"/login", url.Values{"csrf": {c.token}, "email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	c.token = c.csrf(t, "/")
	return c
}

func (c *pagesClient) csrf(t *testing.T, path string) string {
	t.Helper()
	res, err := c.client.Get(c.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := csrfInput.FindSubmatch(b)
	if m == nil {
		t.Fatalf("GET %s: %d, no CSRF token\n%.2000s", path, res.StatusCode, b)
	}
	return string(m[1])
}

// upload sends the file in the import form, streamed; it returns the answer's status and up to
// importPageBound bytes of its page, and whether there was more.
func (c *pagesClient) upload(t *testing.T, path, file string) (int, string, bool) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	form := multipart.NewWriter(pw)
	go func() {
		err := form.WriteField("csrf", c.token)
		if err == nil {
			var part io.Writer
			if part, err = form.CreateFormFile("export", filepath.Base(file)); err == nil {
				_, err = io.Copy(part, f)
			}
		}
		if err == nil {
			err = form.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	req, err := http.NewRequest(http.MethodPost, c.base+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", form.FormDataContentType())
	res, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	page, err := io.ReadAll(io.LimitReader(res.Body, importPageBound+1))
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(page), len(page) > importPageBound
}
