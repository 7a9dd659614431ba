package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// Each job runs every period; a failure is logged and counted and the job runs again; stop
// waits for a running job to return, and for a loop until it has returned.
func TestRunnerRunsJobsAndStopWaitsForThem(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	reg := prometheus.NewRegistry()
	var runs, running, loopDone atomic.Int32
	jobs := []Job{
		{Name: "holding job", Period: 10 * time.Millisecond, Run: func(ctx context.Context) error {
			running.Add(1)
			defer running.Add(-1)
			runs.Add(1)
			<-ctx.Done() // holds on until stop: stop must wait for it
			time.Sleep(50 * time.Millisecond)
			return errors.New("stopped")
		}},
		{Name: "failing job", Period: 10 * time.Millisecond, Run: func(context.Context) error {
			return errors.New("boom")
		}},
		{Name: "good job", Period: 10 * time.Millisecond, Run: func(context.Context) error { return nil }},
		{Name: "loop", Period: time.Hour, Loop: func(ctx context.Context) {
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond)
			loopDone.Store(1)
		}},
	}
	r := newRunner(jobs, reg, slog.New(slog.NewTextHandler(logs, nil)))
	r.start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for (runs.Load() == 0 || testutil.ToFloat64(r.failures.WithLabelValues("failing job")) < 2 ||
		testutil.ToFloat64(r.lastSuccess.WithLabelValues("good job")) == 0) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if runs.Load() == 0 {
		t.Fatal("the holding job never ran")
	}
	if n := testutil.ToFloat64(r.failures.WithLabelValues("failing job")); n < 2 {
		t.Fatalf("the failing job failed %v times, want it to run again after failing", n)
	}
	if ts := testutil.ToFloat64(r.lastSuccess.WithLabelValues("good job")); time.Since(time.Unix(int64(ts), 0)) > time.Minute {
		t.Fatalf("last success of the good job %v", ts)
	}
	r.stop(context.Background())
	if running.Load() != 0 {
		t.Fatal("stop returned while a job was still running")
	}
	if loopDone.Load() != 1 {
		t.Fatal("stop returned before the loop did")
	}
	if !strings.Contains(logs.String(), "failing job failed; will retry") {
		t.Fatalf("a failing job is not logged: %s", logs)
	}
	// The holding job's error came after stop had cancelled it: not a failure.
	if n := testutil.ToFloat64(r.failures.WithLabelValues("holding job")); n != 0 {
		t.Fatalf("a job cut short by stop counted as failed %v times", n)
	}
}

// The service's background work is one list, each job with a name, a period and exactly one
// of Run and Loop.
func TestJobList(t *testing.T) {
	db, _ := repotest.New(t)
	a, err := New(context.Background(), repository.New(db, nil), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, job := range a.Jobs() {
		if job.Name == "" || job.Period <= 0 || (job.Run == nil) == (job.Loop == nil) {
			t.Errorf("job %+v: want a name, a period and one of Run and Loop", job)
		}
		names = append(names, job.Name)
	}
	want := []string{"flush counters", "reload website settings", "forget old flush ids",
		"roll up ended weeks and months", "send e-mail reports", "forget forgiven password attempts",
		"record API key use", "send account mail", "forget expired account links",
		"rotate visitor salts", "forget old realtime data", "keep visit row partitions"}
	if strings.Join(names, ", ") != strings.Join(want, ", ") {
		t.Fatalf("jobs %q, want %q", names, want)
	}
}
