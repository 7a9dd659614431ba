// Package testkit holds the small test doubles that several packages' tests share.
package testkit

import (
	"bytes"
	"sync"
	"time"
)

// AtOnce runs f(0) ... f(n-1), each in its own goroutine, released together once all are
// started, and returns when all have returned: how long they took from the release. Tests of
// limits under parallel requests use it.
func AtOnce(n int, f func(i int)) time.Duration {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	return time.Since(began)
}

// Clock is an injectable time that only moves when told to, or, made by NewRunningClock, also
// as real time passes.
type Clock struct {
	mu  sync.Mutex
	now time.Time
	// from is the real time at which a running clock read now; zero for a clock that only
	// moves when told to.
	from time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// NewRunningClock starts at t a clock that moves with real time: for a test of what happens
// within seconds of real time (a flush interval, a freshness bound) on a day it chooses, so
// that a run across midnight cannot split its hits over two days.
func NewRunningClock(t time.Time) *Clock { return &Clock{now: t, from: time.Now()} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.from.IsZero() {
		return c.now
	}
	return c.now.Add(time.Since(c.from))
}

func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	if !c.from.IsZero() {
		c.from = time.Now()
	}
}

func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// SyncBuffer is a bytes.Buffer that a logger and a test may use at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
