package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkHitOfOpenVisit compares what the collector's ServeHTTP costs (no network, no
// database) for a pageview and for an engagement hit, each of a visit already open, on the same
// pages: an engagement hit must cost no more than a pageview.
//
//	go test -run '^$' -bench HitOfOpenVisit -benchmem ./ingest/
func BenchmarkHitOfOpenVisit(b *testing.B) {
	for _, kind := range []struct{ name, body string }{
		{"pageview", `{"page":"https://bench.test/blog/post-%[1]d","referrer":"https://news.example/","screen_resolution":"1920x1080"}`},
		{"engagement", `{"n":"engagement","u":"https://bench.test/blog/post-%[1]d","d":"bench.test","sd":%[2]d,"e":4200,"v":36}`},
	} {
		b.Run(kind.name, func(b *testing.B) { benchHits(b, kind.body) })
	}
}

// benchHits sends hits made of body (a page number, and a scroll depth where it has a second
// verb) from clients whose visits a pageview opened first.
func benchHits(b *testing.B, body string) {
	const clients, pages = 500, 50
	sites := NewWebsites(staticSites{{ID: 1, Domain: "bench.test"}})
	if err := sites.Load(context.Background()); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	counters := NewCounters(1 << 30)
	c := withVisits(b, &Collector{Websites: sites, Counters: counters, Location: time.UTC, Now: func() time.Time { return now }}, time.Hour)
	requests := make([]*http.Request, clients)
	for i := range requests {
		requests[i] = httptest.NewRequest(http.MethodPost, "/api/event", nil)
		requests[i].RemoteAddr = fmt.Sprintf("198.51.%d.%d:5000", i/250, i%250)
		requests[i].Header.Set("User-Agent", ChromeWindowsUA)
		requests[i].Header.Set("Content-Type", "text/plain")
	}
	bodies := make([][]byte, pages*10)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, body, i%pages, i%10*10)
	}
	w := &benchWriter{header: http.Header{}}
	send := func(r *http.Request, body []byte) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		clear(w.header)
		c.ServeHTTP(w, r)
		if w.status != http.StatusAccepted {
			b.Fatalf("status %d for %s", w.status, body)
		}
	}
	drain := func() {
		c.Visits.Collect(now)
		t := counters.take()
		counters.release(len(t.counts) + len(t.members))
	}
	for i, r := range requests {
		send(r, fmt.Appendf(nil, `{"page":"https://bench.test/landing-%d","referrer":"","screen_resolution":"1920x1080"}`, i))
	}
	drain()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		send(requests[i%clients], bodies[i%len(bodies)])
		if i%10_000 == 9_999 {
			b.StopTimer()
			drain()
			b.StartTimer()
		}
	}
}

// benchWriter is a ResponseWriter that keeps only the status.
type benchWriter struct {
	header http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.header }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
