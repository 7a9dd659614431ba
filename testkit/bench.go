package testkit

import (
	"slices"
	"testing"
	"time"
)

// TimeCalls times b.N calls of call, stops the benchmark at the first error, and reports the
// calls' p50, p95 and p99 in milliseconds: the latency benchmarks' one measure (make bench).
func TimeCalls(b *testing.B, call func() error) {
	b.Helper()
	latencies := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, time.Since(t0))
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
