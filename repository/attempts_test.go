package repository_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// Attempts at one target from many nodes at once: one statement decides each, so exactly as
// many get through as the schedule lets come at once, and the others are told how long to
// wait. A right attempt's refund lets the next one through; failures are forgiven with time,
// and a target whose failures are all forgiven is forgotten.
func TestChargeAttempt(t *testing.T) {
	db, _ := repotest.New(t)
	ctx := context.Background()
	clk := testkit.NewClock(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	backoff := repository.Backoff{Delays: []time.Duration{0, 0, time.Second, time.Minute}, Forgive: time.Hour}
	target := make([]byte, 32)
	target[0] = 1

	var allowed atomic.Int64
	testkit.AtOnce(200, func(int) {
		wait, err := repository.New(db, clk.Now).ChargeAttempt(ctx, target, backoff) // a node each
		if err != nil {
			t.Error(err)
			return
		}
		if wait == 0 {
			allowed.Add(1)
		} else if wait != time.Second {
			t.Errorf("told to wait %v, want 1s", wait)
		}
	})
	if allowed.Load() != 3 {
		t.Fatalf("%d attempts of 200 let through at once, want 3", allowed.Load())
	}
	repo := repository.New(db, clk.Now)
	charge := func() time.Duration {
		t.Helper()
		wait, err := repo.ChargeAttempt(ctx, target, backoff)
		if err != nil {
			t.Fatal(err)
		}
		return wait
	}
	clk.Advance(time.Second)
	if wait := charge(); wait != 0 {
		t.Fatalf("after the delay: wait %v", wait)
	}
	if wait := charge(); wait != time.Minute {
		t.Fatalf("after 4 failures: wait %v, want the last delay, 1m", wait)
	}
	// A refund takes the last count back: 3 failures wait 1s, not 1m.
	if err := repo.RefundAttempt(ctx, target); err != nil {
		t.Fatal(err)
	}
	if wait := charge(); wait != time.Second {
		t.Fatalf("after a refund: wait %v, want 1s", wait)
	}
	// Two hours forgive two of the three failures: two attempts come at once again.
	clk.Advance(2 * time.Hour)
	for i := range 2 {
		if wait := charge(); wait != 0 {
			t.Fatalf("two hours later, attempt %d: wait %v", i+1, wait)
		}
	}
	if wait := charge(); wait != time.Second {
		t.Fatalf("two hours later, the third: wait %v, want 1s", wait)
	}
	// Another target is not held by this one.
	other := make([]byte, 32)
	if wait, err := repo.ChargeAttempt(ctx, other, backoff); err != nil || wait != 0 {
		t.Fatalf("another target: wait %v, %v", wait, err)
	}
	var rows int
	count := func() int {
		t.Helper()
		if err := db.Get(&rows, `SELECT count(*) FROM password_attempts`); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	clk.Advance(90 * time.Minute) // the other's one failure is forgiven, not this one's three
	if err := repo.ForgetAttempts(ctx, backoff.Forgive); err != nil || count() != 1 {
		t.Fatalf("after 90 minutes: %d targets (%v), want 1", rows, err)
	}
	clk.Advance(2 * time.Hour)
	if err := repo.ForgetAttempts(ctx, backoff.Forgive); err != nil || count() != 0 {
		t.Fatalf("after 3.5 hours: %d targets (%v), want 0", rows, err)
	}
}
