package repository

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// apiKeyPrefix marks our keys so that a leaked one is recognisable in a secret scanner.
const apiKeyPrefix = "pa_"

// User owns websites and API keys.
type User struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
}

// CreateUser adds a user; ErrConflict if the e-mail is taken.
func (r *Repository) CreateUser(ctx context.Context, email string) (User, error) {
	const query = `
		INSERT INTO users (email, created_at)
		VALUES ($1, $2)
		RETURNING id, email`
	var u User
	err := r.db.GetContext(ctx, &u, query, strings.TrimSpace(email), r.now().UTC())
	if isUniqueViolation(err) {
		return User{}, fmt.Errorf("users.create: %w", ErrConflict)
	}
	if err != nil {
		return User{}, fmt.Errorf("users.create: %w", err)
	}
	return u, nil
}

// UserByEmail finds a user; ErrNotFound if there is none.
func (r *Repository) UserByEmail(ctx context.Context, email string) (User, error) {
	const query = `
		SELECT id, email
		FROM users
		WHERE email = $1`
	var u User
	err := r.db.GetContext(ctx, &u, query, strings.TrimSpace(email))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("users.by_email: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("users.by_email: %w", err)
	}
	return u, nil
}

// SetUserPassword sets the sign-in password (its hash) of the user with that e-mail and ends
// all of the user's sessions, in one transaction: a new password signs every browser out.
// ErrNotFound if there is no such user.
func (r *Repository) SetUserPassword(ctx context.Context, email, hash string) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.set_password: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	var id int64
	err = tx.GetContext(ctx, &id, `UPDATE users SET password_hash = $2 WHERE email = $1 RETURNING id`,
		strings.TrimSpace(email), hash)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("users.set_password: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("users.set_password: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1`, id); err != nil {
		return fmt.Errorf("users.set_password: end sessions: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("users.set_password: commit: %w", err)
	}
	return nil
}

// UserPasswordHash returns the user with that e-mail and the hash of their sign-in password,
// "" when none is set. ErrNotFound if there is no such user.
func (r *Repository) UserPasswordHash(ctx context.Context, email string) (User, string, error) {
	const query = `
		SELECT id, email, coalesce(password_hash, '') AS password_hash
		FROM users
		WHERE email = $1`
	var row struct {
		User
		PasswordHash string `db:"password_hash"`
	}
	err := r.db.GetContext(ctx, &row, query, strings.TrimSpace(email))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, "", fmt.Errorf("users.password_hash: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, "", fmt.Errorf("users.password_hash: %w", err)
	}
	return row.User, row.PasswordHash, nil
}

// CreateAPIKey makes a new random key for a user and returns it. The key itself is shown once,
// here; only its SHA-256 is stored.
func (r *Repository) CreateAPIKey(ctx context.Context, userID int64) (string, error) {
	key := apiKeyPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
	const query = `
		INSERT INTO api_keys (user_id, key_hash, created_at)
		VALUES ($1, $2, $3)`
	if _, err := r.db.ExecContext(ctx, query, userID, hashKey(key), r.now().UTC()); err != nil {
		return "", fmt.Errorf("api_keys.create: %w", err)
	}
	return key, nil
}

// RevokeAPIKey deletes a key so that it stops working at once; ErrNotFound if it is unknown.
func (r *Repository) RevokeAPIKey(ctx context.Context, key string) error {
	const query = `
		DELETE FROM api_keys
		WHERE key_hash = $1`
	res, err := r.db.ExecContext(ctx, query, hashKey(key))
	if err != nil {
		return fmt.Errorf("api_keys.revoke: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("api_keys.revoke: %w", ErrNotFound)
	}
	return nil
}

// UserIDByAPIKey authenticates a key; ErrNotFound for an unknown or revoked one.
func (r *Repository) UserIDByAPIKey(ctx context.Context, key string) (int64, error) {
	const query = `
		SELECT user_id
		FROM api_keys
		WHERE key_hash = $1`
	var id int64
	err := r.db.GetContext(ctx, &id, query, hashKey(key))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("api_keys.authenticate: %w", ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("api_keys.authenticate: %w", err)
	}
	return id, nil
}

func hashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	// crypto/rand.Read never fails on supported platforms (Go 1.24+ panics instead).
	_, _ = rand.Read(b)
	return b
}
