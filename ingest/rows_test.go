package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// faultyWriter writes through to the repository, except that it loses the answer of the
// writes listed in lose (the batch committed, the flusher does not know) and fails without
// writing those in fail (the database is down).
type faultyWriter struct {
	repo       *repository.Repository
	lose, fail map[int]bool
	calls      int
}

func (w *faultyWriter) AddVisitBatch(ctx context.Context, b repository.VisitBatch, maxValues int) (repository.Added, error) {
	w.calls++
	if w.fail[w.calls] {
		return repository.Added{}, errors.New("connection refused")
	}
	added, err := w.repo.AddVisitBatch(ctx, b, maxValues)
	if err == nil && w.lose[w.calls] {
		return repository.Added{}, errors.New("connection reset")
	}
	return added, err
}

// rowsEnv is a collector, its visits and a flusher on a real database, with a clock of its own.
type rowsEnv struct {
	t         *testing.T
	repo      *repository.Repository
	db        *sqlx.DB
	collector *Collector
	flusher   *Flusher
	metrics   *Metrics
	now       time.Time
	siteID    int64
}

func newRowsEnv(t *testing.T, writer func(*repository.Repository) BatchWriter, partitions bool, maxKeys int) *rowsEnv {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	site, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "rows.test"})
	if err != nil {
		t.Fatal(err)
	}
	e := &rowsEnv{t: t, repo: repo, db: db, now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC), siteID: site.ID}
	if partitions {
		if err := repo.EnsureVisitRowPartitions(ctx, e.now, e.now); err != nil {
			t.Fatal(err)
		}
	}
	sites := NewWebsites(staticSites{{ID: site.ID, Domain: "rows.test"}})
	if err := sites.Load(ctx); err != nil {
		t.Fatal(err)
	}
	counters := NewCounters(maxKeys)
	e.metrics = NewMetrics(prometheus.NewRegistry(), counters)
	e.collector = withVisits(t, &Collector{Websites: sites, Counters: counters, Location: time.UTC, Now: e.clock, Metrics: e.metrics}, time.Minute)
	w := writer(repo)
	e.flusher = NewFlusher(counters, w, time.Second, 100, e.metrics, slog.New(slog.DiscardHandler))
	e.flusher.Visits, e.flusher.Now = e.collector.Visits, e.clock
	return e
}

func (e *rowsEnv) clock() time.Time { return e.now }

func (e *rowsEnv) send(body string) {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.collector.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		e.t.Fatalf("%s: %d %s", body, rec.Code, rec.Body)
	}
}

func (e *rowsEnv) page(path string) { e.send(`{"page":"https://rows.test` + path + `"}`) }

// TestVisitRowsSize measures what visit_rows takes a visit and a pageview (table and primary
// key, as the flushes wrote it and once rewritten in key order), on VISIT_ROWS_SIZE generated
// visits of 1 to 4 pageviews (2.5 on average) among 1,000 pages; skipped when unset. With
// VISIT_ROWS_ENGAGED=1 every other visit sends an engagement hit after each pageview, as the
// trackers do, and the rows' engagement (migration 0025) is measured with pg_column_size:
//
//	VISIT_ROWS_SIZE=100000 scripts/test.sh go test -count=1 -run VisitRowsSize -v ./ingest/
func TestVisitRowsSize(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VISIT_ROWS_SIZE"))
	if n <= 0 {
		t.Skip("VISIT_ROWS_SIZE is not set")
	}
	engaged := os.Getenv("VISIT_ROWS_ENGAGED") == "1"
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { return repo }, true, 1_000_000)
	ctx := context.Background()
	uas := []string{ChromeWindowsUA, SafariIPhoneUA}
	referrers := []string{"", "", "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://rows.test/"}
	for i := range n {
		for p := range 1 + i%4 {
			body := fmt.Sprintf(`{"page":"https://rows.test/blog/2026/post-%04d?utm_campaign=c%d","referrer":%q,"screen_resolution":"1920x1080"}`,
				(i*7+p*13)%1000, i%5, referrers[i%len(referrers)])
			req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", uas[i%2])
			req.Header.Set("Accept-Language", "de-CH,de;q=0.9")
			req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255)
			rec := httptest.NewRecorder()
			e.collector.ServeHTTP(rec, req)
			if rec.Code != http.StatusAccepted {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if engaged && i%2 == 0 {
				body := fmt.Sprintf(`{"n":"engagement","d":"rows.test","u":"https://rows.test/blog/2026/post-%04d","e":%d,"sd":%d}`,
					(i*7+p*13)%1000, 1000+(i*37)%60000, (i*13)%101)
				req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", strings.NewReader(body))
				req.Header.Set("Content-Type", "text/plain")
				req.Header.Set("User-Agent", uas[i%2])
				req.Header.Set("Accept-Language", "de-CH,de;q=0.9")
				req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255)
				rec := httptest.NewRecorder()
				e.collector.ServeHTTP(rec, req)
				if rec.Code != http.StatusAccepted {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			e.now = e.now.Add(time.Millisecond)
		}
		if i%2000 == 1999 {
			if err := e.flusher.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.now = e.now.Add(time.Hour)
	if err := e.flusher.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	const size = `SELECT count(*) AS visits, sum(pageviews) AS pageviews, pg_relation_size('visit_rows_20260304') AS heap,
		pg_indexes_size('visit_rows_20260304') AS pkey FROM visit_rows_20260304`
	report := func(when string) {
		var s struct {
			Visits, Pageviews, Heap, Pkey int64
		}
		if err := e.db.QueryRowx(size).Scan(&s.Visits, &s.Pageviews, &s.Heap, &s.Pkey); err != nil {
			t.Fatal(err)
		}
		total := float64(s.Heap + s.Pkey)
		t.Logf("%s: %d visits, %d pageviews; table %d B + primary key %d B: %.0f B a visit, %.0f B a pageview",
			when, s.Visits, s.Pageviews, s.Heap, s.Pkey, total/float64(s.Visits), total/float64(s.Pageviews))
	}
	report("as the flushes wrote it")
	if engaged {
		const columns = `SELECT engaged_pages IS NOT NULL AS engaged, count(*) AS visits, avg(pg_column_size(v.*)) AS row,
			avg(coalesce(pg_column_size(engaged_pages), 0) + coalesce(pg_column_size(engaged_ms), 0) + coalesce(pg_column_size(scroll_depth), 0)) AS engagement,
			avg(coalesce(cardinality(engaged_pages), 0)) AS pages
			FROM visit_rows_20260304 AS v GROUP BY 1 ORDER BY 1`
		var groups []struct {
			Engaged                bool
			Visits                 int64
			Row, Engagement, Pages float64
		}
		if err := e.db.Select(&groups, columns); err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			t.Logf("engaged %v: %d visits, pg_column_size of the row %.1f B, of its engagement %.1f B (%.2f pages)",
				g.Engaged, g.Visits, g.Row, g.Engagement, g.Pages)
		}
	}
	if _, err := e.db.Exec(`CLUSTER visit_rows_20260304 USING visit_rows_20260304_pkey`); err != nil {
		t.Fatal(err)
	}
	report("rewritten in key order (CLUSTER)")
}

// rows are the website's rows: pageviews, pages, exit page.
func (e *rowsEnv) rows() []string {
	var rows []struct {
		Pageviews int            `db:"pageviews"`
		Pages     pq.StringArray `db:"pages"`
		Exit      string         `db:"exit_page"`
	}
	if err := e.db.Select(&rows, `SELECT pageviews, pages, exit_page FROM visit_rows WHERE website_id = $1 ORDER BY pages`, e.siteID); err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r.Pageviews, []string(r.Pages), r.Exit))
	}
	return out
}

// A flush whose batch committed but whose answer was lost, then flushes that fail (the database
// is down) while the visit goes on: the retried batches write each row once, and the row holds
// every pageview, in order, once.
func TestVisitRowsSurviveLostAnswersAndFaults(t *testing.T) {
	var w *faultyWriter
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter {
		w = &faultyWriter{repo: repo, lose: map[int]bool{1: true}, fail: map[int]bool{3: true, 4: true}}
		return w
	}, true, 1000)
	ctx := context.Background()
	flushes := 0
	for i := range 6 {
		e.page(fmt.Sprintf("/p%d", i))
		e.now = e.now.Add(resendEvery / 8) // within resendEvery: the later pages are held
		if err := e.flusher.Flush(ctx); err != nil {
			flushes++
		}
	}
	e.now = e.now.Add(time.Hour) // the visit has ended: its held pages go
	if err := e.flusher.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if flushes != 3 || w.calls != 7 || e.flusher.counters.Size() != 0 {
		t.Fatalf("%d failed flushes in %d writes: the faults did not happen as planned", flushes, w.calls)
	}
	want := "[6 [/p0 /p1 /p2 /p3 /p4 /p5]/p5]"
	if got := fmt.Sprint(e.rows()); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
}

// A row whose day has no partition is skipped and counted, and the flush writes its counters
// all the same: a missing partition must not stall collection.
func TestVisitRowWithoutPartitionIsDropped(t *testing.T) {
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { return repo }, false, 1000)
	e.page("/a")
	e.page("/b?x")
	if err := e.flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(e.metrics.rowsDropped); got != 1 {
		t.Fatalf("analytics_visit_rows_dropped_total %v, want 1", got)
	}
	var pageviews int64
	if err := e.db.Get(&pageviews, `SELECT coalesce(sum(count), 0) FROM stats WHERE name = 'pageview'`); err != nil || pageviews != 2 {
		t.Fatalf("%d pageviews written (%v), want 2", pageviews, err)
	}
	if e.flusher.counters.Size() != 0 {
		t.Fatalf("%d keys left in memory", e.flusher.counters.Size())
	}
}

// A visit's row is written at its first flush; what the visit adds later goes with its
// emissions every resendEvery and at its end, not with every flush.
func TestLaterPartsOfARowGoEveryResendEvery(t *testing.T) {
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { return repo }, true, 1000)
	ctx := context.Background()
	flush := func() {
		t.Helper()
		if err := e.flusher.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	step := func(wait time.Duration, path, want string) {
		t.Helper()
		e.now = e.now.Add(wait)
		if path != "" {
			e.page(path)
		}
		flush()
		if got := fmt.Sprint(e.rows()); got != want {
			t.Fatalf("after %s: rows %s, want %s", path, got, want)
		}
	}
	step(0, "/a", "[1 [/a]/a]")
	step(time.Second, "/b", "[1 [/a]/a]") // held
	step(time.Second, "/c", "[1 [/a]/a]")
	step(resendEvery, "", "[3 [/a /b /c]/c]")
	step(time.Second, "/d", "[3 [/a /b /c]/c]")
	step(time.Hour, "", "[4 [/a /b /c /d]/d]") // ended
	if e.flusher.counters.Size() != 0 {
		t.Fatalf("%d keys left in memory", e.flusher.counters.Size())
	}
}

// A held part that gathers maxHeldHits pageviews and events is due at once: a visitor who sends
// hits as fast as a script can does not grow it for resendEvery.
func TestALargeHeldPartIsDue(t *testing.T) {
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { return repo }, true, 1000)
	ctx := context.Background()
	e.page("/0")
	if err := e.flusher.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range maxHeldHits + 1 {
		want = append(want, fmt.Sprintf("/%d", i))
		if i > 0 {
			e.page(fmt.Sprintf("/%d", i))
		}
	}
	if err := e.flusher.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, w := fmt.Sprint(e.rows()), fmt.Sprint([]string{fmt.Sprint(len(want), want, want[len(want)-1])}); got != w {
		t.Fatalf("rows %s, want %s", got, w)
	}
}

// rowCounter writes through to the repository and counts the visit rows it is given.
type rowCounter struct {
	repo    *repository.Repository
	written int
}

func (w *rowCounter) AddVisitBatch(ctx context.Context, b repository.VisitBatch, maxValues int) (repository.Added, error) {
	if b.Rows != nil {
		w.written += b.Rows.Len()
	}
	return w.repo.AddVisitBatch(ctx, b, maxValues)
}

// A visit of one hit is written once: the end its first Collect sets joins the row's first
// write, and its end repeats nothing (it was written at resendEvery and at its end too, three
// writes of the same row). A visit with a later hit still gets it written.
func TestAOneHitVisitsRowIsWrittenOnce(t *testing.T) {
	counter := &rowCounter{}
	e := newRowsEnv(t, func(repo *repository.Repository) BatchWriter { counter.repo = repo; return counter }, true, 1000)
	ctx := context.Background()
	flushAfter := func(wait time.Duration) {
		t.Helper()
		e.now = e.now.Add(wait)
		if err := e.flusher.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.page("/a")
	for _, wait := range []time.Duration{0, time.Second, resendEvery, time.Second, time.Hour} {
		flushAfter(wait)
	}
	if got := fmt.Sprint(e.rows()); got != "[1 [/a]/a]" || counter.written != 1 {
		t.Fatalf("rows %s written %d times, want [1 [/a]/a] once", got, counter.written)
	}
	var seconds int
	var bounce bool
	if err := e.db.QueryRow(`SELECT seconds, bounce FROM visit_rows`).Scan(&seconds, &bounce); err != nil {
		t.Fatal(err)
	}
	if seconds != 0 || !bounce {
		t.Fatalf("seconds %d, bounce %v; want 0, a bounce", seconds, bounce)
	}

	// A second visitor's visit: its later hit is held, then written at its end.
	counter.written = 0
	e.send(`{"page":"https://rows.test/x","screen_resolution":"800x600"}`)
	flushAfter(0)
	e.now = e.now.Add(time.Second)
	e.send(`{"page":"https://rows.test/y","screen_resolution":"800x600"}`)
	flushAfter(time.Second)
	flushAfter(time.Hour)
	if counter.written != 2 {
		t.Fatalf("the two-hit visit's row was written %d times, want 2 (first hit, end)", counter.written)
	}
	if err := e.db.QueryRow(`SELECT seconds, bounce FROM visit_rows WHERE exit_page = '/y'`).Scan(&seconds, &bounce); err != nil {
		t.Fatal(err)
	}
	if seconds != 1 || bounce {
		t.Fatalf("seconds %d, bounce %v; want 1, no bounce", seconds, bounce)
	}
}
