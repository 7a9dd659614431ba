package goatcounter_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/goatcounter"
	"github.com/analytics-service/analytics/importer/goatcounter/goatcountertest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// The fixtures are exports a real GoatCounter (2.6.0, built from its source and run on
// loopback) wrote, of the hits in testdata/recorded-hits.json (testdata/README.md).

type env struct {
	*harness.Env
	site goatcounter.Website
}

func newEnv(t *testing.T) *env {
	t.Helper()
	h := harness.New(t, harness.Config(app.Config{BufferMaxKeys: 1000}))
	owner := h.User("owner@example.test")
	w, err := h.Repo.CreateWebsite(context.Background(), owner.ID, repository.NewWebsite{Domain: "stats.example.test"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{Env: h, site: goatcounter.Website{ID: w.ID, Domain: w.Domain, Zone: stats.FixedZone(time.UTC)}}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (e *env) load(b []byte, opts goatcounter.Options) (goatcounter.Summary, error) {
	return goatcounter.Import(context.Background(), e.Repo, e.site, bytes.NewReader(b), int64(len(b)), opts)
}

// counters are a website's counters of one statistic: value -> count, over every day.
func (e *env) counters(name stats.Name) map[string]int64 {
	e.T.Helper()
	var rows []struct {
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := e.DB.Select(&rows, `SELECT value, count FROM stats WHERE website_id = $1 AND name = $2`, e.site.ID, name); err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Value] += r.Count
	}
	return out
}

// byDay is a statistic's counters by day (the value of the daily ones).
func (e *env) byDay(name stats.Name) map[string]int64 {
	e.T.Helper()
	var rows []struct {
		Day   string `db:"day"`
		Count int64  `db:"count"`
	}
	if err := e.DB.Select(&rows, `SELECT to_char(date, 'YYYY-MM-DD') AS day, sum(count) AS count FROM stats WHERE website_id = $1 AND name = $2 GROUP BY 1`, e.site.ID, name); err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Day] = r.Count
	}
	return out
}

func (e *env) want(name stats.Name, got, want map[string]int64) {
	e.T.Helper()
	if !maps.Equal(got, want) {
		e.T.Errorf("%s:\n got  %v\n want %v", name, got, want)
	}
}

// TestImportGoatCounterExport imports a real export and checks every counter it makes: visits
// made again from the sessions (a gap of 30 minutes ends one; one crossing midnight counts on
// its first day, its pageviews on their own), bots left out, events, the path GoatCounter
// merged under its new name, referrers by GoatCounter's schemes, browsers and systems without
// versions, countries with their continents.
func TestImportGoatCounterExport(t *testing.T) {
	e := newEnv(t)
	sum, err := e.load(fixture(t, "goatcounter-postgres.csv.gz"), goatcounter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 17 || sum.Days != 3 || sum.Visits != 8 || sum.Visitors != 7 || sum.Pageviews != 13 || sum.Events != 2 ||
		!sum.First.Equal(time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC)) || len(sum.Refused) != 0 {
		t.Errorf("summary %+v", sum)
	}
	e.want(stats.Visit, e.byDay(stats.Visit), map[string]int64{"2026-02-10": 4, "2026-02-11": 2, "2026-02-12": 2})
	e.want(stats.Visitor, e.byDay(stats.Visitor), map[string]int64{"2026-02-10": 3, "2026-02-11": 2, "2026-02-12": 2})
	e.want(stats.Pageview, e.byDay(stats.Pageview), map[string]int64{"2026-02-10": 6, "2026-02-11": 4, "2026-02-12": 3})
	e.want(stats.Bounce, e.byDay(stats.Bounce), map[string]int64{"2026-02-10": 1, "2026-02-11": 1, "2026-02-12": 1})
	e.want(stats.TimedVisit, e.byDay(stats.TimedVisit), map[string]int64{"2026-02-10": 4, "2026-02-11": 2, "2026-02-12": 2})
	// s1 3 min, s2 1 min, s3 15 min (past midnight), s5 5 min, s8 2 min.
	e.want(stats.VisitSeconds, e.byDay(stats.VisitSeconds), map[string]int64{"2026-02-10": 175 + 60 + 900, "2026-02-11": 300, "2026-02-12": 120})
	page := func(p string) string { return importer.PageValue(p) }
	e.want(stats.Page, e.counters(stats.Page), map[string]int64{
		"/": 4, "/pricing": 1, "/blog/first-post": 2, page("/über-uns"): 1, "/new-name": 3,
		page("/<script>alert(1)</script>"): 1, page(`/docs/a,b "quoted"`): 1,
	})
	e.want(stats.LandingPage, e.counters(stats.LandingPage), map[string]int64{"/": 4, "/blog/first-post": 1, "/new-name": 2, page("/<script>alert(1)</script>"): 1})
	e.want(stats.Event, e.counters(stats.Event), map[string]int64{"signup-click::": 1, "download::": 1})
	e.want(stats.Referrer, e.counters(stats.Referrer), map[string]int64{"Hacker News": 1, "Google": 1, "Slack Chat": 1, "evil.example": 1, "": 4})
	e.want(stats.UTMSource, e.counters(stats.UTMSource), map[string]int64{"newsletter": 1})
	e.want(stats.Browser, e.counters(stats.Browser), map[string]int64{"Chrome": 3, "Firefox": 3, "Safari": 1, "": 1})
	e.want(stats.OperatingSystem, e.counters(stats.OperatingSystem), map[string]int64{"Windows": 2, "Linux": 2, "iOS": 1, "Android": 1, "macOS": 1, "": 1})
	e.want(stats.ScreenResolution, e.counters(stats.ScreenResolution), map[string]int64{"1920x1080": 2, "1366x768": 2, "390x844": 1, "412x915": 1, "1440x900": 1, "": 1})
	e.want(stats.Country, e.counters(stats.Country), map[string]int64{"NL:Netherlands": 1, "US:United States": 2, "DE:Germany": 1, "FR:France": 1, "GB:United Kingdom": 1, "": 2})
	e.want(stats.Continent, e.counters(stats.Continent), map[string]int64{"EU:Europe": 4, "NA:North America": 2, "": 2})
	// The hourly series: the day's visits by the hour they started.
	e.want(stats.VisitHour, e.counters(stats.VisitHour), map[string]int64{"08": 1, "15": 1, "17": 1, "23": 1, "09": 1, "10": 1, "12": 1, "18": 1})
	if got := e.counters(stats.Channel); got["Organic Search"] != 1 || got["Direct"] != 3 {
		t.Errorf("channels %v: want Google's visit Organic Search and 3 direct", got)
	}
	var reasons []string
	for _, r := range sum.LeftOut {
		reasons = append(reasons, r.String())
	}
	left := strings.Join(reasons, "\n")
	for _, s := range []string{`recorded as a bot's (not counted, as bots are not here): 2`, `regions of locations (counted as their country: cities come from GeoIP here): 3 ("US-TX" 3)`} {
		if !strings.Contains(left, s) {
			t.Errorf("left out %q is not in the summary:\n%s", s, left)
		}
	}
	var marked int
	if err := e.DB.Get(&marked, `SELECT count(*) FROM imported_days WHERE website_id = $1 AND source = 'goatcounter'`, e.site.ID); err != nil || marked != 3 {
		t.Errorf("imported days marked: %d (%v), want 3", marked, err)
	}
	// Again: every day is held, nothing is added.
	again, err := e.load(fixture(t, "goatcounter-postgres.csv.gz"), goatcounter.Options{})
	if err != nil || again.Days != 0 || again.Counters != 0 || len(again.Refused) != 3 || again.Refused[0].Source != repository.SourceGoatCounter {
		t.Fatalf("second import: %+v %v", again, err)
	}
	e.want(stats.Pageview, e.byDay(stats.Pageview), map[string]int64{"2026-02-10": 6, "2026-02-11": 4, "2026-02-12": 3})
}

// The same hits exported by GoatCounter on SQLite: its booleans, "1.0" scalings, and the path
// it could not merge there (its merge fails on SQLite) under its old name.
func TestImportGoatCounterSQLiteExport(t *testing.T) {
	e := newEnv(t)
	if _, err := e.load(fixture(t, "goatcounter-sqlite.csv.gz"), goatcounter.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := e.counters(stats.Page); got["/old-name"] != 2 || got["/new-name"] != 1 {
		t.Errorf("pages %v: want /old-name 2 and /new-name 1", got)
	}
	if got := e.counters(stats.ScreenResolution); got["1440x900"] != 1 || got["1920x1080"] != 2 {
		t.Errorf("screens %v", got)
	}
	e.want(stats.Visit, e.byDay(stats.Visit), map[string]int64{"2026-02-10": 4, "2026-02-11": 2, "2026-02-12": 2})
}

// A website's own zone decides the days: 23:50 UTC on the 10th is the 11th in Berlin.
func TestImportGoatCounterInTheWebsitesZone(t *testing.T) {
	e := newEnv(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	e.site.Zone = stats.FixedZone(berlin)
	if _, err := e.load(fixture(t, "goatcounter-postgres.csv.gz"), goatcounter.Options{}); err != nil {
		t.Fatal(err)
	}
	e.want(stats.Visit, e.byDay(stats.Visit), map[string]int64{"2026-02-10": 3, "2026-02-11": 3, "2026-02-12": 2})
}

// gunzip is a fixture's CSV.
func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Every bad export is refused whole with a message that names what is wrong (and the line and
// column of a bad row), and nothing is written.
func TestImportGoatCounterRefusals(t *testing.T) {
	e := newEnv(t)
	good := fixture(t, "goatcounter-postgres.csv.gz")
	csv := gunzip(t, good)
	header, rows, _ := strings.Cut(csv, "\n")
	firstRow, _, _ := strings.Cut(rows, "\n")
	withRow := func(old, new string) []byte {
		return []byte(header + "\n" + strings.Replace(firstRow, old, new, 1) + "\n")
	}
	corrupt := append([]byte{}, good...)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC of the data
	cases := []struct {
		name   string
		file   []byte
		opts   goatcounter.Options
		saying string
	}{
		{"format version 1", []byte(strings.Replace(csv, "2Path,", "1Path,", 1)), goatcounter.Options{}, `format version "1"; only version 2`},
		{"a version not yet known", gzipped(strings.Replace(csv, "2Path,", "3Path,", 1)), goatcounter.Options{}, `format version "3"`},
		{"not GoatCounter's", []byte("date,visitors\n2026-01-01,3\n"), goatcounter.Options{}, "is not a GoatCounter CSV export"},
		{"a zip", []byte("PK\x03\x04 not a csv"), goatcounter.Options{}, "is not a GoatCounter CSV export"},
		{"empty", []byte{}, goatcounter.Options{}, "the file is empty"},
		{"a truncated gzip", good[:len(good)/2], goatcounter.Options{}, "damaged or truncated"},
		{"a gzip whose data is damaged", corrupt, goatcounter.Options{}, "damaged or truncated"},
		{"a column missing", []byte(strings.Replace(csv, ",FirstVisit,", ",First,", 1)), goatcounter.Options{}, `line 1, column 13: "First" where version 2 has "FirstVisit"`},
		{"a row short of a field", []byte(header + "\n/,Home,0\n"), goatcounter.Options{}, "line 2, column UserAgent: the line has 3 fields, the first line 14"},
		{"an event neither true nor false", withRow(",Home,0,", ",Home,maybe,"), goatcounter.Options{}, `line 2, column Event: "maybe" is not true or false`},
		{"a date that is none", withRow("2026-02-10T08:00:05Z", "yesterday"), goatcounter.Options{}, `line 2, column Date: "yesterday" is not a date and time`},
		{"a bot number that is none", withRow(",0,Hacker News", ",-1,Hacker News"), goatcounter.Options{}, `line 2, column Bot: "-1"`},
		{"an unknown referrer scheme", withRow(",Hacker News,g,", ",Hacker News,x,"), goatcounter.Options{}, `line 2, column Referrer scheme: "x" is not one of h, g, c, o`},
		{"a session that is none", withRow("c0fc2c088ce94bda-90384ac03b07e905", "<script>"), goatcounter.Options{}, `line 2, column Session: "<script>"`},
		{"an empty path", []byte(header + "\n" + strings.TrimPrefix(firstRow, "/") + "\n"), goatcounter.Options{}, "line 2, column Path: is empty"},
		{"a line longer than 64 KiB", withRow(",Home,", ","+strings.Repeat("t", 70_000)+","), goatcounter.Options{}, "line 2, column Title: the line is longer than 64 KiB"},
		{"more CSV than the limit", good, goatcounter.Options{Uncompressed: 1000}, "holds more than 1000 bytes of CSV"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := (&env{Env: e.In(t), site: e.site}).load(c.file, c.opts)
			var bad *goatcounter.BadExport
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.saying) {
				t.Fatalf("error %v, want a refusal saying %q", err, c.saying)
			}
		})
	}
	var rowsWritten int
	e.DB.Get(&rowsWritten, `SELECT (SELECT count(*) FROM stats WHERE website_id = $1) + (SELECT count(*) FROM imported_days WHERE website_id = $1)`, e.site.ID)
	if rowsWritten != 0 {
		t.Fatalf("refused exports wrote %d rows", rowsWritten)
	}
	// A plain (not gzipped) export is read too.
	if _, err := e.load([]byte(csv), goatcounter.Options{}); err != nil {
		t.Fatalf("the plain CSV: %v", err)
	}
}

// Sessions are bounded: past the bound the one seen least recently ends, and its later hit
// starts a new visit; the counts of the rest are unchanged.
func TestImportGoatCounterSessionsBounded(t *testing.T) {
	e := newEnv(t)
	csv := gunzip(t, fixture(t, "goatcounter-postgres.csv.gz"))
	sum, err := e.load([]byte(csv), goatcounter.Options{Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	// With one session held, s1's three hits stay one visit (nothing comes between them);
	// every other session is ended by the next one's first hit only when they interleave,
	// which they do not in this export: the same visits.
	if sum.Visits != 8 || sum.Visitors != 7 {
		t.Fatalf("one session held: %d visits and %d visitors, want 8 and 7", sum.Visits, sum.Visitors)
	}
	interleaved := strings.Replace(csv, "\n/pricing,Pricing,0,,Chrome 120,Windows 10,c0fc2c088ce94bda-90384ac03b07e905", fmt.Sprintf("\n/x,X,0,,,,%s,0,,,,,1,2026-02-10T08:01:00Z\n/pricing,Pricing,0,,Chrome 120,Windows 10,c0fc2c088ce94bda-90384ac03b07e905", "aa-bb"), 1)
	e2 := newEnv(t)
	sum, err = e2.load([]byte(interleaved), goatcounter.Options{Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	// aa-bb's hit between s1's ends s1, held no more: s1 comes back as a second visit and, its
	// day forgotten, a visitor again (what the bound costs).
	if sum.Visits != 10 || sum.Visitors != 9 {
		t.Fatalf("interleaved with one session held: %d visits and %d visitors, want 10 and 9", sum.Visits, sum.Visitors)
	}
}

// A large generated export (goatcountertest, as the memory test and the benchmark write them)
// imports every pageview and event it holds and leaves out its bots.
func TestImportGeneratedExport(t *testing.T) {
	e := newEnv(t)
	var b bytes.Buffer
	want, err := goatcountertest.Write(&b, 20_000, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), 30, 500)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := e.load(b.Bytes(), goatcounter.Options{Sessions: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != want.Rows || sum.Pageviews != want.Pageviews || sum.Events != want.Events || sum.Days != 30 {
		t.Fatalf("summary %+v, export %+v", sum, want)
	}
	var total int64
	for _, n := range e.counters(stats.Pageview) {
		total += n
	}
	if total != want.Pageviews {
		t.Fatalf("%d pageviews stored, the export has %d", total, want.Pageviews)
	}
	var bots int64
	for _, r := range sum.LeftOut {
		if strings.Contains(r.Reason, "as a bot's") {
			bots = r.Total
		}
	}
	if bots != want.Bots {
		t.Fatalf("bots left out: %d (%+v), want %d", bots, sum.LeftOut, want.Bots)
	}
}
