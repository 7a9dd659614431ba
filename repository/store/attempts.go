package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Backoff is the schedule of a limit on password attempts at one target (an account, a
// website), for every node at once.
type Backoff struct {
	// Delays[n-1] is how long after the attempt that made n failures the next attempt may
	// come; past the end of the list, its last. 0 lets the next one come at once.
	Delays []time.Duration
	// Forgive is the time after which one failure is forgotten.
	Forgive time.Duration
}

// delay is how long after its last attempt a target with that many failures waits.
func (b Backoff) delay(failures int) time.Duration {
	if failures <= 0 || len(b.Delays) == 0 {
		return 0
	}
	return b.Delays[min(failures, len(b.Delays))-1]
}

// ChargeAttempt counts an attempt at target before its password is checked, as a failure
// until RefundAttempt says it was right. It returns 0 when the attempt may go on, or how long
// until the next may come: then nothing is counted. One statement decides, so attempts
// arriving at once on any number of nodes are let through one after the other.
func (r *Repository) ChargeAttempt(ctx context.Context, target []byte, b Backoff) (time.Duration, error) {
	delays := make([]int64, len(b.Delays))
	for i, d := range b.Delays {
		delays[i] = d.Milliseconds()
	}
	now := r.now().UTC()
	// Failures forgiven since the last attempt are dropped first; a clock behind another
	// node's forgives nothing.
	const charge = `
		INSERT INTO password_attempts AS a (target, failures, charged_at)
		VALUES ($1, 1, $2)
		ON CONFLICT (target) DO UPDATE
		SET failures = greatest(a.failures - greatest(floor(extract(epoch FROM $2 - a.charged_at) / $4), 0)::integer, 0) + 1,
		    charged_at = $2
		WHERE a.charged_at + coalesce(($3::bigint[])[least(a.failures, cardinality($3::bigint[]))], 0) * interval '1 millisecond' <= $2
		RETURNING failures`
	var failures int
	err := r.db.GetContext(ctx, &failures, charge, target, now, pq.Array(delays), b.Forgive.Seconds())
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("password_attempts.charge: %w", err)
	}
	var last struct {
		Failures  int       `db:"failures"`
		ChargedAt time.Time `db:"charged_at"`
	}
	err = r.db.GetContext(ctx, &last, `SELECT failures, charged_at FROM password_attempts WHERE target = $1`, target)
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // a row just forgotten: try again soon
		return 0, fmt.Errorf("password_attempts.charge: %w", err)
	}
	return max(last.ChargedAt.Add(b.delay(last.Failures)).Sub(now), time.Second), nil
}

// RefundAttempt takes back the count of an attempt that was right.
func (r *Repository) RefundAttempt(ctx context.Context, target []byte) error {
	const refund = `
		UPDATE password_attempts
		SET failures = greatest(failures - 1, 0)
		WHERE target = $1`
	if _, err := r.db.ExecContext(ctx, refund, target); err != nil {
		return fmt.Errorf("password_attempts.refund: %w", err)
	}
	return nil
}

// ForgetAttempts deletes the targets whose every failure has been forgiven by now.
func (r *Repository) ForgetAttempts(ctx context.Context, forgive time.Duration) error {
	const forget = `
		DELETE FROM password_attempts
		WHERE charged_at + failures * $2 * interval '1 second' <= $1`
	if _, err := r.db.ExecContext(ctx, forget, r.now().UTC(), forgive.Seconds()); err != nil {
		return fmt.Errorf("password_attempts.forget: %w", err)
	}
	return nil
}
