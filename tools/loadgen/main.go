// Command loadgen drives the tracker endpoint (POST /api/event) with realistic mixed traffic
// and reports what the server answered and how fast: requests, answers by status, throughput
// and latency percentiles, then the same figures as one JSON line (the last line of stdout).
//
//	loadgen -url http://127.0.0.1:8080/api/event -duration 60s -concurrency 8 -sites a.test,b.test
//	loadgen -url ... -rate 15000 -concurrency 64    # open loop: latency from each scheduled send
//	loadgen -url ... -flood 198.51.100.66            # one address, a new user agent every request
//
// With -noop ADDR it is instead the ceiling server: a plain net/http server with the service's
// timeouts whose handler reads and discards the body and answers 202, so that the same
// generator against it measures what the machine can do with a handler that does nothing.
// -noop-busy 8us keeps a core busy that long in each request: what the latency of any server
// that costs 8 us a request more than net/http's own work would be, on this machine, with this
// generator sharing its cores.
//
// Only loopback targets are accepted: this is a benchmark tool, not a way to flood a host.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

type options struct {
	url         string
	duration    time.Duration
	concurrency int
	rate        float64
	sites       []string
	seed        uint64
	pool        int
	pages       int
	timeout     time.Duration
	noop        string
	noopBusy    time.Duration
	cpuprofile  string
	flood       string
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	var o options
	var sites string
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080/api/event", "the tracker endpoint (loopback only)")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "how long to send; with -noop, how long to serve at most")
	fs.IntVar(&o.concurrency, "concurrency", 8, "workers, each with its own keep-alive connection")
	fs.Float64Var(&o.rate, "rate", 0, "requests per second in all (open loop); 0 sends as fast as answers come (closed loop)")
	fs.StringVar(&sites, "sites", "example.com", "comma-separated website domains the pages belong to (they must exist on the server)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the traffic mix: the same seed sends the same requests")
	fs.IntVar(&o.pool, "pool", 20000, "distinct requests precomputed before the run (each has its own client IP)")
	fs.IntVar(&o.pages, "pages", 3000, "distinct paths per website")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-request limit on waiting for the answer")
	fs.StringVar(&o.noop, "noop", "", "serve the do-nothing ceiling handler on this loopback ADDR instead of sending")
	fs.DurationVar(&o.noopBusy, "noop-busy", 0, "with -noop, keep a core busy this long in each request: a server that costs that much more than net/http's own work")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write the generator's CPU profile of the run to this file")
	fs.StringVar(&o.flood, "flood", "", "be a flood from this one client address: every request a visit of the first site with a user agent never seen before")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.duration <= 0 {
		return errors.New("-duration must be positive")
	}
	if o.noop != "" {
		return serveNoop(o.noop, o.duration, o.noopBusy, stdout)
	}
	for _, s := range strings.Split(sites, ",") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			o.sites = append(o.sites, s)
		}
	}
	switch {
	case len(o.sites) == 0:
		return errors.New("-sites names no website")
	case o.concurrency < 1 || o.concurrency > 4096:
		return errors.New("-concurrency must be 1..4096")
	case o.rate < 0:
		return errors.New("-rate must be >= 0")
	case o.pool < 1 || o.pages < 1:
		return errors.New("-pool and -pages must be >= 1")
	case o.timeout <= 0:
		return errors.New("-timeout must be positive")
	}
	target, err := url.Parse(o.url)
	if err != nil || (target.Scheme != "http") || target.Host == "" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT/api/event", o.url)
	}
	if err := requireLoopback(target.Hostname()); err != nil {
		return fmt.Errorf("-url: %w", err)
	}

	if os.Getenv("GOGC") == "" {
		// The generator shares the cores with the server it measures, so its own CPU is taken
		// from the server. Collecting less often cuts it by ~12% a request (21 -> 18.5 us,
		// measured against -noop) at the price of a larger heap here, which is not measured.
		debug.SetGCPercent(400)
	}
	prepStart := time.Now()
	requests := newTraffic(o.seed, o.sites, o.pages).requests(o.pool)
	if o.flood != "" {
		if _, err := netip.ParseAddr(o.flood); err != nil {
			return fmt.Errorf("-flood %q: not an address", o.flood)
		}
		requests = []*request{floodRequest(o.sites[0], o.flood)}
	}
	fmt.Fprintf(os.Stderr, "loadgen: %d requests precomputed in %s (%.1f%% events, %.1f%% bots, %d user agents, %d body bytes on average)\n",
		len(requests), time.Since(prepStart).Round(time.Millisecond), 100*fraction(requests, func(r *request) bool { return r.event }),
		100*fraction(requests, func(r *request) bool { return r.bot }), distinctUserAgents(requests), averageBody(requests))

	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := drive(o, target, requests)
	if err != nil {
		return err
	}
	res.print(stdout, o, target)
	return nil
}

// requireLoopback refuses any target but this machine.
func requireLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address (127.0.0.1, ::1 or localhost)", host)
}

// ---- Driving the server ----

// request is one precomputed tracker hit: the body and the headers a browser's sendBeacon
// sends through a reverse proxy. The header map is shared by every send of it and never
// written after construction (the Transport only reads it), so a send allocates little more
// than the *http.Request.
type request struct {
	body   []byte
	header http.Header
	event  bool
	bot    bool
}

// worker state is private to one goroutine and merged after the run, so the hot loop touches
// no shared memory.
type worker struct {
	hist       histogram
	statuses   map[int]uint64
	errors     map[string]uint64
	perSecond  []uint64 // 202 answers by second of the run
	requests   uint64
	late       uint64 // open loop: sends that missed their slot because the worker was busy
	firstError string
}

func drive(o options, target *url.URL, requests []*request) (*result, error) {
	transport := &http.Transport{
		Proxy: nil, // never a proxy from the environment: the target is this machine
		DialContext: (&net.Dialer{
			Timeout:   5 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          o.concurrency,
		MaxIdleConnsPerHost:   o.concurrency,
		MaxConnsPerHost:       o.concurrency,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: o.timeout,
		// The 202 has no body; without this the Transport would add its own Accept-Encoding
		// on top of the browser's and wrap bodies in a gzip reader.
		DisableCompression: true,
	}
	defer transport.CloseIdleConnections()

	// Every request of the run is bounded: nothing is sent after the deadline and anything
	// still in flight a timeout later is cancelled, so the run always ends by itself.
	start := time.Now()
	end := start.Add(o.duration)
	ctx, cancel := context.WithDeadline(context.Background(), end.Add(o.timeout))
	defer cancel()
	seconds := int(o.duration/time.Second) + int(o.timeout/time.Second) + 2

	workers := make([]*worker, o.concurrency)
	done := make(chan struct{})
	for i := range workers {
		w := &worker{statuses: map[int]uint64{}, errors: map[string]uint64{}, perSecond: make([]uint64, seconds)}
		w.hist.init()
		workers[i] = w
		rng := rand.New(rand.NewPCG(o.seed, uint64(i)+1))
		go func() {
			defer func() { done <- struct{}{} }()
			w.loop(ctx, transport, target, requests, rng, i, o, start, end)
		}()
	}
	for range workers {
		<-done
	}
	elapsed := time.Since(start)
	return merge(workers, elapsed, o.duration), nil
}

func (w *worker) loop(ctx context.Context, transport *http.Transport, target *url.URL, requests []*request,
	rng *rand.Rand, index int, o options, start, end time.Time) {
	var interval float64 // seconds between this worker's sends in open loop
	if o.rate > 0 {
		interval = float64(o.concurrency) / o.rate
	}
	for k := 0; ; k++ {
		// began is when the request's latency starts to count.
		began := time.Now()
		if o.rate > 0 {
			// Worker i takes slots i, i+C, i+2C, ... of one global schedule of -rate a second.
			offset := (float64(k) + float64(index)/float64(o.concurrency)) * interval
			slot := start.Add(time.Duration(offset * float64(time.Second)))
			if !slot.Before(end) {
				return
			}
			if wait := time.Until(slot); wait > 0 {
				// Early: sleep to the slot and count from the moment we send. Go's timers
				// wake up to a millisecond late here, and that is the generator's error, not
				// the server's latency.
				time.Sleep(wait)
				began = time.Now()
			} else {
				// Late because this worker's previous request was still being answered: the
				// request has waited since its slot, so a server that falls behind shows in
				// the latency (no coordinated omission) instead of quietly lowering the rate.
				began = slot
				w.late++
			}
		}
		if !began.Before(end) || ctx.Err() != nil {
			return
		}
		r := requests[rng.IntN(len(requests))]
		if o.flood != "" {
			r = r.withUserAgent(neverSeenUserAgent(rng))
		}
		status, err := send(ctx, transport, target, r)
		now := time.Now()
		w.requests++
		w.hist.record(now.Sub(began))
		if err != nil {
			w.errors[errorClass(err)]++
			if w.firstError == "" {
				w.firstError = err.Error()
			}
			continue
		}
		w.statuses[status]++
		if status == http.StatusAccepted {
			if s := int(now.Sub(start) / time.Second); s < len(w.perSecond) {
				w.perSecond[s]++
			}
		}
	}
}

// floodRequest is a visit (no referrer) of the site's home page from one client address, as a
// script would send it through the reverse proxy; each send gets a user agent of its own.
func floodRequest(site, addr string) *request {
	h := http.Header{}
	h.Set("Content-Type", "text/plain;charset=UTF-8")
	h.Set("X-Forwarded-For", addr)
	h.Set("X-Forwarded-Proto", "https")
	body := []byte(`{"page":"https://` + site + `/","referrer":"","screen_resolution":"1920x1080"}`)
	return &request{body: body, header: h}
}

// withUserAgent is the request with another user agent (a copy: requests are shared).
func (r *request) withUserAgent(ua string) *request {
	h := r.header.Clone()
	h["User-Agent"] = []string{ua}
	return &request{body: r.body, header: h, event: r.event, bot: r.bot}
}

// neverSeenUserAgent is a browser-like user agent with random build numbers: it passes the
// cheap bot heuristics and misses every cache, so the server classifies each one in full.
func neverSeenUserAgent(rng *rand.Rand) string {
	return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Safari/537.36",
		100+rng.IntN(40), rng.IntN(1_000_000), rng.IntN(1_000_000))
}

// send posts one hit and reads the answer to its end, so that the connection is reused.
func send(ctx context.Context, transport *http.Transport, target *url.URL, r *request) (int, error) {
	req := (&http.Request{
		Method:        http.MethodPost,
		URL:           target,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        r.header,
		Body:          io.NopCloser(bytes.NewReader(r.body)),
		ContentLength: int64(len(r.body)),
		Host:          target.Host,
	}).WithContext(ctx)
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// errorClass groups transport errors for the summary without one line per distinct address.
func errorClass(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return "other"
}

// ---- Results ----

type result struct {
	requests   uint64
	late       uint64
	statuses   map[int]uint64
	errors     map[string]uint64
	firstError string
	hist       histogram
	elapsed    time.Duration
	perSecond  []uint64 // 202s in each whole second of the sending window
}

func merge(workers []*worker, elapsed, duration time.Duration) *result {
	res := &result{statuses: map[int]uint64{}, errors: map[string]uint64{}, elapsed: elapsed}
	res.hist.init()
	full := int(duration / time.Second) // only whole seconds inside the sending window
	res.perSecond = make([]uint64, full)
	for _, w := range workers {
		res.requests += w.requests
		res.late += w.late
		for s, n := range w.statuses {
			res.statuses[s] += n
		}
		for e, n := range w.errors {
			res.errors[e] += n
		}
		if res.firstError == "" {
			res.firstError = w.firstError
		}
		res.hist.merge(&w.hist)
		for s := 0; s < full; s++ {
			res.perSecond[s] += w.perSecond[s]
		}
	}
	return res
}

// summary is the machine-readable last line.
type summary struct {
	Mode           string            `json:"mode"`
	Concurrency    int               `json:"concurrency"`
	Rate           float64           `json:"rate"`
	Seconds        float64           `json:"seconds"`
	Requests       uint64            `json:"requests"`
	LateSends      uint64            `json:"late_sends"`
	Accepted       uint64            `json:"accepted"`
	OtherStatuses  map[string]uint64 `json:"other_statuses"`
	Errors         map[string]uint64 `json:"errors"`
	RequestsPerSec float64           `json:"requests_per_s"`
	AcceptedPerSec float64           `json:"accepted_per_s"`
	// The slowest and median whole second of the run: how sustained the throughput was.
	AcceptedPerSecMin    uint64  `json:"accepted_per_s_min_1s"`
	AcceptedPerSecMedian uint64  `json:"accepted_per_s_median_1s"`
	P50Ms                float64 `json:"p50_ms"`
	P90Ms                float64 `json:"p90_ms"`
	P99Ms                float64 `json:"p99_ms"`
	P999Ms               float64 `json:"p999_ms"`
	MaxMs                float64 `json:"max_ms"`
	CPUSeconds           float64 `json:"generator_cpu_s"`
}

func (r *result) summary(o options) summary {
	s := summary{
		Mode: "closed", Concurrency: o.concurrency, Rate: o.rate, Seconds: round(r.elapsed.Seconds(), 3),
		Requests: r.requests, LateSends: r.late, Accepted: r.statuses[http.StatusAccepted],
		OtherStatuses: map[string]uint64{}, Errors: r.errors,
		P50Ms: ms(r.hist.quantile(0.50)), P90Ms: ms(r.hist.quantile(0.90)), P99Ms: ms(r.hist.quantile(0.99)),
		P999Ms: ms(r.hist.quantile(0.999)), MaxMs: ms(r.hist.max), CPUSeconds: round(cpuSeconds(), 2),
	}
	if o.rate > 0 {
		s.Mode = "open"
	}
	for status, n := range r.statuses {
		if status != http.StatusAccepted {
			s.OtherStatuses[strconv.Itoa(status)] = n
		}
	}
	if secs := r.elapsed.Seconds(); secs > 0 {
		s.RequestsPerSec = round(float64(r.requests)/secs, 1)
		s.AcceptedPerSec = round(float64(s.Accepted)/secs, 1)
	}
	if len(r.perSecond) > 0 {
		sorted := slices.Clone(r.perSecond)
		slices.Sort(sorted)
		s.AcceptedPerSecMin, s.AcceptedPerSecMedian = sorted[0], sorted[len(sorted)/2]
	}
	return s
}

func (r *result) print(out io.Writer, o options, target *url.URL) {
	s := r.summary(o)
	loop := "closed loop (as fast as answers come)"
	if o.rate > 0 {
		loop = fmt.Sprintf("open loop at %.0f req/s", o.rate)
	}
	fmt.Fprintf(out, "target        %s, %d sites, %d connections, %s\n", target, len(o.sites), o.concurrency, loop)
	fmt.Fprintf(out, "duration      %.2fs\n", s.Seconds)
	fmt.Fprintf(out, "requests      %d\n", s.Requests)
	if o.rate > 0 {
		fmt.Fprintf(out, "late sends    %d (a worker still busy at its next slot: -concurrency too low for the rate, or the server fell behind)\n", s.LateSends)
	}
	fmt.Fprintf(out, "202           %d\n", s.Accepted)
	fmt.Fprintf(out, "other status  %s\n", countsText(s.OtherStatuses))
	fmt.Fprintf(out, "errors        %s\n", countsText(s.Errors))
	if r.firstError != "" {
		fmt.Fprintf(out, "first error   %s\n", r.firstError)
	}
	fmt.Fprintf(out, "throughput    %.0f req/s, %.0f 202/s (whole seconds: slowest %d, median %d 202/s)\n",
		s.RequestsPerSec, s.AcceptedPerSec, s.AcceptedPerSecMin, s.AcceptedPerSecMedian)
	fmt.Fprintf(out, "latency       p50 %.3fms  p90 %.3fms  p99 %.3fms  p99.9 %.3fms  max %.3fms\n",
		s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs)
	fmt.Fprintf(out, "generator     %.2f CPU seconds\n", s.CPUSeconds)
	line, _ := json.Marshal(s)
	fmt.Fprintf(out, "%s\n", line)
}

func countsText(m map[string]uint64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return round(float64(d)/1e6, 3) }

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

// cpuSeconds is the user plus system CPU this process used: on a 2-core machine shared with
// the server, what the generator takes is what the server does not get.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// ---- Latency histogram ----

// histogram is a log-linear histogram of nanoseconds in the manner of HdrHistogram: values
// below 256 ns are exact, larger ones fall in buckets 1/128 of their power of two wide, so a
// reported quantile is within 0.8% of the truth at any scale, in fixed memory, with O(1) adds.
type histogram struct {
	counts []uint64
	n      uint64
	max    time.Duration
}

const (
	histSubBits = 7
	histSub     = 1 << histSubBits             // 128 buckets per power of two
	histBuckets = (64 - histSubBits) * histSub // covers every non-negative int64
)

func (h *histogram) init() { h.counts = make([]uint64, histBuckets) }

func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - histSubBits - 1 // v>>shift is in [128, 256)
	return shift*histSub + int(v>>shift)
}

// histUpper is the largest value of a bucket: quantiles err on the slow side.
func histUpper(i int) uint64 {
	if i < 2*histSub {
		return uint64(i)
	}
	shift := i/histSub - 1
	low := uint64(i%histSub+histSub) << shift
	return low + (1 << shift) - 1
}

func (h *histogram) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[histIndex(uint64(d))]++
	h.n++
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(time.Duration(histUpper(i)), h.max)
		}
	}
	return h.max
}

// ---- The ceiling server ----

// serveNoop answers every POST /api/event with 202 after reading the body, with the timeouts
// of `analytics serve`, until SIGINT/SIGTERM or until lifetime has passed, whichever is first,
// so that a forgotten one does not outlive the benchmark.
func serveNoop(addr string, lifetime, busy time.Duration, stdout io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-noop %q: %w", addr, err)
	}
	if err := requireLoopback(host); err != nil {
		return fmt.Errorf("-noop: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/event", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		// A loop on the clock, not a sleep: the time is spent on a core, as a handler's is.
		for start := time.Now(); time.Since(start) < busy; {
		}
		w.WriteHeader(http.StatusAccepted)
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, lifetime)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "noop: serving on %s for at most %s\n", ln.Addr(), lifetime)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancelShutdown := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelShutdown()
	return srv.Shutdown(shutdown)
}

// ---- Traffic ----

// traffic makes the request mix. Shares are rough public figures for small and medium sites
// (browser market share, referrer mix, ~10% custom events, ~5% bots); what matters for the
// benchmark is the variety the server must classify and count, not the exact percentages.
type traffic struct {
	rng       *rand.Rand
	sites     []siteModel
	siteZipf  *rand.Zipf
	pageZipf  *rand.Zipf
	families  []uaFamily // browser families, each with its distinct user agents
	botUAs    []userAgent
	blogHosts []string
}

type siteModel struct {
	origin string // scheme://host the pages are served from
	paths  []string
}

type userAgent struct {
	ua    string
	class string // desktop, mobile, tablet, tv, bot
}

func newTraffic(seed uint64, domains []string, pages int) *traffic {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	t := &traffic{rng: rng}
	for i, d := range domains {
		origin := "https://" + d
		if i%2 == 1 { // half the sites serve from www., which the server strips
			origin = "https://www." + d
		}
		t.sites = append(t.sites, siteModel{origin: origin, paths: makePaths(rng, pages)})
	}
	// Zipf-like popularity: a few sites and a few pages take most of the traffic, with a long
	// tail of thousands of pages seen now and then.
	t.siteZipf = rand.NewZipf(rng, 1.3, 1, uint64(len(domains)-1))
	t.pageZipf = rand.NewZipf(rng, 1.1, 1, uint64(pages-1))
	t.families = makeUserAgents(rng, 1000)
	t.botUAs = makeBotUserAgents(rng)
	for i := 0; i < 200; i++ {
		t.blogHosts = append(t.blogHosts, fmt.Sprintf("%s%d.%s", pick(rng, blogWords), i, pick(rng, []string{"com", "net", "org", "io", "dev", "co.uk", "de"})))
	}
	return t
}

func (t *traffic) requests(n int) []*request {
	out := make([]*request, n)
	for i := range out {
		out[i] = t.request()
	}
	return out
}

// request makes one hit as the tracker script would send it through a reverse proxy.
func (t *traffic) request() *request {
	rng := t.rng
	site := &t.sites[t.siteZipf.Uint64()]
	f := &t.families[weightedIndex(rng, len(t.families), func(i int) float64 { return t.families[i].weight })]
	ua := f.uas[f.zipf.Uint64()]
	if rng.Float64() < 0.05 {
		ua = t.botUAs[rng.IntN(len(t.botUAs))]
	}
	page := site.origin + site.paths[t.pageZipf.Uint64()] + t.query()
	if rng.Float64() < 0.02 {
		page += "#" + pick(rng, []string{"top", "comments", "pricing", "faq", "section-2"})
	}
	if rng.Float64() < 0.02 {
		page = "http" + strings.TrimPrefix(page, "https") // the odd plain-http page
	}
	body := struct {
		Page             string            `json:"page"`
		Referrer         string            `json:"referrer"`
		ScreenResolution string            `json:"screen_resolution"`
		Event            map[string]string `json:"event,omitempty"`
	}{Page: page, Referrer: t.referrer(site), ScreenResolution: screenFor(rng, ua.class)}
	event := rng.Float64() < 0.10
	if event {
		body.Event = makeEvent(rng)
	}
	encoded, err := json.Marshal(body)
	if err != nil {
		panic(err) // strings and a map of strings always encode
	}

	h := http.Header{}
	// sendBeacon with a text/plain Blob: no CORS preflight.
	h.Set("Content-Type", "text/plain;charset=UTF-8")
	h["User-Agent"] = []string{ua.ua} // "" sends no User-Agent at all (net/http's rule)
	if lang := t.language(ua.class); lang != "" {
		h.Set("Accept-Language", lang)
	}
	h.Set("Accept", "*/*")
	h.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	if ua.class != "bot" {
		// A browser's beacon to another origin; the Referer is the origin alone under the
		// default strict-origin-when-cross-origin policy.
		h.Set("Origin", site.origin)
		h.Set("Referer", site.origin+"/")
		h.Set("Sec-Fetch-Site", "cross-site")
		h.Set("Sec-Fetch-Mode", "no-cors")
		h.Set("Sec-Fetch-Dest", "empty")
	}
	// The reverse proxy in front of the service: many clients behind one peer address.
	h.Set("X-Forwarded-For", t.clientIP())
	h.Set("X-Forwarded-Proto", "https")
	return &request{body: encoded, header: h, event: event, bot: ua.class == "bot"}
}

// query: most pages have none; some carry campaign tags, paging, searches or click ids (the
// last make one-off page values, as they do in real data).
func (t *traffic) query() string {
	rng := t.rng
	switch x := rng.Float64(); {
	case x < 0.04:
		return "?utm_source=" + pick(rng, []string{"newsletter", "twitter", "facebook", "linkedin", "google"}) +
			"&utm_medium=" + pick(rng, []string{"email", "social", "cpc"}) +
			"&utm_campaign=" + pick(rng, campaigns)
	case x < 0.06:
		return "?utm_campaign=" + pick(rng, campaigns)
	case x < 0.09:
		return "?page=" + strconv.Itoa(2+rng.IntN(20))
	case x < 0.11:
		return "?q=" + pick(rng, blogWords) + "+" + pick(rng, slugWords)
	case x < 0.12:
		return "?gclid=" + token(rng, 24)
	case x < 0.13:
		return "?fbclid=" + token(rng, 32)
	case x < 0.14:
		return "?ref=" + pick(rng, []string{"producthunt", "hn", "github", "newsletter"})
	}
	return ""
}

// referrer: direct, search, social, another site, or the same site (an internal navigation,
// which is a pageview but not a visit).
func (t *traffic) referrer(site *siteModel) string {
	rng := t.rng
	switch x := rng.Float64(); {
	case x < 0.30:
		return ""
	case x < 0.55:
		return pick(rng, searchReferrers)
	case x < 0.63:
		return pick(rng, socialReferrers)
	case x < 0.68:
		return "https://" + pick(rng, t.blogHosts) + "/" + pick(rng, slugWords) + "-" + pick(rng, slugWords)
	}
	return site.origin + site.paths[t.pageZipf.Uint64()]
}

func (t *traffic) language(class string) string {
	if class == "bot" && t.rng.Float64() < 0.7 {
		return ""
	}
	return weighted(t.rng, languages)
}

// clientIP is a random public address, one in ten IPv6.
func (t *traffic) clientIP() string {
	rng := t.rng
	if rng.Float64() < 0.10 {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		b[0], b[1] = 0x2a, b[1]&0x0f // 2a00::/12: RIPE's allocations, which GeoIP knows
		return netip.AddrFrom16(b).String()
	}
	for {
		a := netip.AddrFrom4([4]byte{byte(1 + rng.IntN(223)), byte(rng.Uint32()), byte(rng.Uint32()), byte(1 + rng.IntN(254))})
		if !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() && !cgnat.Contains(a) && a.As4()[0] != 0 {
			return a.String()
		}
	}
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func makeEvent(rng *rand.Rand) map[string]string {
	switch x := rng.Float64(); {
	case x < 0.30:
		return map[string]string{"name": "Signup"}
	case x < 0.50:
		return map[string]string{"name": "Purchase", "value": pick(rng, []string{"5", "9.99", "19", "49.90", "120"}), "unit": pick(rng, []string{"USD", "EUR", "GBP"})}
	case x < 0.70:
		return map[string]string{"name": "Outbound Link: Click", "value": "1"}
	case x < 0.85:
		return map[string]string{"name": "Download", "unit": pick(rng, []string{"pdf", "zip", "dmg"})}
	}
	return map[string]string{"name": pick(rng, []string{"Newsletter", "404", "Video Play", "Search", "Share"})}
}

func screenFor(rng *rand.Rand, class string) string {
	switch class {
	case "mobile":
		return weighted(rng, mobileScreens)
	case "tablet":
		return weighted(rng, tabletScreens)
	case "tv":
		return pick(rng, []string{"1920x1080", "1280x720", "3840x2160"})
	case "bot":
		return pick(rng, []string{"", "800x600", "1024x768", "1920x1080", "0x0"})
	}
	return weighted(rng, desktopScreens)
}

// makePaths makes a site's paths: the home page first (the most popular under Zipf), then
// section pages, then a long tail of articles and products.
func makePaths(rng *rand.Rand, n int) []string {
	paths := make([]string, 0, n)
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] && len(paths) < n {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	add("/")
	for _, s := range sections {
		add("/" + s + "/")
	}
	for len(paths) < n {
		p := "/" + pick(rng, sections) + "/" + pick(rng, slugWords) + "-" + pick(rng, slugWords) + "-" + pick(rng, slugWords)
		if rng.Float64() < 0.3 {
			p += "-" + strconv.Itoa(rng.IntN(1000))
		}
		add(p)
	}
	return paths
}

// uaFamily is one browser family's user agents (its versions, devices and builds), ordered by
// popularity: a family's share is its weight, and within it a few versions take most of it.
type uaFamily struct {
	weight float64
	uas    []userAgent
	zipf   *rand.Zipf
}

// makeUserAgents makes about n distinct browser user agents, shared among the families by
// their weights (at least a few each).
func makeUserAgents(rng *rand.Rand, n int) []uaFamily {
	total := 0.0
	for _, f := range browserFamilies {
		total += f.weight
	}
	seen := map[string]bool{}
	out := make([]uaFamily, 0, len(browserFamilies))
	for _, f := range browserFamilies {
		want := max(3, int(float64(n)*f.weight/total))
		var uas []userAgent
		for tries := 0; len(uas) < want && tries < 50*want; tries++ {
			if ua := f.make(rng); !seen[ua] {
				seen[ua] = true
				uas = append(uas, userAgent{ua: ua, class: f.class})
			}
		}
		out = append(out, uaFamily{weight: f.weight, uas: uas, zipf: rand.NewZipf(rng, 1.1, 1, uint64(len(uas)-1))})
	}
	return out
}

func makeBotUserAgents(rng *rand.Rand) []userAgent {
	var out []userAgent
	for _, f := range botFamilies {
		for i := 0; i < 3; i++ {
			out = append(out, userAgent{ua: f(rng), class: "bot"})
		}
	}
	return out
}

// recent picks a version in [lo, hi], skewed towards hi.
func recent(rng *rand.Rand, lo, hi int) int {
	v := hi - int(rng.ExpFloat64()*2)
	return max(v, lo)
}

type family struct {
	weight float64
	class  string
	make   func(rng *rand.Rand) string
}

var browserFamilies = []family{
	{30, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Safari/537.36", recent(r, 109, 131), 5000+r.IntN(1800), r.IntN(200))
	}},
	{8, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", recent(r, 115, 131))
	}},
	{7, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 131)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36 Edg/%d.0.%d.%d", v, v, 2000+r.IntN(900), r.IntN(120))
	}},
	{6, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 133)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:%d.0) Gecko/20100101 Firefox/%d.0", v, v)
	}},
	{2, "desktop", func(r *rand.Rand) string {
		v := recent(r, 115, 133)
		return fmt.Sprintf("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", v, v)
	}},
	{5, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.%d Safari/605.1.15", recent(r, 15, 18), r.IntN(6))
	}},
	{2, "desktop", func(r *rand.Rand) string {
		v := recent(r, 110, 131)
		return fmt.Sprintf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36 OPR/%d.0.0.0", v, v-14)
	}},
	{1, "desktop", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; CrOS x86_64 %d.%d.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", 15000+r.IntN(800), r.IntN(100), recent(r, 118, 131))
	}},
	{22, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Mobile Safari/537.36", recent(r, 112, 131))
	}},
	{18, "mobile", func(r *rand.Rand) string {
		major := recent(r, 15, 18)
		minor := r.IntN(7)
		return fmt.Sprintf("Mozilla/5.0 (iPhone; CPU iPhone OS %d_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.%d Mobile/15E148 Safari/604.1", major, minor, major, minor)
	}},
	{4, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; SAMSUNG SM-%s) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/%d.0 Chrome/%d.0.0.0 Mobile Safari/537.36",
			recent(r, 11, 14), pick(r, []string{"S918B", "A546B", "G991B", "A156B", "S928B"}), recent(r, 20, 26), recent(r, 110, 125))
	}},
	{2, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; Pixel %d Build/AP1A.%d.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/%d.0.%d.%d Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/%d.0.0.%d.%d;]",
			recent(r, 12, 14), 5+r.IntN(4), 240000+r.IntN(999), recent(r, 118, 131), 6000+r.IntN(700), r.IntN(200), 430+r.IntN(50), r.IntN(60), r.IntN(200))
	}},
	{2, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (iPhone; CPU iPhone OS 17_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram %d.0.0.%d.%d (iPhone14,5; iOS 17_%d; en_US; en; scale=3.00; 1170x2532; %d)",
			r.IntN(6), 300+r.IntN(60), r.IntN(40), r.IntN(120), r.IntN(6), 500000000+r.IntN(99999999))
	}},
	{1, "mobile", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Android 14; Mobile; rv:%d.0) Gecko/%d.0 Firefox/%d.0", recent(r, 120, 133), recent(r, 120, 133), recent(r, 120, 133))
	}},
	{3, "tablet", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (iPad; CPU OS %d_%d like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/%d.0 Mobile/15E148 Safari/604.1", recent(r, 15, 18), r.IntN(7), recent(r, 15, 18))
	}},
	{1, "tablet", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android %d; SM-X%d) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0 Safari/537.36", recent(r, 11, 14), 200+r.IntN(700), recent(r, 115, 131))
	}},
	{0.5, "tv", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (SMART-TV; Linux; Tizen %d.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/%d.0 Chrome/%d.0.0.0 TV Safari/537.36", recent(r, 5, 8), recent(r, 3, 7), recent(r, 76, 120))
	}},
	{0.2, "tv", func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (PlayStation; PlayStation 5/%d.%d) AppleWebKit/605.1.15 (KHTML, like Gecko)", recent(r, 2, 9), r.IntN(60))
	}},
}

// botFamilies: crawlers, scripts and headless browsers; some execute the tracker, and the
// server must recognise every one (it answers 202 either way).
var botFamilies = []func(r *rand.Rand) string{
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.%d.%d Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", recent(r, 120, 131), 6000+r.IntN(700), r.IntN(200))
	},
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
	},
	func(*rand.Rand) string { return "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)" },
	func(*rand.Rand) string { return "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)" },
	func(*rand.Rand) string {
		return "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)"
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/%d.0.0.0 Safari/537.36", recent(r, 110, 131))
	},
	func(*rand.Rand) string {
		return "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
	},
	func(r *rand.Rand) string { return fmt.Sprintf("curl/8.%d.%d", r.IntN(12), r.IntN(2)) },
	func(r *rand.Rand) string { return fmt.Sprintf("python-requests/2.%d.0", 25+r.IntN(8)) },
	func(*rand.Rand) string { return "Go-http-client/1.1" },
	func(*rand.Rand) string { return "" }, // no user agent at all
}

var sections = []string{"blog", "docs", "products", "pricing", "about", "news", "category", "tag", "help", "careers", "guides", "changelog"}

var slugWords = []string{"how", "to", "choose", "the", "best", "privacy", "analytics", "tool", "for", "your", "website",
	"guide", "setup", "install", "release", "notes", "pricing", "plans", "team", "growth", "seo", "tips", "why",
	"we", "moved", "from", "cloud", "self", "hosted", "server", "fast", "simple", "open", "source", "api", "dashboard",
	"export", "import", "csv", "report", "weekly", "monthly", "goals", "events", "funnels", "tracking", "cookie",
	"banner", "gdpr", "compliance", "widget", "pro", "starter", "enterprise", "case", "study", "customer", "story"}

var blogWords = []string{"tech", "dev", "notes", "daily", "weekly", "review", "news", "blog", "hub", "lab", "digest", "radar"}

var campaigns = []string{"spring_sale", "black_friday", "launch_2024", "newsletter_42", "webinar", "retargeting",
	"brand", "summer", "product_hunt", "partners", "onboarding", "winback"}

var searchReferrers = []string{"https://www.google.com/", "https://www.google.com/", "https://www.google.com/",
	"https://www.google.de/", "https://www.google.co.uk/", "https://www.google.fr/", "https://www.bing.com/",
	"https://duckduckgo.com/", "https://search.yahoo.com/", "https://yandex.ru/", "https://www.ecosia.org/",
	"https://search.brave.com/", "https://www.baidu.com/"}

var socialReferrers = []string{"https://t.co/", "https://www.facebook.com/", "https://l.facebook.com/", "https://lm.facebook.com/",
	"https://www.reddit.com/", "https://out.reddit.com/", "https://news.ycombinator.com/", "https://www.linkedin.com/",
	"https://www.instagram.com/", "android-app://com.google.android.gm/", "https://mastodon.social/", "https://www.youtube.com/"}

type weightedValue struct {
	value  string
	weight float64
}

var languages = []weightedValue{
	{"en-US,en;q=0.9", 35}, {"en-GB,en;q=0.9", 8}, {"de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", 8},
	{"fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", 6}, {"es-ES,es;q=0.9", 5}, {"pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7", 4},
	{"ja,en-US;q=0.9,en;q=0.8", 3}, {"zh-CN,zh;q=0.9", 3}, {"ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", 3},
	{"it-IT,it;q=0.9", 3}, {"nl-NL,nl;q=0.9,en;q=0.8", 2}, {"pl-PL,pl;q=0.9", 2}, {"en", 3},
	{"sv-SE,sv;q=0.9,en;q=0.8", 1}, {"ko-KR,ko;q=0.9", 1}, {"tr-TR,tr;q=0.9", 1}, {"*", 0.5},
}

var desktopScreens = []weightedValue{
	{"1920x1080", 30}, {"1366x768", 9}, {"1536x864", 9}, {"1440x900", 6}, {"2560x1440", 7}, {"1280x720", 4},
	{"1280x800", 3}, {"1600x900", 3}, {"1680x1050", 2}, {"3840x2160", 2}, {"1512x982", 3}, {"1728x1117", 2},
}

var mobileScreens = []weightedValue{
	{"390x844", 14}, {"393x873", 8}, {"414x896", 8}, {"375x667", 5}, {"412x915", 9}, {"360x800", 8},
	{"393x852", 10}, {"430x932", 6}, {"428x926", 4}, {"384x854", 3}, {"360x780", 3},
}

var tabletScreens = []weightedValue{{"820x1180", 4}, {"768x1024", 4}, {"810x1080", 3}, {"1024x1366", 2}, {"800x1280", 2}}

func weighted(rng *rand.Rand, values []weightedValue) string {
	return values[weightedIndex(rng, len(values), func(i int) float64 { return values[i].weight })].value
}

func weightedIndex(rng *rand.Rand, n int, weight func(int) float64) int {
	total := 0.0
	for i := 0; i < n; i++ {
		total += weight(i)
	}
	x := rng.Float64() * total
	for i := 0; i < n; i++ {
		if x -= weight(i); x < 0 {
			return i
		}
	}
	return n - 1
}

func pick[T any](rng *rand.Rand, values []T) T { return values[rng.IntN(len(values))] }

func token(rng *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func fraction(requests []*request, is func(*request) bool) float64 {
	n := 0
	for _, r := range requests {
		if is(r) {
			n++
		}
	}
	return float64(n) / float64(len(requests))
}

func distinctUserAgents(requests []*request) int {
	seen := map[string]bool{}
	for _, r := range requests {
		seen[r.header.Get("User-Agent")] = true
	}
	return len(seen)
}

func averageBody(requests []*request) int {
	total := 0
	for _, r := range requests {
		total += len(r.body)
	}
	return total / len(requests)
}
