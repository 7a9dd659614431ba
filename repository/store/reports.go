package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// ReportClaim is one owner's report of one period, claimed by this process for sending. The
// claim holds until LeaseUntil; ClaimID tells this claim from a later takeover.
type ReportClaim struct {
	UserID      int64     `db:"user_id"`
	Email       string    `db:"email"`
	Period      string    `db:"period"` // "month" or "week"
	PeriodStart time.Time `db:"period_start"`
	Attempts    int       `db:"attempts"` // this attempt included
	ClaimID     string    `db:"claim_id"`
}

// ReportClaimQuery says which report may be claimed.
type ReportClaimQuery struct {
	Now   time.Time
	Lease time.Duration // how long the claim holds before another process may take it over
	// Period and PeriodStart restrict the claim to one period; "" means any.
	Period      string
	PeriodStart time.Time
	UserID      int64 // restricts the claim to one owner's report; 0 means any
	// IgnoreBackoff claims a pending report even before its next attempt is due (an operator
	// asking for it now).
	IgnoreBackoff bool
}

// ReportDelivery is the state of one report, for the operator.
type ReportDelivery struct {
	UserID        int64      `db:"user_id"`
	Email         string     `db:"email"`
	Status        string     `db:"status"` // pending, sending, sent, skipped
	Attempts      int        `db:"attempts"`
	NextAttemptAt time.Time  `db:"next_attempt_at"`
	LastError     *string    `db:"last_error"`
	SentAt        *time.Time `db:"sent_at"`
}

// ErrClaimLost: the report is no longer this process's claim (its lease ran out and another
// process took it over); the other process's outcome stands.
var ErrClaimLost = errors.New("report claim lost")

// reportedWebsite is the one rule of which websites (w) go into a report for a period that
// ended at $1: email 1, and created before that end (a website added later has nothing to
// report for it).
const reportedWebsite = `w.email = 1 AND w.created_at < $1`

// reportRecipients: who gets a report for a period, an owner of at least one such website.
const reportRecipients = `
		SELECT DISTINCT u.id, u.email
		FROM users u
		JOIN websites w ON w.user_id = u.id
		WHERE ` + reportedWebsite

// ReportRecipients lists the owners who get a report for a period that ended at periodEnd.
func (r *Repository) ReportRecipients(ctx context.Context, periodEnd time.Time) ([]User, error) {
	var users []User
	if err := r.db.SelectContext(ctx, &users, reportRecipients+` ORDER BY u.id`, periodEnd); err != nil {
		return nil, fmt.Errorf("reports.recipients: %w", err)
	}
	return users, nil
}

// EnqueueReports makes the report of a period for every recipient who has none yet, due at
// dueAt, and returns how many it made. Every node may run it at any time: a report that
// exists (sent or not) is left as it is.
func (r *Repository) EnqueueReports(ctx context.Context, period string, start, periodEnd, dueAt time.Time) (int64, error) {
	const query = `
		INSERT INTO report_deliveries (user_id, period, period_start, due_at, next_attempt_at)
		SELECT id, $2, $3, $4, $4
		FROM (` + reportRecipients + `) AS recipients
		ON CONFLICT (user_id, period, period_start) DO NOTHING`
	res, err := r.db.ExecContext(ctx, query, periodEnd, period, start.Format(dateLayout), dueAt)
	if err != nil {
		return 0, fmt.Errorf("reports.enqueue: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// ReportDue is when one owner's report of a period goes out.
type ReportDue struct {
	UserID int64
	DueAt  time.Time
}

// EnqueueReportsDue is EnqueueReports with a due time per owner (each owner's websites count
// their periods in their own zones); owners already holding the period's report are left as
// they are.
func (r *Repository) EnqueueReportsDue(ctx context.Context, period string, start time.Time, dues []ReportDue) (int64, error) {
	if len(dues) == 0 {
		return 0, nil
	}
	const query = `
		INSERT INTO report_deliveries (user_id, period, period_start, due_at, next_attempt_at)
		SELECT u.user_id, $1, $2, u.due_at, u.due_at
		FROM unnest($3::bigint[], $4::timestamptz[]) AS u (user_id, due_at)
		ORDER BY u.user_id
		ON CONFLICT (user_id, period, period_start) DO NOTHING`
	ids := make([]int64, len(dues))
	at := make([]string, len(dues))
	for i, d := range dues {
		ids[i], at[i] = d.UserID, d.DueAt.UTC().Format(time.RFC3339Nano)
	}
	res, err := r.db.ExecContext(ctx, query, period, start.Format(dateLayout), pq.Array(ids), pq.Array(at))
	if err != nil {
		return 0, fmt.Errorf("reports.enqueue: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// ReportedWebsites returns every website that may go into a report for a period that ended
// by latestEnd (its end in the last of all zones): email 1 and created before it, by owner.
// The caller keeps those created before the period's end in their own zone.
func (r *Repository) ReportedWebsites(ctx context.Context, latestEnd time.Time) ([]Website, error) {
	const query = `
		SELECT ` + websiteColumns + `
		FROM websites w
		WHERE ` + reportedWebsite + `
		ORDER BY user_id, domain`
	var out []Website
	if err := r.db.SelectContext(ctx, &out, query, latestEnd); err != nil {
		return nil, fmt.Errorf("reports.websites: %w", err)
	}
	return out, nil
}

// ClaimReport takes one report that is due (pending and past its next attempt, or being sent
// by a process whose lease ran out) and marks it as being sent by the caller; ErrNotFound
// when there is none. SKIP LOCKED lets concurrent claimers pass each other instead of
// waiting, and each report goes to exactly one of them.
func (r *Repository) ClaimReport(ctx context.Context, q ReportClaimQuery) (ReportClaim, error) {
	const query = `
		UPDATE report_deliveries d
		SET status = 'sending', claim_id = gen_random_uuid(), lease_until = $2,
			attempts = d.attempts + 1
		FROM users u
		WHERE u.id = d.user_id AND (d.user_id, d.period, d.period_start) = (
			SELECT user_id, period, period_start
			FROM report_deliveries
			WHERE ((status = 'pending' AND (next_attempt_at <= $1 OR $3))
					OR (status = 'sending' AND lease_until <= $1))
				AND ($4 = '' OR (period = $4 AND period_start = $5::date))
				AND ($6 = 0 OR user_id = $6)
			ORDER BY next_attempt_at, user_id
			LIMIT 1
			FOR UPDATE SKIP LOCKED)
		RETURNING d.user_id, u.email, d.period, d.period_start, d.attempts, d.claim_id`
	start := "1970-01-01"
	if q.Period != "" {
		start = q.PeriodStart.Format(dateLayout)
	}
	var c ReportClaim
	err := r.db.GetContext(ctx, &c, query, q.Now, q.Now.Add(q.Lease), q.IgnoreBackoff, q.Period, start, q.UserID)
	if errors.Is(err, sql.ErrNoRows) {
		return ReportClaim{}, fmt.Errorf("reports.claim: %w", ErrNotFound)
	}
	if err != nil {
		return ReportClaim{}, fmt.Errorf("reports.claim: %w", err)
	}
	return c, nil
}

// FinishReport records a claimed report as sent (status "sent") or as needing no message
// (status "skipped": the owner has no website with email 1 any more); ErrClaimLost when the
// claim was taken over meanwhile.
func (r *Repository) FinishReport(ctx context.Context, c ReportClaim, status string, at time.Time) error {
	const query = `
		UPDATE report_deliveries
		SET status = $5, sent_at = CASE WHEN $5 = 'sent' THEN $6::timestamptz END,
			claim_id = NULL, lease_until = NULL
		WHERE user_id = $1 AND period = $2 AND period_start = $3 AND claim_id = $4`
	return r.updateClaimed(ctx, "reports.finish", query, c, status, at)
}

// RetryReport gives a claimed report back with the error of this attempt, to be tried again
// at next; ErrClaimLost when the claim was taken over meanwhile.
func (r *Repository) RetryReport(ctx context.Context, c ReportClaim, next time.Time, reason string) error {
	const query = `
		UPDATE report_deliveries
		SET status = 'pending', next_attempt_at = $5, last_error = $6,
			claim_id = NULL, lease_until = NULL
		WHERE user_id = $1 AND period = $2 AND period_start = $3 AND claim_id = $4`
	return r.updateClaimed(ctx, "reports.retry", query, c, next, reason)
}

func (r *Repository) updateClaimed(ctx context.Context, op, query string, c ReportClaim, args ...any) error {
	all := append([]any{c.UserID, c.Period, c.PeriodStart.Format(dateLayout), c.ClaimID}, args...)
	res, err := r.db.ExecContext(ctx, query, all...)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrClaimLost)
	}
	return nil
}

// OldestUnsentReport returns when the oldest report not sent yet became due; false when every
// report is sent.
func (r *Repository) OldestUnsentReport(ctx context.Context) (time.Time, bool, error) {
	const query = `
		SELECT min(due_at)
		FROM report_deliveries
		WHERE status IN ('pending', 'sending')`
	var due sql.NullTime
	if err := r.db.GetContext(ctx, &due, query); err != nil {
		return time.Time{}, false, fmt.Errorf("reports.oldest_unsent: %w", err)
	}
	return due.Time, due.Valid, nil
}

// ReportDeliveries lists the reports of one period, by recipient.
func (r *Repository) ReportDeliveries(ctx context.Context, period string, start time.Time) ([]ReportDelivery, error) {
	const query = `
		SELECT d.user_id, u.email, d.status, d.attempts, d.next_attempt_at, d.last_error, d.sent_at
		FROM report_deliveries d
		JOIN users u ON u.id = d.user_id
		WHERE d.period = $1 AND d.period_start = $2
		ORDER BY u.email`
	var out []ReportDelivery
	if err := r.db.SelectContext(ctx, &out, query, period, start.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("reports.list: %w", err)
	}
	return out, nil
}

// ReportWebsites returns the websites of a user that go into a report for a period that ended
// at periodEnd: email 1, created before that end, in domain order.
func (r *Repository) ReportWebsites(ctx context.Context, userID int64, periodEnd time.Time) ([]Website, error) {
	const query = `
		SELECT ` + websiteColumns + `
		FROM websites w
		WHERE w.user_id = $2 AND ` + reportedWebsite + `
		ORDER BY domain`
	var out []Website
	if err := r.db.SelectContext(ctx, &out, query, periodEnd, userID); err != nil {
		return nil, fmt.Errorf("reports.websites: %w", err)
	}
	return out, nil
}
