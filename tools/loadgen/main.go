// Command loadgen is the load generator of the benchmarks (make bench-ingest, make bench-flood):
// a tool beside the service, not part of it. It drives the tracker endpoint (POST /api/event)
// with realistic mixed traffic and reports what the server answered and how fast: requests,
// answers by status, throughput and latency percentiles, then the same figures as one JSON line
// (the last line of stdout).
//
//	loadgen -url http://127.0.0.1:8080/api/event -duration 60s -concurrency 8 -sites a.test,b.test
//	loadgen -url ... -rate 15000 -concurrency 64    # open loop: latency from each scheduled send
//	loadgen -url ... -flood 198.51.100.66            # one address, a new user agent every request
//	loadgen -url ... -visitors                       # a new client address (visitor) every request
//	loadgen -shields a.test                          # the benchmarks' shields of a.test, as JSON
//	loadgen -url ... -big-props 198.51.100.77        # one visitor's Plausible hits, each with 30 long properties
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
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
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
	visitors    bool
	shields     string
	bigProps    string
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
	fs.BoolVar(&o.visitors, "visitors", false, "every request from a client address never used before: a new visitor, whose visit the server holds until VISIT_TIMEOUT (RSS with many open visits)")
	fs.StringVar(&o.flood, "flood", "", "be a flood from this one client address: every request a visit of the first site with a user agent never seen before")
	fs.StringVar(&o.shields, "shields", "", "print the benchmarks' shields of this website (50 countries, 50 page patterns, 20 hostnames) as the JSON of its API form, and exit")
	fs.StringVar(&o.bigProps, "big-props", "", "be one visitor at this client address, one user agent, sending Plausible pageviews of the first site, each with a 240-character path and the same 30 properties of 250 random letters (the visit row that grows)")
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
	if o.shields != "" {
		return printShields(o.shields, stdout)
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
	if o.bigProps != "" {
		if _, err := netip.ParseAddr(o.bigProps); err != nil {
			return fmt.Errorf("-big-props %q: not an address", o.bigProps)
		}
		requests = bigPropsRequests(o.seed, o.sites[0], o.bigProps, o.pool)
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
