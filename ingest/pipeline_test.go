package ingest

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// A job handed to Start runs each period beside the pipeline's own; a failure is logged and
// the job runs again; Stop waits for a running job to return before it drains.
func TestStartRunsMoreJobsAndStopWaitsForThem(t *testing.T) {
	db, _ := repotest.New(t)
	logs := &testkit.SyncBuffer{}
	p := NewPipeline(repository.New(db, nil), Config{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(logs, nil)))
	var runs, running atomic.Int32
	job := Job{Name: "test job", Period: 10 * time.Millisecond, Run: func(ctx context.Context) error {
		running.Add(1)
		defer running.Add(-1)
		runs.Add(1)
		<-ctx.Done() // holds on until Stop: Stop must wait for it
		time.Sleep(50 * time.Millisecond)
		return errors.New("stopped")
	}}
	failing := Job{Name: "failing job", Period: 10 * time.Millisecond, Run: func(context.Context) error {
		return errors.New("boom")
	}}
	if err := p.Start(context.Background(), job, failing); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for (runs.Load() == 0 || !strings.Contains(logs.String(), "failing job failed; will retry")) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if runs.Load() == 0 {
		t.Fatal("the job handed to Start never ran")
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if running.Load() != 0 {
		t.Fatal("Stop returned while a job was still running")
	}
	if !strings.Contains(logs.String(), "failing job failed; will retry") {
		t.Fatalf("a failing job is not logged: %s", logs)
	}
}
