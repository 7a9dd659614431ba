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
func (r *Repository) CreateSession(ctx context.Context, userID int64, ttl time.Duration) (string, error) {
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := r.now().UTC()
	const insert = `
		INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4)`
	if _, err := r.db.ExecContext(ctx, insert, hashKey(token), userID, now, now.Add(ttl)); err != nil {
		return "", fmt.Errorf("sessions.create: %w", err)
	}
	if _, err := r.db.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, now); err != nil {
		return "", fmt.Errorf("sessions.create: forget expired: %w", err)
	}
	return token, nil
}

// SessionUser returns the user a session token signs in; ErrNotFound for an unknown, ended or
// expired session.
func (r *Repository) SessionUser(ctx context.Context, token string) (User, error) {
	const query = `
		SELECT u.id, u.email, u.is_admin
		FROM sessions s
		JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`
	var u User
	err := r.db.GetContext(ctx, &u, query, hashKey(token), r.now().UTC())
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
