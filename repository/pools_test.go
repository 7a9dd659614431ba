package repository_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

func openPools(t *testing.T, readTimeout time.Duration) (*repository.Pools, string) {
	t.Helper()
	_, url := repotest.New(t)
	pools, err := repository.OpenPools(context.Background(), url, readTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pools.Close() })
	return pools, url
}

// running is how many statements like the pattern are running in the database now.
func running(t *testing.T, pools *repository.Pools, pattern string) int {
	t.Helper()
	var n int
	err := pools.Main.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadsStopAtTheTimeout: every statement of the reads' pool ends at the read timeout in
// the database itself (statement_timeout), as a timeout (repository.TimedOut); the other
// pools have none.
func TestReadsStopAtTheTimeout(t *testing.T) {
	pools, _ := openPools(t, 300*time.Millisecond)
	ctx := context.Background()
	start := time.Now()
	_, err := pools.Reads.ExecContext(ctx, `SELECT pg_sleep(5)`)
	if !repository.TimedOut(err) {
		t.Fatalf("a 5 s read: %v, want a timeout", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("stopped after %v", took)
	}
	if _, err := pools.Main.ExecContext(ctx, `SELECT pg_sleep(0.6)`); err != nil {
		t.Errorf("main pool: %v", err)
	}
	if _, err := pools.Flush.ExecContext(ctx, `SELECT pg_sleep(0.6)`); err != nil {
		t.Errorf("flush pool: %v", err)
	}
}

// TestCancelledReadStopsInTheDatabase: a read whose context ends (its request left, or its
// time is up) is cancelled in PostgreSQL too (lib/pq sends a cancel request), not left
// running.
func TestCancelledReadStopsInTheDatabase(t *testing.T) {
	pools, _ := openPools(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := pools.Reads.ExecContext(ctx, `SELECT pg_sleep(30) /* cancelled read */`)
	if !repository.TimedOut(err) {
		t.Fatalf("a cancelled read: %v, want a timeout", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for running(t, pools, "%cancelled read%") > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the statement still runs in the database 3 s after its context ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPoolsDoNotWaitForReads: with every connection of the reads' pool busy, /readyz's ping,
// the main pool and the flush's pool answer at once, and the service's repository reads on
// the reads' pool (a read waits, until its context ends).
func TestPoolsDoNotWaitForReads(t *testing.T) {
	pools, _ := openPools(t, 0)
	repo := repository.NewOnPools(pools, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var busy sync.WaitGroup
	for range pools.Reads.Stats().MaxOpenConnections {
		busy.Add(1)
		go func() {
			defer busy.Done()
			pools.Reads.ExecContext(ctx, `SELECT pg_sleep(20) /* busy read */`) //nolint:errcheck // ended by stop
		}()
	}
	defer busy.Wait()
	for running(t, pools, "%busy read%") < pools.Reads.Stats().MaxOpenConnections {
		time.Sleep(20 * time.Millisecond)
	}
	quick, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := repo.Ping(quick); err != nil {
		t.Errorf("ping with every read busy: %v", err)
	}
	if _, err := pools.Main.ExecContext(quick, `SELECT 1`); err != nil {
		t.Errorf("main pool with every read busy: %v", err)
	}
	if _, err := repo.Collection().AllWebsiteSettings(quick); err != nil {
		t.Errorf("the collector's repository with every read busy: %v", err)
	}
	wait, cancelWait := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelWait()
	if _, err := repo.Reader(1, stats.Range{From: date("2026-01-01"), To: date("2026-01-31")}, nil).Totals(wait); !repository.TimedOut(err) {
		t.Errorf("a read with every read connection busy: %v, want it to wait until its context ends", err)
	}
	stop()
}
