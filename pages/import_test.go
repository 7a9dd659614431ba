package pages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
	"github.com/analytics-service/analytics/web/webtest"
)

var importFirst = time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC)

// upload posts a Plausible export in the edit page's form: the token first, then the file
// (uploadRequest).
func (b *browser) upload(path, token string, file io.Reader) page {
	b.e.T.Helper()
	req, err := uploadRequest(b.base, path, token, file)
	if err != nil {
		b.e.T.Fatal(err)
	}
	return b.do(req)
}

// imported counts what a website holds: stats rows and imported days.
func (e *env) imported(id int64) int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, `SELECT (SELECT count(*) FROM stats WHERE website_id = $1) + (SELECT count(*) FROM imported_days WHERE website_id = $1)`, id); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// TestImportUpload: the owner uploads a Plausible export on a website's settings page; the
// summary page says what was imported, the API shows it, a second upload adds nothing, and
// every refusal is a readable page that writes nothing.
func TestImportUpload(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	other := e.UserWithPassword("other@example.com")
	id := e.Site(owner.Key, "site.test")
	theirs := e.Site(other.Key, "theirs.test")
	b := e.browser().signIn(owner)
	token := b.token()
	export := plausibletest.Sample(importFirst, 10)
	zip := export.Zip()
	path := fmt.Sprintf("/websites/%d/import", id)

	// Refusals first: nothing may be written by any of them.
	wantStatus(t, "no CSRF token", b.upload(path, "", bytes.NewReader(zip)), http.StatusForbidden)
	wantStatus(t, "another owner's website", b.upload(fmt.Sprintf("/websites/%d/import", theirs), token, bytes.NewReader(zip)), http.StatusNotFound)
	notForm := b.postRaw(path, nil)
	wantStatus(t, "not a multipart form", notForm, http.StatusBadRequest)
	bad := b.upload(path, token, strings.NewReader("not a zip at all"))
	wantStatus(t, "not a zip", bad, http.StatusUnprocessableEntity)
	if !strings.Contains(bad.body, "nothing was written: the file is not a readable zip archive") || !strings.Contains(bad.body, fmt.Sprintf(`href="/websites/%d/edit"`, id)) {
		t.Errorf("the refusal does not say why or lead back:\n%s", bad.body)
	}
	huge := b.upload(path, token, io.LimitReader(zeros{}, 50<<20+1))
	wantStatus(t, "over 50 MiB", huge, http.StatusRequestEntityTooLarge)
	if !strings.Contains(huge.body, "larger than 50 MiB") {
		t.Errorf("the 413 page does not say why:\n%.2000s", huge.body)
	}
	anon := e.browser().upload(path, token, bytes.NewReader(zip))
	wantStatus(t, "signed out", anon, http.StatusSeeOther)
	if n := e.imported(id) + e.imported(theirs); n != 0 {
		t.Fatalf("refused uploads wrote %d rows", n)
	}

	done := b.upload(path, token, bytes.NewReader(zip))
	wantStatus(t, "the upload", done, http.StatusOK)
	for _, want := range []string{"10 days imported, from 20 Jan 2024 to 29 Jan 2024", "Left out: visits of a device that is a screen size, not a device type: 300", "<li>&#34;Laptop&#34;: 300</li>"} {
		if !strings.Contains(done.body, want) {
			t.Errorf("the summary lacks %q:\n%s", want, done.body)
		}
	}
	status, body := e.api("GET", fmt.Sprintf("/api/v1/stats/%d?name=visit&from=2024-01-20&to=2024-01-29", id), owner.Key, nil)
	var got struct{ Data []struct{ Count int64 } }
	if err := json.Unmarshal([]byte(body), &got); err != nil || status != http.StatusOK {
		t.Fatalf("stats: %d %s", status, body)
	}
	var visits, want int64
	for _, d := range got.Data {
		visits += d.Count
	}
	for _, n := range export.Want()["visit"] {
		want += n
	}
	if visits != want {
		t.Errorf("visits through the API: %d, want %d", visits, want)
	}

	again := b.upload(path, token, bytes.NewReader(zip))
	wantStatus(t, "the same upload again", again, http.StatusOK)
	if !strings.Contains(again.body, "Nothing was imported") || !strings.Contains(again.body, "2024-01-20..2024-01-29") {
		t.Errorf("the second summary:\n%s", again.body)
	}
}

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestImportInChromium: the form and the summary page in a real browser, at a desktop and a
// phone width: the file chosen and sent as a person would, no console error, nothing wider
// than the screen, no serious accessibility violation; screenshots in SCREENSHOT_DIR.
func TestImportInChromium(t *testing.T) {
	axePath := os.Getenv("AXE_JS")
	if axePath == "" {
		t.Fatal("AXE_JS is not set: run the tests with `make test`, which fetches axe-core from npm")
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "site_test_20240301.zip")
	if err := os.WriteFile(good, plausibletest.Sample(importFirst, 40).Zip(), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "notes.zip")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}

	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	browser := webtest.NewBrowser(t)
	// The refusal (a 422) goes in a tab of its own: Chromium logs every such answer as a
	// console error. The other tab must log none.
	errorTab, closeErrorTab := chromedp.NewContext(browser)
	t.Cleanup(closeErrorTab)
	tab, closeTab := chromedp.NewContext(browser)
	t.Cleanup(closeTab)
	for _, ctx := range []context.Context{errorTab, tab} {
		if err := chromedp.Do(ctx); err != nil {
			t.Fatal(err)
		}
	}
	webtest.WatchProblems(t, tab)

	check := func(ctx context.Context, name string, width int64) {
		t.Helper()
		auditPage(t, ctx, axe, shots, name, width)
	}
	viewport := func(width int64) chromedp.Action[chromedp.Void] {
		if width < 600 {
			return chromedp.EmulateViewport(width, 900, chromedp.EmulateMobile)
		}
		return chromedp.EmulateViewport(width, 900)
	}
	// The tabs share the browser's cookies: one sign-in serves both.
	tabDo(t, tab, chromedp.Navigate(e.Server.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#email"), owner.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), owner.Password),
		chromedp.Submit(chromedp.CSS("#password")),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)))
	for i, width := range []int64{1280, 375} {
		domain := fmt.Sprintf("site%d.test", i)
		id := e.Site(owner.Key, domain)
		edit := fmt.Sprintf("%s/websites/%d/edit", e.Server.URL, id)
		tabDo(t, tab, viewport(width), chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#export")))
		check(tab, "import-form", width)
		tabDo(t, tab, chromedp.SetUploadFiles(chromedp.CSS("#export"), []string{good}),
			chromedp.Click(chromedp.CSS(`form[action$="/import"] button`)),
			chromedp.WaitVisible(chromedp.CSS("table.summary")))
		var text string
		tabEval(t, tab, `document.querySelector("main").innerText`, &text)
		if !strings.Contains(text, "40 days imported, from 20 Jan 2024 to 28 Feb 2024") {
			t.Fatalf("the summary page says:\n%s", text)
		}
		check(tab, "import-summary", width)

		tabDo(t, errorTab, viewport(width), chromedp.Navigate(edit), chromedp.WaitVisible(chromedp.CSS("#export")),
			chromedp.SetUploadFiles(chromedp.CSS("#export"), []string{bad}),
			chromedp.Click(chromedp.CSS(`form[action$="/import"] button`)),
			chromedp.WaitVisible(chromedp.CSS(`a[href$="/edit"]`)))
		tabEval(t, errorTab, `document.querySelector("main").innerText`, &text)
		if !strings.Contains(text, "Import refused") || !strings.Contains(text, "not a readable zip archive") {
			t.Fatalf("the refusal page says:\n%s", text)
		}
		check(errorTab, "import-refused", width)
	}
}

// TestImportGoatCounterUpload: the GoatCounter form beside Plausible's imports a real export
// (gzipped, as GoatCounter writes it) with the command's code; a second upload adds nothing; a
// file of another format version is a readable refusal that writes nothing.
func TestImportGoatCounterUpload(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "stats.example.test")
	b := e.browser().signIn(owner)
	token := b.token()
	path := fmt.Sprintf("/websites/%d/import-goatcounter", id)
	export, err := os.ReadFile("../importer/goatcounter/testdata/goatcounter-postgres.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	v1 := b.upload(path, token, strings.NewReader("1Path,Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n"))
	wantStatus(t, "format version 1", v1, http.StatusUnprocessableEntity)
	if !strings.Contains(v1.body, "nothing was written: the file is a GoatCounter export of format version &#34;1&#34;; only version 2") {
		t.Errorf("the refusal does not say why:\n%s", v1.body)
	}
	truncated := b.upload(path, token, bytes.NewReader(export[:len(export)/2]))
	wantStatus(t, "a truncated gzip", truncated, http.StatusUnprocessableEntity)
	if !strings.Contains(truncated.body, "damaged or truncated") {
		t.Errorf("the refusal does not say why:\n%s", truncated.body)
	}
	if n := e.imported(id); n != 0 {
		t.Fatalf("refused uploads wrote %d rows", n)
	}
	done := b.upload(path, token, bytes.NewReader(export))
	wantStatus(t, "the upload", done, http.StatusOK)
	for _, want := range []string{"3 days imported, from 10 Feb 2026 to 12 Feb 2026 (a GoatCounter export)", "What the file held (17 rows (hits))",
		"Left out: hits GoatCounter recorded as a bot&#39;s (not counted, as bots are not here): 2", "<li>&#34;/pricing&#34;: 1</li>"} {
		if !strings.Contains(done.body, want) {
			t.Errorf("the summary lacks %q:\n%s", want, done.body)
		}
	}
	if strings.Contains(done.body, "<script>alert(1)") {
		t.Fatal("a path of the export came back as markup")
	}
	again := b.upload(path, token, bytes.NewReader(export))
	if !strings.Contains(again.body, "Nothing was imported") || !strings.Contains(again.body, "2026-02-10..2026-02-12") {
		t.Errorf("the second summary:\n%s", again.body)
	}
}
