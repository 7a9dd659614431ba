package main

import (
	"log/slog"
	"net/http"
	_ "net/http/pprof" // registers the profiler on http.DefaultServeMux, which only PPROF_ADDR serves
	"os"
	"time"
)

// servePprof serves Go's profiler on PPROF_ADDR (say 127.0.0.1:6060), apart from the service's
// own listener, when it is set: `make bench-ingest` with BENCH_PROFILE takes CPU and allocation
// profiles of the server under load through it. Unset, nothing listens.
func servePprof(log *slog.Logger) {
	addr := os.Getenv("PPROF_ADDR")
	if addr == "" {
		return
	}
	srv := &http.Server{Addr: addr, Handler: http.DefaultServeMux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		log.Info("profiler listening", "addr", addr)
		if err := srv.ListenAndServe(); err != nil {
			log.Error("profiler stopped", "error", err)
		}
	}()
}
