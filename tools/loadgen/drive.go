package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

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
		if o.visitors {
			r = r.withAddress(newVisitorAddress())
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
