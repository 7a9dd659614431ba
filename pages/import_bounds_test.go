package pages_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
)

// uploadRequest is the import form's request with body as the file, and its content type.
// The form is written on a goroutine, so body may be slow: the request is sent meanwhile.
func uploadRequest(base, path, token string, body io.Reader) (*http.Request, error) {
	pr, pw := io.Pipe()
	form := multipart.NewWriter(pw)
	go func() {
		err := form.WriteField("csrf", token)
		if err == nil {
			var part io.Writer
			if part, err = form.CreateFormFile("export", "export.zip"); err == nil {
				_, err = io.Copy(part, body)
			}
		}
		if err == nil {
			err = form.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", base+path, pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", form.FormDataContentType())
	return req, nil
}

// uploadOutcome is what an upload sent from a goroutine got.
type uploadOutcome struct {
	status int
	body   string
	err    error
}

// uploadFrom sends an upload from any goroutine: the outcome comes back, never t.Fatal.
func (b *browser) uploadFrom(path, token string, body io.Reader) (int, string, error) {
	req, err := uploadRequest(b.base, path, token, body)
	if err != nil {
		return 0, "", err
	}
	res, err := b.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	page, err := io.ReadAll(res.Body)
	return res.StatusCode, string(page), err
}

// TestImportOneAtATime: while an upload of the owner's is running (its file still arriving),
// every other upload of theirs, 30 sent at once, answers 409 with a readable page and writes
// nothing; another owner's upload goes through; once the first is done, the owner can import
// again.
func TestImportOneAtATime(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	other := e.UserWithPassword("other@example.com")
	id := e.Site(owner.Key, "site.test")
	theirs := e.Site(other.Key, "theirs.test")
	b := e.browser().signIn(owner)
	token := b.token()
	path := fmt.Sprintf("/websites/%d/import", id)
	export := plausibletest.Sample(importFirst, 40).Zip()
	small := plausibletest.Sample(importFirst.AddDate(1, 0, 0), 1).Zip()

	first := holdUpload(t, b, path, token, export)
	var wg sync.WaitGroup
	statuses := make([]int, 30)
	bodies := make([]string, 30)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			statuses[i], bodies[i], err = b.uploadFrom(path, token, bytes.NewReader(small))
			if err != nil {
				bodies[i] = err.Error()
			}
		}()
	}
	wg.Wait()
	for i, status := range statuses {
		if status != http.StatusConflict || !strings.Contains(bodies[i], "Another import of yours is running") ||
			!strings.Contains(bodies[i], fmt.Sprintf(`href="/websites/%d/edit"`, id)) {
			t.Fatalf("upload %d of 30 at once: %d, want a 409 page saying why\n%.2000s", i, status, bodies[i])
		}
	}
	if n := e.imported(id); n != 0 {
		t.Fatalf("the refused uploads wrote %d rows", n)
	}
	ob := e.browser().signIn(other)
	status, body, err := ob.uploadFrom(fmt.Sprintf("/websites/%d/import", theirs), ob.token(), bytes.NewReader(export))
	if err != nil || status != http.StatusOK {
		t.Fatalf("another owner's upload meanwhile: %d %v\n%.2000s", status, err, body)
	}

	got := first.complete(t)
	if got.err != nil || got.status != http.StatusOK || !strings.Contains(got.body, "40 days imported") {
		t.Fatalf("the first upload: %d %v\n%.2000s", got.status, got.err, got.body)
	}
	again := b.upload(path, token, bytes.NewReader(export))
	wantStatus(t, "an upload after the first is done", again, http.StatusOK)
}

// TestImportSummaryIsBounded: an export of 20,000 distinct devices with no counterpart, each
// named with 200 characters, gives a summary page far under 1 MiB that shows the 20 most
// frequent, cut to 80 characters.
func TestImportSummaryIsBounded(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "site.test")
	b := e.browser().signIn(owner)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("imported_visitors.csv")
	_, _ = io.WriteString(w, "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,1,1,0,1,10\n")
	w, _ = z.Create("imported_devices.csv")
	_, _ = io.WriteString(w, "date,device,visits\n2024-01-01,Laptop,900\n")
	for i := range 20_000 {
		_, _ = fmt.Fprintf(w, "2024-01-01,%05d%s,1\n", i, strings.Repeat("d", 195))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	done := b.upload(fmt.Sprintf("/websites/%d/import", id), b.token(), &buf)
	wantStatus(t, "the upload", done, http.StatusOK)
	if len(done.body) > 64<<10 {
		t.Errorf("the summary page has %d bytes", len(done.body))
	}
	if n := strings.Count(done.body, strings.Repeat("d", 75)+"…"); n != 19 {
		t.Errorf("the page shows %d values cut to 80 characters, want 19 (and Laptop)", n)
	}
	if !strings.Contains(done.body, "&#34;Laptop&#34;: 900") || !strings.Contains(done.body, "and more than 980 other values") {
		t.Errorf("the summary lacks the most frequent value or the count of the others:\n%.3000s", done.body)
	}
}

// heldUpload is an upload whose file is sent but for its last bytes: it holds its user's
// import slot until it is completed.
type heldUpload struct {
	finish *io.PipeWriter
	done   chan uploadOutcome
	rest   []byte
}

// holdUpload starts an upload of export and returns once it holds the slot: a poll of the
// user's then answers 409. What it sends passes the client's 4 KiB write buffer. A poll sent
// before the upload reached its handler takes the slot for a moment (not a zip: a quick 422,
// nothing written); the upload may then be refused itself, and is sent again.
func holdUpload(t *testing.T, b *browser, path, token string, export []byte) *heldUpload {
	t.Helper()
	h := &heldUpload{rest: export[len(export)-16:]}
	start := func() {
		slow, finish := io.Pipe()
		h.finish, h.done = finish, make(chan uploadOutcome, 1)
		done := h.done
		go func() {
			var o uploadOutcome
			o.status, o.body, o.err = b.uploadFrom(path, token, slow)
			done <- o
		}()
		go func() { _, _ = finish.Write(export[:len(export)-16]) }()
	}
	start()
	// On a failure, the upload ends before the server is closed (which waits for it).
	t.Cleanup(func() { _ = h.finish.CloseWithError(io.ErrUnexpectedEOF) })
	// A wait for the held upload to be seen running, not a measure: under the race detector
	// on a busy machine its first bytes took over 10 s to arrive.
	deadline := time.Now().Add(45 * time.Second)
	for {
		status, body, err := b.uploadFrom(path, token, strings.NewReader("not a zip"))
		if err != nil {
			t.Fatal(err)
		}
		if status == http.StatusConflict {
			return h
		}
		if status != http.StatusUnprocessableEntity || time.Now().After(deadline) {
			t.Fatalf("a second upload while the first runs: %d, want 409\n%.2000s", status, body)
		}
		select {
		case o := <-h.done:
			if o.status != http.StatusConflict {
				t.Fatalf("the held upload ended early: %d %v\n%.2000s", o.status, o.err, o.body)
			}
			start()
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// complete sends the rest of the file and returns the upload's outcome.
func (h *heldUpload) complete(t *testing.T) uploadOutcome {
	t.Helper()
	if _, err := h.finish.Write(h.rest); err != nil {
		t.Fatal(err)
	}
	_ = h.finish.Close()
	return <-h.done
}
