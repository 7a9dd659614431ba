package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Traffic alerts (docs/alerts.md): a user's spike and drop alerts of a website, the addresses
// they go to, and the messages to send, claimed so that one node sends each.

// The kinds of alert, and of message: an alert of each, and the confirmation of an address.
const (
	AlertSpike   = "spike"
	AlertDrop    = "drop"
	AlertConfirm = "confirm"
)

// The windows of the alerts: after one, none of its kind for that long. A drop alert is also
// only looked at once it has been set that long (the day measured must be a whole one).
const (
	SpikeWindow = 12 * time.Hour
	DropWindow  = 24 * time.Hour
)

// AlertSettings are a user's alerts of a website: the thresholds (0: that alert is off) and
// the addresses, in the order stored (by address).
type AlertSettings struct {
	Spike, Drop int
	Addresses   []AlertAddress
}

// AlertAddress is an address alerts go to once it is confirmed.
type AlertAddress struct {
	Email       string     `db:"email"`
	CreatedAt   time.Time  `db:"created_at"`
	ConfirmedAt *time.Time `db:"confirmed_at"`
}

// Alerts reads a user's alert settings of a website (its own or not: the caller checks who may
// see it).
func (r *Repository) Alerts(ctx context.Context, websiteID, userID int64) (AlertSettings, error) {
	var kinds []struct {
		Kind      string `db:"kind"`
		Threshold int    `db:"threshold"`
	}
	if err := r.db.SelectContext(ctx, &kinds, `SELECT kind, threshold FROM traffic_alerts WHERE website_id = $1 AND user_id = $2`, websiteID, userID); err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.get: %w", err)
	}
	var out AlertSettings
	for _, k := range kinds {
		if k.Kind == AlertSpike {
			out.Spike = k.Threshold
		} else {
			out.Drop = k.Threshold
		}
	}
	const addresses = `
		SELECT email, created_at, confirmed_at FROM alert_addresses
		WHERE website_id = $1 AND user_id = $2 ORDER BY email`
	if err := r.db.SelectContext(ctx, &out.Addresses, addresses, websiteID, userID); err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.get: %w", err)
	}
	return out, nil
}

// SetAlerts replaces one of a user's websites' alert settings (the rules checked them): the
// thresholds set or removed, addresses no longer listed removed (with their messages not
// sent), new ones added with a confirmation to send. ErrNotFound when the website is not the
// user's.
func (r *Repository) SetAlerts(ctx context.Context, websiteID, userID int64, in AlertSettings) (AlertSettings, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.set: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := getWebsite(ctx, tx, "alerts.set", websiteID, "FOR NO KEY UPDATE"); err != nil {
		return AlertSettings{}, err
	}
	now := r.now().UTC().Truncate(time.Microsecond)
	for kind, threshold := range map[string]int{AlertSpike: in.Spike, AlertDrop: in.Drop} {
		var err error
		if threshold > 0 {
			_, err = tx.ExecContext(ctx, `
				INSERT INTO traffic_alerts (website_id, user_id, kind, threshold, created_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (website_id, user_id, kind) DO UPDATE SET threshold = EXCLUDED.threshold`,
				websiteID, userID, kind, threshold, now)
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM traffic_alerts WHERE website_id = $1 AND user_id = $2 AND kind = $3`, websiteID, userID, kind)
		}
		if err != nil {
			return AlertSettings{}, fmt.Errorf("alerts.set: %s: %w", kind, err)
		}
	}
	emails := make([]string, len(in.Addresses))
	for i, a := range in.Addresses {
		emails[i] = a.Email
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM alert_addresses WHERE website_id = $1 AND user_id = $2 AND email <> ALL($3)`,
		websiteID, userID, pq.Array(emails)); err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.set: addresses: %w", err)
	}
	const add = `
		WITH added AS (
			INSERT INTO alert_addresses (website_id, user_id, email, created_at)
			SELECT $1, $2, e, $4 FROM unnest($3::text[]) AS e ORDER BY e
			ON CONFLICT DO NOTHING
			RETURNING email
		)
		INSERT INTO alert_deliveries (website_id, user_id, email, kind, window_at, next_attempt_at)
		SELECT $1, $2, email, 'confirm', $4, $4 FROM added`
	if _, err := tx.ExecContext(ctx, add, websiteID, userID, pq.Array(emails), now); err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.set: addresses: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return AlertSettings{}, fmt.Errorf("alerts.set: commit: %w", err)
	}
	return r.Alerts(ctx, websiteID, userID)
}

// TrafficAlert is an alert that may be due: its website, user, kind and threshold.
type TrafficAlert struct {
	WebsiteID int64  `db:"website_id"`
	UserID    int64  `db:"user_id"`
	Kind      string `db:"kind"`
	Threshold int    `db:"threshold"`
}

// Window is how long after one alert of its kind the next may come.
func (a TrafficAlert) Window() time.Duration {
	if a.Kind == AlertDrop {
		return DropWindow
	}
	return SpikeWindow
}

// alertsAllowed is the SQL condition that the user of the traffic_alerts row a may still have
// alerts of its website: its owner, or a member whose role may change the settings (an editor
// or an admin), as SetAlerts asked. A member demoted to viewer or removed gets none; the
// settings stay, for a role given back.
const alertsAllowed = `EXISTS (SELECT 1 FROM websites w WHERE w.id = a.website_id AND (w.user_id = a.user_id
	OR EXISTS (SELECT 1 FROM website_members m WHERE m.website_id = w.id AND m.user_id = a.user_id AND m.role IN ('editor', 'admin'))))`

// DueTrafficAlerts lists the alerts that may fire at now: with a confirmed address, their
// window over, a drop alert set a whole window ago, and their user's role still allowing them.
func (r *Repository) DueTrafficAlerts(ctx context.Context, now time.Time) ([]TrafficAlert, error) {
	const query = `
		SELECT a.website_id, a.user_id, a.kind, a.threshold
		FROM traffic_alerts a
		WHERE (a.last_alert_at IS NULL OR a.last_alert_at <= $1::timestamptz - CASE a.kind WHEN 'drop' THEN $3::interval ELSE $2::interval END)
			AND (a.kind <> 'drop' OR a.created_at <= $1::timestamptz - $3::interval)
			AND EXISTS (SELECT 1 FROM alert_addresses d
				WHERE d.website_id = a.website_id AND d.user_id = a.user_id AND d.confirmed_at IS NOT NULL)
			AND ` + alertsAllowed + `
		ORDER BY a.website_id, a.user_id, a.kind`
	var out []TrafficAlert
	if err := r.db.SelectContext(ctx, &out, query, now, interval(SpikeWindow), interval(DropWindow)); err != nil {
		return nil, fmt.Errorf("alerts.due: %w", err)
	}
	return out, nil
}

func interval(d time.Duration) string { return fmt.Sprintf("%d seconds", int64(d/time.Second)) }

// OpenAlertWindow takes the alert's window at now, when no node took it within the window
// (the conditional update of its row orders concurrent nodes: one moves it, the others find it
// moved), and makes a message of measured visitors to each confirmed address. It returns how
// many; 0 when the window was taken already.
func (r *Repository) OpenAlertWindow(ctx context.Context, a TrafficAlert, now time.Time, measured int64) (int, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("alerts.open: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	now = now.UTC().Truncate(time.Microsecond)
	var threshold int
	err = tx.GetContext(ctx, &threshold, `
		UPDATE traffic_alerts a SET last_alert_at = $4
		WHERE website_id = $1 AND user_id = $2 AND kind = $3 AND (last_alert_at IS NULL OR last_alert_at <= $4::timestamptz - $5::interval)
			AND `+alertsAllowed+`
		RETURNING threshold`, a.WebsiteID, a.UserID, a.Kind, now, interval(a.Window()))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("alerts.open: %w", err)
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO alert_deliveries (website_id, user_id, email, kind, window_at, measured, threshold, next_attempt_at)
		SELECT website_id, user_id, email, $3, $4, $5, $6, $4
		FROM alert_addresses WHERE website_id = $1 AND user_id = $2 AND confirmed_at IS NOT NULL
		ORDER BY email`, a.WebsiteID, a.UserID, a.Kind, now, measured, threshold)
	if err != nil {
		return 0, fmt.Errorf("alerts.open: messages: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("alerts.open: commit: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// AlertDelivery is one message to send, claimed by this process until LeaseUntil.
type AlertDelivery struct {
	WebsiteID int64     `db:"website_id"`
	UserID    int64     `db:"user_id"`
	Email     string    `db:"email"`
	Kind      string    `db:"kind"`
	WindowAt  time.Time `db:"window_at"`
	Measured  int64     `db:"measured"`
	Threshold int       `db:"threshold"`
	Attempts  int       `db:"attempts"` // this one included
	ClaimID   string    `db:"claim_id"`
}

// ClaimAlertDelivery takes one message that is due (pending and past its next attempt, or
// being sent by a process whose lease ran out), as ClaimReport takes a report; ErrNotFound
// when there is none.
func (r *Repository) ClaimAlertDelivery(ctx context.Context, now time.Time, lease time.Duration) (AlertDelivery, error) {
	const query = `
		UPDATE alert_deliveries d
		SET status = 'sending', claim_id = gen_random_uuid(), lease_until = $2, attempts = d.attempts + 1
		WHERE (d.website_id, d.user_id, d.email, d.kind, d.window_at) = (
			SELECT website_id, user_id, email, kind, window_at
			FROM alert_deliveries
			WHERE (status = 'pending' AND next_attempt_at <= $1) OR (status = 'sending' AND lease_until <= $1)
			ORDER BY next_attempt_at
			LIMIT 1
			FOR UPDATE SKIP LOCKED)
		RETURNING d.website_id, d.user_id, d.email, d.kind, d.window_at, d.measured, d.threshold, d.attempts, d.claim_id`
	var d AlertDelivery
	err := r.db.GetContext(ctx, &d, query, now, now.Add(lease))
	if errors.Is(err, sql.ErrNoRows) {
		return AlertDelivery{}, fmt.Errorf("alerts.claim: %w", ErrNotFound)
	}
	if err != nil {
		return AlertDelivery{}, fmt.Errorf("alerts.claim: %w", err)
	}
	return d, nil
}

// FinishAlertDelivery records a claimed message as sent (status "sent"), or as needing none
// (status "skipped": its website is no longer the user's); ErrClaimLost when the claim was
// taken over meanwhile.
func (r *Repository) FinishAlertDelivery(ctx context.Context, d AlertDelivery, status string, at time.Time) error {
	return r.updateAlertClaim(ctx, "alerts.finish", `status = $6, sent_at = CASE WHEN $6 = 'sent' THEN $7::timestamptz END`, d, status, at)
}

// RetryAlertDelivery gives a claimed message back with the error of this attempt, to be
// tried again at next; ErrClaimLost when the claim was taken over meanwhile.
func (r *Repository) RetryAlertDelivery(ctx context.Context, d AlertDelivery, next time.Time, reason string) error {
	return r.updateAlertClaim(ctx, "alerts.retry", `status = 'pending', next_attempt_at = $6, last_error = $7`, d, next, reason)
}

func (r *Repository) updateAlertClaim(ctx context.Context, op, set string, d AlertDelivery, args ...any) error {
	query := `
		UPDATE alert_deliveries SET ` + set + `, claim_id = NULL, lease_until = NULL
		WHERE website_id = $1 AND user_id = $2 AND email = $3 AND kind = $4 AND window_at = $5 AND claim_id = $` + fmt.Sprint(6+len(args))
	all := append(append([]any{d.WebsiteID, d.UserID, d.Email, d.Kind, d.WindowAt}, args...), d.ClaimID)
	res, err := r.db.ExecContext(ctx, query, all...)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s: %w", op, ErrClaimLost)
	}
	return nil
}

// AlertAddressOf reads one address of a user's alerts of a website; ErrNotFound when it is
// not (or no longer) listed.
func (r *Repository) AlertAddressOf(ctx context.Context, websiteID, userID int64, email string) (AlertAddress, error) {
	var a AlertAddress
	err := r.db.GetContext(ctx, &a, `SELECT email, created_at, confirmed_at FROM alert_addresses WHERE website_id = $1 AND user_id = $2 AND email = $3`,
		websiteID, userID, email)
	if errors.Is(err, sql.ErrNoRows) {
		return AlertAddress{}, fmt.Errorf("alerts.address: %w", ErrNotFound)
	}
	if err != nil {
		return AlertAddress{}, fmt.Errorf("alerts.address: %w", err)
	}
	return a, nil
}

// ConfirmAlertAddress marks an address confirmed (again: harmless); ErrNotFound when it is no
// longer listed.
func (r *Repository) ConfirmAlertAddress(ctx context.Context, websiteID, userID int64, email string) error {
	res, err := r.db.ExecContext(ctx, `UPDATE alert_addresses SET confirmed_at = coalesce(confirmed_at, $4) WHERE website_id = $1 AND user_id = $2 AND email = $3`,
		websiteID, userID, email, r.now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return fmt.Errorf("alerts.confirm: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("alerts.confirm: %w", ErrNotFound)
	}
	return nil
}

// RemoveAlertAddress removes an address from a user's alerts of a website, with its messages
// not sent (an unsubscription); removing one no longer listed does nothing.
func (r *Repository) RemoveAlertAddress(ctx context.Context, websiteID, userID int64, email string) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM alert_addresses WHERE website_id = $1 AND user_id = $2 AND email = $3`,
		websiteID, userID, email); err != nil {
		return fmt.Errorf("alerts.remove: %w", err)
	}
	return nil
}
