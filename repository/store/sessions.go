package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// CreateSession signs a user in for ttl and returns the session's token, shown once (it goes
// into the cookie); only its SHA-256 is stored. Expired sessions of anyone are deleted on the
// way, so the table never grows with abandoned ones.
// device names the browser ("Firefox on Linux"), as the account page lists the sessions; the
// user agent itself is never stored.
func (r *Repository) CreateSession(ctx context.Context, userID int64, ttl time.Duration, device string) (string, error) {
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := r.now().UTC()
	const insert = `
		INSERT INTO sessions (token_hash, user_id, created_at, expires_at, device, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $3)`
	if _, err := r.db.ExecContext(ctx, insert, hashKey(token), userID, now, now.Add(ttl), device); err != nil {
		return "", fmt.Errorf("sessions.create: %w", err)
	}
	if _, err := r.db.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, now); err != nil {
		return "", fmt.Errorf("sessions.create: forget expired: %w", err)
	}
	return token, nil
}

// SeenInterval is how often a session's last_seen_at is written at most.
const SeenInterval = time.Minute

// SessionUser returns the user a session token signs in; ErrNotFound for an unknown, ended or
// expired session. It notes that the session was seen, at most once a SeenInterval.
func (r *Repository) SessionUser(ctx context.Context, token string) (User, error) {
	// The UPDATE runs whether or not the SELECT reads it (a data-modifying WITH always does),
	// and writes only a session last seen a minute ago or more: one round trip a page.
	const query = `
		WITH seen AS (
			UPDATE sessions SET last_seen_at = $2
			WHERE token_hash = $1 AND expires_at > $2 AND last_seen_at <= $3)
		SELECT ` + sessionUserColumns + `
		FROM sessions s
		JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`
	now := r.now().UTC()
	var u User
	err := r.db.GetContext(ctx, &u, query, hashKey(token), now, now.Add(-SeenInterval))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("sessions.user: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("sessions.user: %w", err)
	}
	return u, nil
}

// DeleteSession signs a session out; an unknown token is not an error (signing out twice is
// fine).
func (r *Repository) DeleteSession(ctx context.Context, token string) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = $1`, hashKey(token)); err != nil {
		return fmt.Errorf("sessions.delete: %w", err)
	}
	return nil
}

// Session is a signed-in browser of a user, as the account page lists it (never its token).
type Session struct {
	ID         int64     `db:"id"`
	Device     string    `db:"device"`
	CreatedAt  time.Time `db:"created_at"`
	LastSeenAt time.Time `db:"last_seen_at"`
	Current    bool      `db:"current"` // the session of the token asked with
}

// Sessions lists a user's sessions that have not expired, the last seen first; Current marks
// the one of token.
func (r *Repository) Sessions(ctx context.Context, userID int64, token string) ([]Session, error) {
	const query = `
		SELECT id, device, created_at, last_seen_at, token_hash = $3 AS current
		FROM sessions
		WHERE user_id = $1 AND expires_at > $2
		ORDER BY last_seen_at DESC, id DESC`
	var out []Session
	if err := r.db.SelectContext(ctx, &out, query, userID, r.now().UTC(), hashKey(token)); err != nil {
		return nil, fmt.Errorf("sessions.list: %w", err)
	}
	return out, nil
}

// EndSession signs one of a user's sessions out; ErrNotFound when the user has no such session.
func (r *Repository) EndSession(ctx context.Context, userID, id int64) error {
	res, err := r.db.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1 AND id = $2`, userID, id)
	if err != nil {
		return fmt.Errorf("sessions.end: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("sessions.end: %w", ErrNotFound)
	}
	return nil
}

// EndOtherSessions signs every session of a user out but the one of keep.
func (r *Repository) EndOtherSessions(ctx context.Context, userID int64, keep string) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, userID, hashKey(keep)); err != nil {
		return fmt.Errorf("sessions.end_others: %w", err)
	}
	return nil
}
