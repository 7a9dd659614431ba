package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/analytics-service/analytics/ratelimit"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// floodEnv is the collection pipeline as the service wires it (collector, visits, the event
// rate limit, counters, flusher) on a real database, with two websites and a clock of its own.
type floodEnv struct {
	t                   *testing.T
	db                  *sqlx.DB
	repo                *repository.Repository
	collector           *Collector
	flusher             *Flusher
	metrics             *Metrics
	now                 time.Time
	attacked, bystander int64
}

func newFloodEnv(t *testing.T, maxKeys, maxValues int) *floodEnv {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e := &floodEnv{t: t, db: db, repo: repo, now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	var settings staticSites
	for _, d := range []struct {
		domain string
		id     *int64
	}{{"attacked.test", &e.attacked}, {"bystander.test", &e.bystander}} {
		site, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: d.domain})
		if err != nil {
			t.Fatal(err)
		}
		*d.id = site.ID
		settings = append(settings, repository.WebsiteSettings{ID: site.ID, Domain: d.domain})
	}
	if err := repo.EnsureVisitRowPartitions(ctx, e.now, e.now); err != nil {
		t.Fatal(err)
	}
	sites := NewWebsites(settings)
	if err := sites.Load(ctx); err != nil {
		t.Fatal(err)
	}
	counters := NewCounters(maxKeys)
	e.metrics = NewMetrics(prometheus.NewRegistry(), counters)
	limiter := ratelimit.New(DefaultEventRateLimit, 2*DefaultEventRateLimit, e.clock)
	e.collector = withVisits(t, &Collector{Websites: sites, Counters: counters, Location: time.UTC, Now: e.clock,
		Metrics: e.metrics, Limiter: limiter}, DefaultVisitTimeout)
	e.collector.Visits.metrics = e.metrics
	e.flusher = NewFlusher(counters, repo, DefaultFlushInterval, maxValues, e.metrics, slog.New(slog.DiscardHandler))
	e.flusher.Visits, e.flusher.Now = e.collector.Visits, e.clock
	return e
}

func (e *floodEnv) clock() time.Time { return e.now }

// send posts a body as Plausible's tracker does (text/plain) from a client address and user
// agent, and says what the collector answered.
func (e *floodEnv) send(body, addr, ua string) int {
	req := httptest.NewRequest(http.MethodPost, "http://collector.test/api/event", strings.NewReader(body))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("User-Agent", ua)
	req.RemoteAddr = addr + ":4711"
	rec := httptest.NewRecorder()
	e.collector.ServeHTTP(rec, req)
	return rec.Code
}

func (e *floodEnv) flush() {
	e.t.Helper()
	if err := e.flusher.Flush(context.Background()); err != nil {
		e.t.Fatalf("flush at %s: %v", e.now.Format(time.TimeOnly), err)
	}
}

func (e *floodEnv) pageviews(site int64) int64 {
	e.t.Helper()
	var n int64
	if err := e.db.Get(&n, `SELECT coalesce(sum(count), 0) FROM stats WHERE website_id = $1 AND name = 'pageview'`, site); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// letters is n random letters.
func letters(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// The attack of one stranger on main (6711208): POST /api/event, text/plain, Plausible's
// body for a public website, one address and one user agent, 30 property pairs of 250 random
// letters and a 240-character path, at 190 hits a second (under EVENT_RATE_LIMIT). The one
// open visit's row grew by 30 elements a hit until, after about 73,700 hits (6.5 minutes),
// every flush failed (pq: invalid memory alloc request size 1123279464) and no hit of any
// website was stored any more. Here the same traffic through the handler, on the pipeline's
// own clock, a flush a second as FLUSH_INTERVAL's default: the row stays within its bounds
// (the hits past them still count), no flush fails, another website's hit is counted by the
// next flush, and the drain leaves nothing in memory.
//
// It runs 12 seconds of the attack, not 10 minutes (make bench-row-flood runs the 10 real
// minutes against the server), with MAX_VALUES_PER_DAY at 1,000. That is the same as 10
// minutes at 10,000: the row is full after 273 hits (its pages' 64 KiB) and no part of it
// grows after that, which the test checks after every flush from second 6 on; the website's
// pages pass MAX_VALUES_PER_DAY at second 5.3 (at 53 with 10,000), so both regimes of the page
// counters are run; and what each flush writes is bounded by a constant (at most 220 counters
// and one row: the second's 190 pages and the visit's own), which the test checks too. Past
// second 6 the pipeline's state is the same every second but for its counts, so every
// further second, up to 600 and beyond, is one more of the same.
func TestAStrangersVisitRowStaysBounded(t *testing.T) {
	const rate, seconds, full = 190, 12, 6
	e := newFloodEnv(t, DefaultBufferMaxKeys, 1000)
	var w *countingWriter
	e.flusher.writer = &countingWriter{repo: e.repo}
	w = e.flusher.writer.(*countingWriter)
	rng := rand.New(rand.NewPCG(43, 1))
	props := map[string]string{}
	for len(props) < 30 {
		props[letters(rng, 250)] = letters(rng, 250)
	}
	p, err := json.Marshal(props)
	if err != nil {
		t.Fatal(err)
	}
	const addr, ua = "198.51.100.77", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	var kept attackedRow
	for s := range seconds {
		for range rate {
			body := `{"n":"pageview","u":"https://attacked.test/` + letters(rng, 239) + `","d":"attacked.test","r":null,"p":` + string(p) + `}`
			if status := e.send(body, addr, ua); status != http.StatusAccepted {
				t.Fatalf("second %d: the attack's hit answered %d", s, status)
			}
			e.now = e.now.Add(time.Second / rate)
		}
		w.counts, w.rows = 0, 0
		e.flush()
		if w.counts > 220 || w.rows > 1 {
			t.Fatalf("second %d: the flush wrote %d counters and %d rows", s, w.counts, w.rows)
		}
		row := e.attackedRow()
		row.Pageviews = 0
		switch {
		case s == full:
			kept = row
		case s > full && row != kept:
			t.Fatalf("second %d: the full row changed from %+v to %+v", s, kept, row)
		}
	}
	// Another website's visitor: counted by the next flush, a second later.
	if status := e.send(`{"n":"pageview","u":"https://bystander.test/","d":"bystander.test"}`, "203.0.113.9", "Mozilla/5.0 bystander"); status != http.StatusAccepted {
		t.Fatalf("the bystander's hit answered %d", status)
	}
	e.now = e.now.Add(time.Second)
	e.flush()
	if got := e.pageviews(e.bystander); got != 1 {
		t.Fatalf("the other website's hit: %d pageviews stored a flush later, want 1", got)
	}

	row := e.attackedRow()
	hits := rate * seconds
	t.Logf("the attacked visit's row: %+v", row)
	switch {
	case row.Pageviews != hits:
		t.Fatalf("the row counts %d pageviews, want all %d", row.Pageviews, hits)
	case row.Hits > stats.MaxRowHits || row.Pages != row.Hits || row.PageBytes > stats.MaxRowHitBytes:
		t.Fatalf("the row lists %d hits, %d pages of %d bytes: past its bounds", row.Hits, row.Pages, row.PageBytes)
	case row.Props > stats.MaxRowProps || row.PropBytes > stats.MaxRowPropBytes:
		t.Fatalf("the row lists %d property pairs of %d bytes: past its bounds", row.Props, row.PropBytes)
	case row.Stored > stats.MaxRowStoredBytes:
		t.Fatalf("the row takes %d bytes stored", row.Stored)
	case row.Pages == 0 || row.Props == 0:
		t.Fatalf("the row lists %d pages and %d pairs: what fits must be kept", row.Pages, row.Props)
	}
	if got := e.pageviews(e.attacked); got != int64(hits) {
		t.Fatalf("%d pageviews counted, want every one of the %d hits", got, hits)
	}
	if cut := testutil.ToFloat64(e.metrics.rowCut.WithLabelValues(rowPartHit)); int(cut) != hits-row.Hits {
		t.Fatalf("analytics_visit_row_cut_total{part=hit} %v, want the %d hits past the row's bound", cut, hits-row.Hits)
	}
	if cut := testutil.ToFloat64(e.metrics.rowCut.WithLabelValues(rowPartProperty)); int(cut) != 30*hits-row.Props {
		t.Fatalf("analytics_visit_row_cut_total{part=property} %v, want the %d pairs past the row's bound", cut, 30*hits-row.Props)
	}
	if failed := testutil.ToFloat64(e.metrics.flushFailures); failed != 0 {
		t.Fatalf("%v flushes failed", failed)
	}
	if err := e.flusher.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.flusher.counters.Size(); n != 0 {
		t.Fatalf("%d keys left in memory after the drain", n)
	}
}

// countingWriter writes through to the repository, counting the counters and rows written.
type countingWriter struct {
	repo         *repository.Repository
	counts, rows int
}

func (w *countingWriter) AddVisitBatch(ctx context.Context, b repository.VisitBatch, maxValues int) (repository.Added, error) {
	w.counts += len(b.Counts)
	w.rows += b.RowCount()
	return w.repo.AddVisitBatch(ctx, b, maxValues)
}

// attackedRow is what the one row of the attacked website holds.
type attackedRow struct {
	Pageviews int `db:"pageviews"`
	Hits      int `db:"hits"`
	Pages     int `db:"pages"`
	Props     int `db:"props"`
	PageBytes int `db:"page_bytes"`
	PropBytes int `db:"prop_bytes"`
	Stored    int `db:"stored"`
}

func (e *floodEnv) attackedRow() attackedRow {
	e.t.Helper()
	var rows []attackedRow
	const query = `SELECT pageviews, length(hit_order) AS hits, cardinality(pages) AS pages, coalesce(cardinality(props), 0) AS props,
			octet_length(array_to_string(pages, '')) AS page_bytes, coalesce(octet_length(array_to_string(props, '')), 0) AS prop_bytes,
			pg_column_size(v.*) AS stored
		FROM visit_rows v WHERE website_id = $1`
	if err := e.db.Select(&rows, query, e.attacked); err != nil {
		e.t.Fatal(err)
	}
	if len(rows) != 1 {
		e.t.Fatalf("%d rows for the one visit", len(rows))
	}
	return rows[0]
}

// A flush that PostgreSQL refuses for one item (here a counter and a visit's row whose text
// holds a NUL, which the collector never sends) is split until that item is found: it is
// dropped and counted, everything else of the batch is written, and the next flushes go on.
// On main the whole batch was retried for ever, and every later hit with it.
func TestARefusedItemIsDroppedAndTheRestWritten(t *testing.T) {
	e := newFloodEnv(t, 10_000, DefaultMaxValuesPerDay)
	day := dayNumber(e.now)
	page := func(site int64, v string) Key { return Key{WebsiteID: site, Name: stats.Page, Day: day, Value: v} }
	var keys []Key
	for i := range 40 {
		keys = append(keys, page(e.attacked, fmt.Sprintf("/a%d", i)), page(e.bystander, fmt.Sprintf("/b%d", i)))
	}
	keys = append(keys[:17], append([]Key{page(e.attacked, "/nul\x00")}, keys[17:]...)...)
	if err := e.flusher.counters.Add(keys); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if status := e.send(fmt.Sprintf(`{"n":"pageview","u":"https://bystander.test/v%d","d":"bystander.test"}`, i),
			fmt.Sprintf("203.0.113.%d", i+1), "Mozilla/5.0 test"); status != http.StatusAccepted {
			t.Fatalf("hit %d answered %d", i, status)
		}
	}
	// A row part with a NUL page, as only a bug could make one.
	c := e.flusher.counters
	ref := rowRef{websiteID: e.attacked, day: day, visitor: 7, id: 77}
	c.openRow(ref, 10)
	c.mu.Lock()
	c.rowHit(&hitExtras{hasRow: true, row: rowEnd{ref: ref, hour: 10, landing: "/x", exit: "/x"}, hasValues: true,
		hasPageview: true, rowPage: "/row\x00"})
	c.mu.Unlock()

	e.flush()
	var pages int
	if err := e.db.Get(&pages, `SELECT count(*) FROM stats WHERE name = 'page'`); err != nil {
		t.Fatal(err)
	}
	if pages != 80+5 {
		t.Fatalf("%d page counters written, want the 85 the batch held but the refused one", pages)
	}
	var rows int
	if err := e.db.Get(&rows, `SELECT count(*) FROM visit_rows`); err != nil || rows != 5 {
		t.Fatalf("%d visit rows written (%v), want the 5 visits' but the refused one", rows, err)
	}
	for kind, want := range map[string]float64{"counter": 1, "visit_row": 1, "member": 0} {
		if got := testutil.ToFloat64(e.metrics.batchDropped.WithLabelValues(kind)); got != want {
			t.Errorf("analytics_flush_items_dropped_total{kind=%s} %v, want %v", kind, got, want)
		}
	}
	if n := c.Size(); n != 0 {
		t.Fatalf("%d keys still held", n)
	}
	if status := e.send(`{"n":"pageview","u":"https://attacked.test/after","d":"attacked.test"}`, "203.0.113.50", "Mozilla/5.0 test"); status != http.StatusAccepted {
		t.Fatalf("a later hit answered %d", status)
	}
	e.flush()
	if got := e.pageviews(e.attacked); got != 1 {
		t.Fatalf("the later hit: %d pageviews, want 1", got)
	}
}

// While the database is away, every flush fails and keeps its batch whole: nothing is dropped
// or split (the database did not refuse anything), new hits go on aggregating, and once it is
// back one flush writes everything.
func TestADatabaseAwayKeepsEverything(t *testing.T) {
	e := newFloodEnv(t, 10_000, DefaultMaxValuesPerDay)
	away, err := sqlx.Open("postgres", "host=127.0.0.1 port=1 dbname=away user=away sslmode=disable connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer away.Close()
	e.flusher.writer = repository.New(away, nil)
	sent := 0
	for round := range 4 {
		for i := range 10 {
			if status := e.send(fmt.Sprintf(`{"n":"pageview","u":"https://attacked.test/r%d/%d","d":"attacked.test"}`, round, i),
				fmt.Sprintf("203.0.113.%d", i+1), "Mozilla/5.0 test"); status != http.StatusAccepted {
				t.Fatalf("hit answered %d", status)
			}
			sent++
		}
		e.now = e.now.Add(time.Second)
		err := e.flusher.Flush(context.Background())
		if err == nil || repository.RefusedContent(err) {
			t.Fatalf("round %d: a flush to a database that is away: %v", round, err)
		}
	}
	for _, kind := range batchItemKinds {
		if got := testutil.ToFloat64(e.metrics.batchDropped.WithLabelValues(kind)); got != 0 {
			t.Fatalf("%v items of kind %s dropped", got, kind)
		}
	}
	if len(e.flusher.pending) != 1 {
		t.Fatalf("%d parts pending, want the one batch whole", len(e.flusher.pending))
	}
	e.flusher.writer = e.repo
	e.flush() // the batch kept
	e.flush() // what came meanwhile
	if got := e.pageviews(e.attacked); got != int64(sent) {
		t.Fatalf("%d pageviews written, want the %d sent", got, sent)
	}
}

// The rows held between flushes are bounded in bytes, not only in number: new visitors whose
// hits carry 30 properties of 250 letters each fill the bytes long before the keys, and are
// then answered 503 (as a full buffer is), until a flush has written them. On main the buffer
// took them until its keys were full, 708 MB in the attack of random junk.
func TestHeldRowsAreBoundedInBytes(t *testing.T) {
	e := newFloodEnv(t, 4096, DefaultMaxValuesPerDay) // 1 MiB of texts
	rng := rand.New(rand.NewPCG(7, 7))
	c := e.flusher.counters
	refused := 0
	for i := 0; refused == 0; i++ {
		if i > 1000 {
			t.Fatalf("%d hits of 15 KB held, %d bytes of texts: no bound", i, c.rowStore.texts.bytes)
		}
		props := map[string]string{}
		for len(props) < 30 {
			props[letters(rng, 250)] = letters(rng, 250)
		}
		p, err := json.Marshal(props)
		if err != nil {
			t.Fatal(err)
		}
		body := `{"n":"pageview","u":"https://attacked.test/","d":"attacked.test","p":` + string(p) + `}`
		switch status := e.send(body, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), "Mozilla/5.0 test"); status {
		case http.StatusAccepted:
		case http.StatusServiceUnavailable:
			refused++
		default:
			t.Fatalf("hit %d answered %d", i, status)
		}
	}
	if keys := c.Size(); keys > c.maxKeys/2 {
		t.Fatalf("refused with %d keys held of %d: the keys' bound, not the bytes'", keys, c.maxKeys)
	}
	if held := c.rowStore.texts.bytes; held > c.maxBytes+MaxBodySize {
		t.Fatalf("%d bytes of texts held, bound %d", held, c.maxBytes)
	}
	e.flush()
	if status := e.send(`{"n":"pageview","u":"https://attacked.test/after","d":"attacked.test"}`, "203.0.113.1", "Mozilla/5.0 test"); status != http.StatusAccepted {
		t.Fatalf("after the flush: %d, want 202", status)
	}
}
