package plausible_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// env is the service on a fresh database (testkit/harness) with one website, site.test, read
// through the API.
type env struct {
	*harness.Env
	key  string
	site plausible.Website
}

func newEnv(t *testing.T) *env {
	t.Helper()
	h := harness.New(t, harness.Config(app.Config{BufferMaxKeys: 1000}))
	owner := h.User("owner@site.test")
	w, err := h.Repo.CreateWebsite(context.Background(), owner.ID, repository.NewWebsite{Domain: "site.test"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{Env: h, key: owner.Key, site: plausible.Website{ID: w.ID, Domain: w.Domain}}
}

// stat reads every value of a statistic over a range through the API, page by page.
func (e *env) stat(name string, r stats.Range) plausibletest.Counts {
	e.T.Helper()
	got := plausibletest.Counts{}
	for page := 1; ; page++ {
		q := r.Query()
		q.Set("name", name)
		q.Set("per_page", "100")
		q.Set("page", fmt.Sprint(page))
		target := fmt.Sprintf("/api/v1/stats/%d?%s", e.site.ID, q.Encode())
		res := e.Do(harness.Request{Path: target, Key: e.key})
		if res.Status != http.StatusOK {
			e.T.Fatalf("GET %s: %d %s", target, res.Status, res.Body)
		}
		var body struct {
			Data []struct {
				Value string
				Count int64
			}
			Meta struct {
				LastPage int `json:"last_page"`
			}
		}
		if err := json.Unmarshal(res.Body, &body); err != nil {
			e.T.Fatal(err)
		}
		for _, d := range body.Data {
			got[d.Value] += d.Count
		}
		if page >= body.Meta.LastPage {
			return got
		}
	}
}

// internal reads the internal counters of the summary (not names of the API on this branch)
// by day, from the stats table.
func (e *env) internal(name stats.Name) plausibletest.Counts {
	e.T.Helper()
	var rows []struct {
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := e.DB.Select(&rows, `SELECT value, count FROM stats WHERE website_id = $1 AND name = $2`, e.site.ID, name); err != nil {
		e.T.Fatal(err)
	}
	got := plausibletest.Counts{}
	for _, r := range rows {
		got[r.Value] += r.Count
	}
	return got
}

func (e *env) importZip(b []byte, opts plausible.Options) (plausible.Summary, error) {
	return plausible.Import(context.Background(), e.Repo, e.site, bytes.NewReader(b), int64(len(b)), opts)
}

// check compares every statistic the export has with what the API shows over r.
func (e *env) check(want map[string]plausibletest.Counts, r stats.Range) {
	e.T.Helper()
	for name, w := range want {
		var got plausibletest.Counts
		if stats.Known(name) {
			got = e.stat(name, r)
		} else {
			got = e.internal(stats.Name(name))
		}
		if !maps.Equal(got, w) {
			e.T.Errorf("%s:\n got  %v\n want %v", name, got, w)
		}
	}
	for _, name := range stats.Names {
		if _, ok := want[string(name)]; !ok {
			if got := e.stat(string(name), r); len(got) != 0 {
				e.T.Errorf("%s = %v, want nothing", name, got)
			}
		}
	}
}

var first = time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC)

// TestImport imports a sample export and compares every number of its CSVs with the API's,
// over the export's days and over whole months (read from the monthly rollups, which the
// import must keep right for periods already rolled up).
func TestImport(t *testing.T) {
	e := newEnv(t)
	// The weeks and months up to March are rolled up before the import: a late write must add
	// to them.
	if err := e.Repo.RollUp(context.Background(), time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	export := plausibletest.Sample(first, 40)
	sum, err := e.importZip(export.Zip(), plausible.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := export.Want()
	e.check(want, stats.Range{From: export.First, To: export.Last})
	e.check(want, stats.Range{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)})

	if sum.Days != 40 || !sum.First.Equal(export.First) || !sum.Last.Equal(export.Last) || sum.Files != 10 || len(sum.Refused) != 0 {
		t.Errorf("summary %+v", sum)
	}
	var wantVisitors int64
	for _, n := range want["visitor"] {
		wantVisitors += n
	}
	if sum.Visitors != wantVisitors {
		t.Errorf("summary visitors %d, want %d", sum.Visitors, wantVisitors)
	}
	var lines []string
	for _, r := range sum.LeftOut {
		lines = append(lines, r.String())
	}
	leftOut := strings.Join(append(lines, sum.UnusedColumns...), "\n")
	for _, s := range []string{"imported_browsers: columns bounces, pageviews, visit_duration, visitors (", `not a device type: 1200 ("Laptop" 1200)`,
		`country code that names no country: 40 ("XX" 40)`, "engagement events", "imported_locations: columns bounces, city, pageviews, region, visit_duration, visitors",
		"imported_sources: columns bounces, pageviews, visit_duration, visitors"} {
		if !strings.Contains(leftOut, s) {
			t.Errorf("left out %q is not in the summary:\n%s", s, leftOut)
		}
	}
	if got := strings.Join(sum.Transformed, "\n"); !strings.Contains(got, "event names cut to 64 characters: 40") {
		t.Errorf("changes: %q", got)
	}
	var marked int
	if err := e.DB.Get(&marked, `SELECT count(*) FROM imported_days WHERE website_id = $1 AND source = 'plausible'`, e.site.ID); err != nil || marked != 40 {
		t.Errorf("imported days marked: %d (%v), want 40", marked, err)
	}

	// The same export again adds nothing: every day is held, by the import.
	again, err := e.importZip(export.Zip(), plausible.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Days != 0 || again.Counters != 0 || len(again.Refused) != 40 || again.Refused[0].Source != repository.SourcePlausible {
		t.Errorf("second import: %+v", again)
	}
	e.check(want, stats.Range{From: export.First, To: export.Last})
}

// TestImportRefusesDaysWithData: days the website has collected data on are left out and
// listed; the others are imported.
func TestImportRefusesDaysWithData(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	held := first.AddDate(0, 0, 2)
	if _, err := e.Repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "00000000-0000-0000-0000-000000000001", Counts: []repository.StatCount{
		{WebsiteID: e.site.ID, Name: "event", Date: held, Value: "Collected::", Count: 1},
	}}, 0); err != nil {
		t.Fatal(err)
	}
	export := plausibletest.Sample(first, 5)
	sum, err := e.importZip(export.Zip(), plausible.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Days != 4 || len(sum.Refused) != 1 || !sum.Refused[0].Day.Equal(held) || sum.Refused[0].Source != "" {
		t.Fatalf("summary %+v", sum)
	}
	day := stats.Range{From: held, To: held}
	if got := e.stat("event", day); !maps.Equal(got, plausibletest.Counts{"Collected::": 1}) {
		t.Errorf("the held day's events: %v", got)
	}
	if got := e.stat("pageview", day); len(got) != 0 {
		t.Errorf("the held day got pageviews %v", got)
	}
	if got := e.stat("pageview", stats.Range{From: first, To: first}); len(got) != 1 {
		t.Errorf("the first day has no pageviews: %v", got)
	}
	var marked int
	if err := e.DB.Get(&marked, `SELECT count(*) FROM imported_days WHERE website_id = $1 AND day = $2`, e.site.ID, held); err != nil || marked != 0 {
		t.Errorf("the held day is marked imported (%d, %v)", marked, err)
	}
}

// TestImportBadInput: an export that is not one, or a damaged one, is refused with a message
// naming the problem, and nothing is written.
func TestImportBadInput(t *testing.T) {
	e := newEnv(t)
	good := plausibletest.Sample(first, 3)
	visitors := good.FileName("visitors")
	devices := good.FileName("devices")
	zipOf := func(files map[string][]byte) []byte {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for name, b := range files {
			w, _ := z.Create(name)
			_, _ = w.Write(b)
		}
		_ = z.Close()
		return buf.Bytes()
	}
	with := func(name string, b []byte) []byte {
		files := map[string][]byte{}
		for n, rows := range good.Files {
			files[n] = plausibletest.CSV(rows)
		}
		files[name] = b
		return zipOf(files)
	}
	whole := good.Zip()
	many := map[string][]byte{visitors: plausibletest.CSV(good.Files[visitors])}
	for i := range 64 {
		many[fmt.Sprintf("extra%d.txt", i)] = []byte("x")
	}
	cases := []struct {
		name    string
		zip     []byte
		limits  plausible.Limits
		message string
	}{
		{"not a zip", []byte("date,visitors\n2024-01-01,1\n"), plausible.Limits{}, "not a readable zip archive"},
		{"a truncated download", whole[:len(whole)/2], plausible.Limits{}, "not a readable zip archive"},
		{"a zip of something else", zipOf(map[string][]byte{"notes.txt": []byte("hello")}), plausible.Limits{}, "not a Plausible export: it has no imported_visitors"},
		{"a CSV without a column", with(devices, []byte("\"date\",\"device\",\"visitors\"\n\"2024-01-20\",\"Desktop\",1\n")), plausible.Limits{},
			devices + `: no column "visits"`},
		{"a count that is not one", with(visitors, []byte("date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-20,1,2,3,x,5\n")), plausible.Limits{},
			visitors + `, line 2, column visits: "x" is not a count`},
		{"a date that is not one", with(visitors, []byte("date,visitors,pageviews,bounces,visits,visit_duration\n2024-02-30,1,2,3,4,5\n")), plausible.Limits{},
			visitors + `, line 2, column date: "2024-02-30" is not a date`},
		{"a row cut short", with(visitors, []byte("date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-20,1,2,3,4,5\n2024-01-21,1,2\n")), plausible.Limits{},
			visitors + ", line 3, column bounces: the line has 3 fields, the first line 6"},
		{"a CSV cut inside a quote", with(devices, []byte("date,device,visits\n2024-01-20,\"Desk")), plausible.Limits{}, devices + ", line 2, column device: a quoted field is not closed"},
		{"too many files", zipOf(many), plausible.Limits{}, "holds 65 files, more than 64"},
		{"too large uncompressed", whole, plausible.Limits{Files: 64, Uncompressed: 1000}, "more than 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.T = t
			_, err := e.importZip(c.zip, plausible.Options{Limits: c.limits})
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("error %v, want one saying %q", err, c.message)
			}
			var rows int
			if err := e.DB.Get(&rows, `SELECT (SELECT count(*) FROM stats) + (SELECT count(*) FROM imported_days)`); err != nil || rows != 0 {
				t.Fatalf("%d rows written (%v), want none", rows, err)
			}
		})
	}
}

// TestImportProgress: the progress reports count the rows of each phase.
func TestImportProgress(t *testing.T) {
	e := newEnv(t)
	export := plausibletest.Sample(first, 2)
	last := map[string]importer.PhaseProgress{}
	sum, err := e.importZip(export.Zip(), plausible.Options{Progress: func(p importer.PhaseProgress) { last[p.Phase] = p }})
	if err != nil {
		t.Fatal(err)
	}
	if last["checking"].Rows != sum.Rows || last["writing"].Rows != sum.Rows || sum.Rows == 0 {
		t.Fatalf("progress %v, rows %d", last, sum.Rows)
	}
}

// TestImportFileNames: the names Plausible's importer takes (with or without imported_, with
// or without the date range) are read; other files are listed and left out.
func TestImportFileNames(t *testing.T) {
	e := newEnv(t)
	export := plausibletest.Sample(first, 3)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, content := range map[string][]byte{
		"visitors_20240120_20240122.csv": plausibletest.CSV(export.Files[export.FileName("visitors")]),
		"imported_pages.csv":             plausibletest.CSV(export.Files[export.FileName("pages")]),
		"README.txt":                     []byte("exported by Plausible"),
	} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err := e.importZip(buf.Bytes(), plausible.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Days != 3 || len(sum.OtherFiles) != 1 || sum.OtherFiles[0] != "README.txt" {
		t.Fatalf("summary %+v", sum)
	}
	want := export.Want()
	r := stats.Range{From: export.First, To: export.Last}
	for _, name := range []string{"pageview", "visit", "page"} {
		if got := e.stat(name, r); !maps.Equal(got, want[name]) {
			t.Errorf("%s = %v, want %v", name, got, want[name])
		}
	}
}
