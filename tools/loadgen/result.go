package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
