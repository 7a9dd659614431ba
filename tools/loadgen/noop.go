package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

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
