package ingest

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// BenchmarkOpenVisits measures the memory an open visit takes (bytes/visit: the heap held by
// the visits, their map entries and their pages, per visit), holding b.N visits of distinct
// visitors, each with its own landing and exit page as a real visit has (paths of about 30
// bytes, counted too). MAX_OPEN_VISITS times it is what a node's visits can take:
//
//	go test -run '^$' -bench OpenVisits -benchtime 1000000x ./ingest/
func BenchmarkOpenVisits(b *testing.B) {
	counters := NewCounters(1 << 30)
	visits := NewVisits(time.Hour, b.N+visitShards, DefaultMaxVisitsPerAddress, counters, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC).UnixNano()
	for i := 0; i < b.N; i++ {
		var key VisitorKey
		key[0], key[1], key[2], key[3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		addr := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		h := visitHit{websiteID: 1, key: key, addr: addr, at: start, day: 20516, hour: 10, kind: hitPageview, page: fmt.Sprintf("/blog/2026/03/post-number-%06d", 2*i)}
		visits.hit(&h)
		h.at += int64(time.Second)
		h.page = fmt.Sprintf("/blog/2026/03/post-number-%06d", 2*i+1)
		visits.hit(&h)
	}
	b.StopTimer()
	// Measured before the flusher collects them: the dirty list (a pointer a visit) counts,
	// the counters they will emit and their rows (written and dropped by the flush) do not.
	counters.releaseWaiting()
	counters.take()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if open := visits.Open(); open != b.N {
		b.Fatalf("%d visits open, want %d", open, b.N)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "bytes/visit")
	runtime.KeepAlive(visits)
}
