package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
	"github.com/analytics-service/analytics/website"
)

// BenchmarkCollector measures the tracker endpoint's own work, without HTTP parsing or the
// network: ingest.Collector.ServeHTTP on the load generator's traffic mix, with the real
// service (settings cache, counters and a flusher writing to PostgreSQL every second). Its
// ns/op, B/op and allocs/op say what a hit costs the service beyond what net/http costs, which
// `make bench-ingest` measures as the do-nothing ceiling. GEOIP_DB, when set, turns geo lookups
// on as in production.
//
//	scripts/test.sh go test -run '^$' -bench Collector -benchmem ./tools/loadgen/
func BenchmarkCollector(b *testing.B) { benchCollector(b, false) }

// BenchmarkCollectorShields is BenchmarkCollector with every website's shields set as
// benchShields sets them (50 countries, 50 page patterns, 20 hostnames, none blocking the
// traffic): what checking them on every hit costs.
func BenchmarkCollectorShields(b *testing.B) { benchCollector(b, true) }

func benchCollector(b *testing.B, shields bool) {
	service, sites := benchService(b, shields)
	requests := benchRequests(b, sites)
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	for i := 0; b.Loop(); i++ {
		r := requests[i%len(requests)]
		r.reset()
		clear(w.header)
		service.Pipeline.Collector.ServeHTTP(w, r.req)
		if w.status != http.StatusAccepted {
			b.Fatalf("status %d for %s", w.status, r.body)
		}
	}
	b.StopTimer()
	// The process's CPU (the flusher's included, PostgreSQL's not): on a shared machine wall
	// time per op says more about the neighbours than about the hit.
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
	// What the shields refused (none should, or only the odd address in a blocked territory).
	var shielded float64
	for _, reason := range []string{"blocked_country", "blocked_page", "hostname_not_allowed"} {
		shielded += testkit.GatherMetrics(b, service.Registry).Value("analytics_events_ignored_total", "reason", reason)
	}
	b.ReportMetric(shielded/float64(b.N), "shielded/op")
	if err := service.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCollectorParallel is the same on every core at once: what contention (the
// counters' lock, the caches) adds.
func BenchmarkCollectorParallel(b *testing.B) {
	service, sites := benchService(b, false)
	requests := benchRequests(b, sites)
	b.ReportAllocs()
	b.ResetTimer()
	next := make(chan int, 64)
	for g := 0; g < 64; g++ {
		next <- g
	}
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine owns its slice of the requests: a request's body reader is not
		// shareable.
		g := <-next
		w := &discardWriter{header: http.Header{}}
		for i := g; pb.Next(); i += 64 {
			r := requests[i%len(requests)]
			r.reset()
			clear(w.header)
			service.Pipeline.Collector.ServeHTTP(w, r.req)
			if w.status != http.StatusAccepted {
				b.Errorf("status %d", w.status)
				return
			}
		}
	})
	b.StopTimer()
	if err := service.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// benchService starts the service on a fresh database with the benchmark's websites
// (exclude_bots=0, as `make bench-ingest` creates them), each with benchShields when shields.
func benchService(b *testing.B, shields bool) (*app.App, []string) {
	b.Helper()
	db, _ := repotest.New(b)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "bench@localhost")
	if err != nil {
		b.Fatal(err)
	}
	var sites []string
	for i := 1; i <= 20; i++ {
		domain := "bench" + strconv.Itoa(i) + ".example.com"
		site := repository.NewWebsite{Domain: domain}
		if shields {
			lists := benchShields(domain)
			countries, pages, hosts := lists["block_countries"], lists["block_pages"], lists["allowed_hostnames"]
			site.BlockCountries, site.BlockPages, site.AllowedHostnames = &countries, &pages, &hosts
		}
		if _, err := repo.CreateWebsite(ctx, user.ID, site); err != nil {
			b.Fatal(err)
		}
		sites = append(sites, domain)
	}
	var geo *ingest.GeoDB
	if path := os.Getenv("GEOIP_DB"); path != "" {
		if geo, err = ingest.OpenGeoDB(path); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { geo.Close() })
	}
	service, err := app.New(ctx, repo, app.Config{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Geo:            geo,
		FlushInterval:  time.Second,
		SettingsTTL:    10 * time.Second,
		BufferMaxKeys:  200_000,
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	if err := service.Start(ctx); err != nil {
		b.Fatal(err)
	}
	return service, sites
}

// benchRequest is one of the generator's requests as the server sees it; reset rewinds its
// body so that it can be served again without allocating.
type benchRequest struct {
	req    *http.Request
	body   []byte
	reader *bytes.Reader
	closer io.ReadCloser // reader, wrapped once so that reset allocates nothing
}

func (r *benchRequest) reset() {
	r.reader.Reset(r.body)
	r.req.Body = r.closer
}

func benchRequests(b *testing.B, sites []string) []*benchRequest {
	b.Helper()
	templates := newTraffic(1, sites, 3000).requests(20000)
	out := make([]*benchRequest, len(templates))
	for i, t := range templates {
		reader := bytes.NewReader(t.body)
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/api/event", reader)
		if err != nil {
			b.Fatal(err)
		}
		req.Header = t.header.Clone()
		req.RemoteAddr = "127.0.0.1:40000" // the reverse proxy; X-Forwarded-For names the client
		out[i] = &benchRequest{req: req, body: t.body, reader: reader, closer: io.NopCloser(reader)}
	}
	return out
}

// processCPU is the CPU time this process has used, user and system, in nanoseconds.
func processCPU(b *testing.B) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }

// The generator's own checks: cheap, no database, so they run with the test suite.

func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	h.init()
	for v := 1; v <= 100_000; v++ { // 1 µs .. 100 ms, uniform
		h.record(time.Duration(v) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {0.001, 100 * time.Microsecond}} {
		got := h.quantile(c.q)
		if rel := float64(got-c.want) / float64(c.want); rel < 0 || rel > 0.008 {
			t.Errorf("quantile(%v) = %v, want %v within +0.8%%", c.q, got, c.want)
		}
	}
	if h.quantile(1) != 100*time.Millisecond {
		t.Errorf("quantile(1) = %v, want the max", h.quantile(1))
	}
}

func TestRequireLoopback(t *testing.T) {
	for host, ok := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.0.0.2": true,
		"10.0.0.1": false, "example.com": false, "0.0.0.0": false, "": false} {
		if err := requireLoopback(host); (err == nil) != ok {
			t.Errorf("requireLoopback(%q) = %v", host, err)
		}
	}
}

// TestTrafficIsValid: every precomputed request is one the service must answer 202 (a page of
// a configured site, JSON it accepts, an event with a name), so that a non-202 in a benchmark
// is the server's doing, never the generator's.
func TestTrafficIsValid(t *testing.T) {
	sites := []string{"a.example.com", "b.example.com", "c.example.com"}
	requests := newTraffic(7, sites, 500).requests(5000)
	for _, r := range requests {
		var body struct {
			Page             string             `json:"page"`
			Referrer         string             `json:"referrer"`
			ScreenResolution string             `json:"screen_resolution"`
			Event            *map[string]string `json:"event"`
		}
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		u, err := url.Parse(body.Page)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("page %q is not an absolute http(s) URL", body.Page)
		}
		if host := strings.TrimPrefix(u.Hostname(), "www."); !slices.Contains(sites, host) {
			t.Fatalf("page %q is on no configured site", body.Page)
		}
		if (body.Event != nil) != r.event || (r.event && (*body.Event)["name"] == "") {
			t.Fatalf("event mismatch in %s", r.body)
		}
		if r.header.Get("X-Forwarded-For") == "" || r.header.Get("Content-Type") != "text/plain;charset=UTF-8" {
			t.Fatalf("headers %v", r.header)
		}
	}
	events := fraction(requests, func(r *request) bool { return r.event })
	bots := fraction(requests, func(r *request) bool { return r.bot })
	if events < 0.08 || events > 0.12 || bots < 0.03 || bots > 0.07 {
		t.Errorf("events %.3f (want ~0.10), bots %.3f (want ~0.05)", events, bots)
	}
}

// TestBenchShieldsAreValid: the benchmarks' shields pass the website rules, so that `make
// bench-hitcost` with BENCH_SHIELDS=1 can set them through the API, and are as large as said.
func TestBenchShieldsAreValid(t *testing.T) {
	lists := benchShields("bench1.example.com")
	countries, pages, hosts := lists["block_countries"], lists["block_pages"], lists["allowed_hostnames"]
	_, errs, err := website.Check("bench1.example.com", website.Settings{BlockCountries: &countries, BlockPages: &pages,
		AllowedHostnames: &hosts}, func(string) (string, error) { return "", nil })
	if err != nil || len(errs) > 0 {
		t.Fatalf("refused: %v %v", errs, err)
	}
	for field, n := range map[string]int{"block_countries": 50, "block_pages": 50, "allowed_hostnames": 20} {
		if got := len(strings.Split(lists[field], "\n")); got != n {
			t.Errorf("%s: %d entries, want %d", field, got, n)
		}
	}
}
