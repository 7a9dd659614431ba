package ratelimit

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/testkit"
)

func newClock() *testkit.Clock { return testkit.NewClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)) }

func TestTokenBucket(t *testing.T) {
	clk := newClock()
	l := New(10, 20, clk.Now) // 10 a second, bursts of 20
	a := l.AddrKey(netip.MustParseAddr("203.0.113.5"))
	for i := 0; i < 20; i++ {
		if ok, _ := l.Allow(a); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := l.Allow(a)
	if ok || wait <= 0 || wait > 100*time.Millisecond {
		t.Fatalf("past the burst: ok %v, wait %v; want refused for at most 100 ms", ok, wait)
	}
	if RetryAfter(wait) != 1 {
		t.Fatalf("Retry-After %d, want 1", RetryAfter(wait))
	}
	// Another client is not affected.
	if ok, _ := l.Allow(l.AddrKey(netip.MustParseAddr("203.0.113.6"))); !ok {
		t.Fatal("another address refused")
	}
	// A second refills ten tokens, not more.
	clk.Advance(time.Second)
	if allowed := allowedOf(l, a, 30); allowed != 10 {
		t.Fatalf("%d allowed a second later, want 10", allowed)
	}
	// Long idle: the bucket holds the burst, no more.
	clk.Advance(time.Hour)
	if allowed := allowedOf(l, a, 30); allowed != 20 {
		t.Fatalf("%d allowed after an hour, want the burst of 20", allowed)
	}
	if got := l.limited.Load(); got != 1+20+10 {
		t.Fatalf("%d refusals counted, want 31", got)
	}
}

// Limited only looks; Charge only takes: the cost of a request that is not a guess, known
// after it ran. Only Limited's refusals are counted: Charge refuses nothing.
func TestLimitedAndCharge(t *testing.T) {
	clk := newClock()
	l := New(1, 3, clk.Now)
	k := l.StringKey("198.51.100.1")
	for i := 0; i < 3; i++ {
		if limited, _ := l.Limited(k); limited {
			t.Fatalf("limited after %d charges of 3", i)
		}
		l.Charge(k)
	}
	l.Charge(k) // nothing left to take
	limited, wait := l.Limited(k)
	if !limited || wait != time.Second {
		t.Fatalf("after 3 charges: limited %v, wait %v; want true, 1s", limited, wait)
	}
	if got := l.limited.Load(); got != 1 {
		t.Fatalf("%d refusals counted, want the one Limited answered", got)
	}
	clk.Advance(1500 * time.Millisecond)
	if limited, _ := l.Limited(k); limited {
		t.Fatal("still limited after the wait")
	}
}

// A guess takes its token before it is checked, so however many arrive at once, no more than
// the bucket holds get through; a right one gives its token back.
func TestAllowHoldsUnderParallelRequests(t *testing.T) {
	clk := newClock()
	l := New(10.0/900, 10, clk.Now) // 10 in 15 minutes
	k := l.AddrKey(netip.MustParseAddr("203.0.113.9"))
	const sent = 500
	var allowed atomic.Int64
	testkit.AtOnce(sent, func(int) {
		if ok, _ := l.Allow(k); ok {
			allowed.Add(1)
		}
	})
	if allowed.Load() != 10 || l.limited.Load() != sent-10 {
		t.Fatalf("%d of %d allowed, %d refusals counted; want 10 and %d", allowed.Load(), sent, l.limited.Load(), sent-10)
	}
	// A right guess gives its token back: the next one goes through, once.
	l.Refund(k)
	if ok, _ := l.Allow(k); !ok {
		t.Fatal("refused after a refund")
	}
	if ok, _ := l.Allow(k); ok {
		t.Fatal("a refund gave more than one token")
	}
	// Refunds never fill a bucket past its burst.
	other := l.AddrKey(netip.MustParseAddr("203.0.113.10"))
	for i := 0; i < 5; i++ {
		l.Refund(other)
	}
	if got := allowedOf(l, other, 20); got != 10 {
		t.Fatalf("%d allowed after refunds to a full bucket, want the burst of 10", got)
	}
}

// An IPv6 host can use any address of its /64: the /64 is one client. IPv4-mapped addresses
// are their IPv4 address.
func TestAddressKeys(t *testing.T) {
	l := New(1, 1, nil)
	same := [][2]string{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
	}
	for _, p := range same {
		if l.AddrKey(netip.MustParseAddr(p[0])) != l.AddrKey(netip.MustParseAddr(p[1])) {
			t.Errorf("%s and %s are different clients", p[0], p[1])
		}
	}
	different := [][2]string{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"192.0.2.1", "192.0.2.2"},
		{"0.0.0.0", "::"},
	}
	for _, p := range different {
		if l.AddrKey(netip.MustParseAddr(p[0])) == l.AddrKey(netip.MustParseAddr(p[1])) {
			t.Errorf("%s and %s are one client", p[0], p[1])
		}
	}
	// The key is random per limiter: a hash says nothing outside the process.
	if New(1, 1, nil).StringKey("x") == l.StringKey("x") {
		t.Error("two limiters hash alike")
	}
}

// Memory is bounded: a flood of new clients fills the table and then replaces its entries;
// replacing a client that still owed tokens is counted.
func TestBoundedTable(t *testing.T) {
	clk := newClock()
	l := New(1, 2, clk.Now)
	for i := 0; i < 4*Capacity; i++ {
		k := l.StringKey(string(rune(i)) + "x")
		l.Allow(k)
		l.Allow(k)
		l.Allow(k) // refused: owes a token
	}
	if got := l.clients.Load(); got > Capacity || got < Capacity*9/10 {
		t.Fatalf("%d clients tracked, want at most %d and close to it", got, Capacity)
	}
	if l.evictions.Load() < uint64(2*Capacity) {
		t.Fatalf("%d evictions of owing clients among %d, want most of the overflow", l.evictions.Load(), 4*Capacity)
	}
	// Clients whose buckets refilled are replaced without counting an eviction (the new ones
	// only look, so that they hold full buckets too).
	before := l.evictions.Load()
	clk.Advance(time.Minute)
	for i := 0; i < Capacity; i++ {
		l.Limited(l.StringKey(string(rune(i)) + "y"))
	}
	if after := l.evictions.Load(); after != before {
		t.Fatalf("%d evictions of refilled clients, want 0", after-before)
	}
}

func TestConcurrentUse(t *testing.T) {
	l := New(1000, 2000, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10_000; i++ {
				l.Allow(l.AddrKey(netip.AddrFrom4([4]byte{10, byte(g), byte(i >> 8), byte(i)})))
			}
		}()
	}
	wg.Wait()
}

func BenchmarkAllow(b *testing.B) {
	l := New(1e9, 1e9, nil)
	a := netip.MustParseAddr("203.0.113.5")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow(l.AddrKey(a))
		}
	})
}

// allowedOf sends n requests of a client one after the other and counts those allowed.
func allowedOf(l *Limiter, key uint64, n int) int {
	allowed := 0
	for range n {
		if ok, _ := l.Allow(key); ok {
			allowed++
		}
	}
	return allowed
}
