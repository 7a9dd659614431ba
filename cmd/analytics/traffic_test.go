package main

// The senders of pageview hits of the fault tests (fault_test.go), and their tallies: what
// each server answered, by phase of the test.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// senderLimit stops every sender by itself, even when a test fails before stopping it.
const senderLimit = 30 * time.Second

// maxPhases is how many phases a test may mark; a hit whose phase changed while in flight is
// tallied apart (index maxPhases), so that "during the outage" means sent and answered in it.
const maxPhases = 4

type phaseTally struct {
	accepted    atomic.Int64 // 202: the server promised to count it
	unavailable atomic.Int64 // 503: the buffer was full; not counted
	failed      atomic.Int64 // no answer (refused, reset): the collector never ran for it
}

type hitTally struct {
	phase [maxPhases + 1]phaseTally
	// timedOut hits have an unknown fate (the server may have counted them): the exact
	// comparison would mean nothing, so any of them fails the test.
	timedOut atomic.Int64
	// other statuses are a bug of the test or of the server.
	other      atomic.Int64
	otherFirst atomic.Pointer[string]
}

func (h *hitTally) sum(get func(*phaseTally) *atomic.Int64) int64 {
	var n int64
	for i := range h.phase {
		n += get(&h.phase[i]).Load()
	}
	return n
}

func (h *hitTally) accepted() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.accepted })
}

func (h *hitTally) unavailable() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.unavailable })
}

func (h *hitTally) failed() int64 {
	return h.sum(func(p *phaseTally) *atomic.Int64 { return &p.failed })
}

// hitSender posts pageviews to one server, round-robin over hosts and paths, from a few
// goroutines, until stopped or senderLimit.
type hitSender struct {
	target *serverProc
	hosts  []string
	pages  int           // distinct paths per host; 0 means a new path for every hit
	pause  time.Duration // between two hits of one goroutine, to leave CPU to PostgreSQL
	phase  *atomic.Int32 // the test's phase, for the tally; nil means phase 0
	client *http.Client
	seq    atomic.Int64
	tally  hitTally
}

func newHitSender(target *serverProc, hosts []string, pages int, phase *atomic.Int32) *hitSender {
	return &hitSender{
		target: target, hosts: hosts, pages: pages, phase: phase,
		// A generous timeout: a client that gives up on a hit the server has counted would
		// break the exact comparison; timeouts are tallied and fail the test.
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			Proxy: nil, MaxIdleConnsPerHost: 16, DisableCompression: true,
		}},
	}
}

// start runs n goroutines; the returned stop waits for them and may be called more than once.
func (s *hitSender) start(t *testing.T, n int) (stop func()) {
	ctx, cancel := context.WithTimeout(context.Background(), senderLimit)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				s.hit()
				if s.pause > 0 {
					time.Sleep(s.pause)
				}
			}
		}()
	}
	stop = func() {
		cancel()
		wg.Wait()
		s.client.CloseIdleConnections()
	}
	t.Cleanup(stop)
	return stop
}

func (s *hitSender) currentPhase() int {
	if s.phase == nil {
		return 0
	}
	return int(s.phase.Load())
}

// hit posts one pageview. The request carries no context: cancelling it in flight could leave
// a hit counted by the server and not by the test.
func (s *hitSender) hit() {
	i := s.seq.Add(1)
	host := s.hosts[i%int64(len(s.hosts))]
	path := i
	if s.pages > 0 {
		path = (i / int64(len(s.hosts))) % int64(s.pages)
	}
	body := fmt.Sprintf(`{"page":"https://%s/p%d","referrer":"","screen_resolution":"1x1"}`, host, path)
	req, err := http.NewRequest(http.MethodPost, s.target.base+"/api/event", strings.NewReader(body))
	if err != nil {
		panic(err) // a constant URL shape: cannot happen
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", browserUA)
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	req.Header.Set("X-Forwarded-For", visitorIP)

	before := s.currentPhase()
	resp, err := s.client.Do(req)
	after := s.currentPhase()
	bucket := &s.tally.phase[maxPhases]
	if before == after {
		bucket = &s.tally.phase[after]
	}
	if err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			s.tally.timedOut.Add(1)
			return
		}
		bucket.failed.Add(1)
		time.Sleep(5 * time.Millisecond) // a refusing port answers at once: do not spin
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusAccepted:
		bucket.accepted.Add(1)
	case http.StatusServiceUnavailable:
		bucket.unavailable.Add(1)
	default:
		s.tally.other.Add(1)
		msg := fmt.Sprintf("%d for %s", resp.StatusCode, body)
		s.tally.otherFirst.CompareAndSwap(nil, &msg)
	}
}

// checkClean fails on hits of unknown fate or unexpected statuses.
func (s *hitSender) checkClean(t *testing.T, name string) {
	t.Helper()
	if n := s.tally.timedOut.Load(); n > 0 {
		t.Errorf("%s: %d hits timed out; their fate is unknown", name, n)
	}
	if n := s.tally.other.Load(); n > 0 {
		t.Errorf("%s: %d hits answered neither 202 nor 503, first: %s", name, n, *s.tally.otherFirst.Load())
	}
}
