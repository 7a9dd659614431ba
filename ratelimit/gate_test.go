package ratelimit

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestGateBoundsParallelRequests: of hundreds of requests of one client entering at once, no
// more than the limit get in, however they interleave; another client is not held back; a
// request that leaves makes room.
func TestGateBoundsParallelRequests(t *testing.T) {
	g := NewGate(4)
	var in, out atomic.Int64
	var start, entered, left sync.WaitGroup
	release := make(chan struct{})
	start.Add(1)
	for range 500 {
		entered.Add(1)
		go func() {
			start.Wait()
			if g.Enter(7) {
				in.Add(1)
				left.Add(1)
				entered.Done()
				<-release
				g.Leave(7)
				left.Done()
				return
			}
			out.Add(1)
			entered.Done()
		}()
	}
	start.Done()
	entered.Wait()
	if in.Load() != 4 || out.Load() != 496 {
		t.Fatalf("%d let in and %d refused of 500, want 4 and 496", in.Load(), out.Load())
	}
	if !g.Enter(8) {
		t.Fatal("another client refused")
	}
	g.Leave(8)
	if g.Enter(7) {
		t.Fatal("a fifth request let in")
	}
	close(release)
	left.Wait()
	if g.inFlight.Load() != 0 || len(g.busy) != 0 {
		t.Fatalf("clients kept after their requests ended: %v", g.busy)
	}
	if !g.Enter(7) {
		t.Fatal("refused after the others left")
	}
	g.Leave(7)
	if g.refused.Load() != 497 {
		t.Errorf("%d refusals counted, want 497", g.refused.Load())
	}
}
