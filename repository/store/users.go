package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// apiKeyPrefix marks our keys so that a leaked one is recognisable in a secret scanner.
const apiKeyPrefix = "pa_"

// User owns websites and API keys.
type User struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
	// IsAdmin: the user manages users at /admin/users.
	IsAdmin bool `db:"is_admin"`
	// TOTP: two-factor sign-in is on; TOTPRequired: the service requires it of everyone. Read
	// with the session only (SessionUser).
	TOTP         bool `db:"totp"`
	TOTPRequired bool `db:"totp_required"`
}

// CreateUser adds a user, an admin when it is the first; ErrConflict if the e-mail is taken,
// compared without regard to case.
func (r *Repository) CreateUser(ctx context.Context, email string) (User, error) {
	return r.createUser(ctx, r.db, email, false)
}

// CreateAdmin adds a user who is an admin; ErrConflict if the e-mail is taken.
func (r *Repository) CreateAdmin(ctx context.Context, email string) (User, error) {
	return r.createUser(ctx, r.db, email, true)
}

func (r *Repository) createUser(ctx context.Context, db sqlx.QueryerContext, email string, admin bool) (User, error) {
	const query = `
		INSERT INTO users (email, created_at, is_admin)
		VALUES ($1, $2, $3 OR NOT EXISTS (SELECT 1 FROM users))
		RETURNING id, email, is_admin`
	var u User
	err := sqlx.GetContext(ctx, db, &u, query, strings.TrimSpace(email), r.now().UTC(), admin)
	if isUniqueViolation(err) {
		return User{}, fmt.Errorf("users.create: %w", ErrConflict)
	}
	if err != nil {
		return User{}, fmt.Errorf("users.create: %w", err)
	}
	return u, nil
}

// byEmail is the condition that finds a user by e-mail, compared without regard to case; of
// accounts that differ only by case (kept from before, see migration 0016) the exact spelling
// comes first, then the oldest.
const byEmail = `lower(email) = lower($1) ORDER BY email = $1 DESC, id LIMIT 1`

// UserByEmail finds a user; ErrNotFound if there is none.
func (r *Repository) UserByEmail(ctx context.Context, email string) (User, error) {
	const query = `
		SELECT id, email, is_admin
		FROM users
		WHERE ` + byEmail
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

// SetUserPassword sets the sign-in password (its hash) of the user with that e-mail, ends all
// of the user's sessions and voids the user's unused links, in one transaction: a new password
// signs every browser out and closes every link that would set another.
// ErrNotFound if there is no such user.
func (r *Repository) SetUserPassword(ctx context.Context, email, hash string) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.set_password: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	// Locked, links voided, then written: the order of lockUser.
	var id int64
	err = tx.GetContext(ctx, &id, `SELECT id FROM users WHERE id = (SELECT id FROM users WHERE `+byEmail+`) FOR UPDATE`,
		strings.TrimSpace(email))
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("users.set_password: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("users.set_password: %w", err)
	}
	if err := r.voidUserLinks(ctx, tx, id); err != nil {
		return fmt.Errorf("users.set_password: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, id, hash); err != nil {
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
		SELECT id, email, is_admin, coalesce(password_hash, '') AS password_hash
		FROM users
		WHERE ` + byEmail
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

// CreateAPIKey makes a new random key, with no name, for a user and returns it. The key
// itself is shown once, here; only its SHA-256 is stored.
func (r *Repository) CreateAPIKey(ctx context.Context, userID int64) (string, error) {
	key, _, err := r.CreateNamedAPIKey(ctx, userID, "")
	return key, err
}

// Scopes of an API key, by Plausible's names: ScopeStatsRead reads only (any GET, the stats,
// the query API); ScopeSitesProvision also changes websites, goals and funnels.
const (
	ScopeStatsRead      = "stats:read"
	ScopeSitesProvision = "sites:provision"
)

// CreateNamedAPIKey makes a new random key of every right with a name (the owner's note, at
// most 100 characters) and returns the key, shown once, and its id.
func (r *Repository) CreateNamedAPIKey(ctx context.Context, userID int64, name string) (string, int64, error) {
	return r.CreateScopedAPIKey(ctx, userID, name, ScopeSitesProvision)
}

// CreateScopedAPIKey is CreateNamedAPIKey with a scope (ScopeStatsRead or ScopeSitesProvision).
func (r *Repository) CreateScopedAPIKey(ctx context.Context, userID int64, name, scope string) (string, int64, error) {
	key := apiKeyPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
	const query = `
		INSERT INTO api_keys (user_id, key_hash, created_at, name, scope)
		VALUES ($1, $2, $3, $4, $5)
		RETURNING id`
	var id int64
	if err := r.db.GetContext(ctx, &id, query, userID, hashKey(key), r.now().UTC(), name, scope); err != nil {
		return "", 0, fmt.Errorf("api_keys.create: %w", err)
	}
	return key, id, nil
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
	k, err := r.AuthenticateAPIKey(ctx, key)
	return k.UserID, err
}

// KeyUse is a key that authenticated a request: whose it is, and when it was last recorded as
// used.
type KeyUse struct {
	KeyID    int64      `db:"id"`
	UserID   int64      `db:"user_id"`
	LastUsed *time.Time `db:"last_used_at"`
	Scope    string     `db:"scope"`
}

// AuthenticateAPIKey looks a key up; ErrNotFound for an unknown or revoked one. Every request
// of the API asks the database, so a revoked key is refused at once by every node.
func (r *Repository) AuthenticateAPIKey(ctx context.Context, key string) (KeyUse, error) {
	const query = `
		SELECT id, user_id, last_used_at, scope
		FROM api_keys
		WHERE key_hash = $1`
	var k KeyUse
	err := r.db.GetContext(ctx, &k, query, hashKey(key))
	if errors.Is(err, sql.ErrNoRows) {
		return KeyUse{}, fmt.Errorf("api_keys.authenticate: %w", ErrNotFound)
	}
	if err != nil {
		return KeyUse{}, fmt.Errorf("api_keys.authenticate: %w", err)
	}
	return k, nil
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
