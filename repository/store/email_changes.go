package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// EmailChange is a change of a user's address waiting for the link mailed to the new address
// (never its token).
type EmailChange struct {
	ID        int64     `db:"id"`
	UserID    int64     `db:"user_id"`
	Email     string    `db:"email"`     // the new address
	OldEmail  string    `db:"old_email"` // the user's address now
	ExpiresAt time.Time `db:"expires_at"`
}

// ErrTooManyChanges: the user asked for as many e-mail changes as a window allows.
var ErrTooManyChanges = errors.New("too many e-mail changes")

// EmailChangeLimit bounds the e-mail changes one user may ask for in a window: each sends a
// mail to an address of the user's choosing, which must not become a way to flood a stranger.
type EmailChangeLimit struct {
	Max    int
	Window time.Duration
}

// EmailChangeRequest is what RequestEmailChange stored: a change to be confirmed with Token
// (shown once, in the mail to the new address; only its SHA-256 is kept), or, when the
// address belongs to another account (Taken), a request that can never be confirmed (its
// token is dropped) but counts and answers as any other: the mail to the address says why.
type EmailChangeRequest struct {
	Token string
	Taken bool
}

// RequestEmailChange stores a change of a user's address to email and voids the user's
// earlier unconfirmed changes: only the newest link works. An address another account has
// (compared without regard to case) is stored too, unconfirmable, so that the request looks
// and counts the same whoever has the address: a signed-in user cannot learn from it which
// addresses have accounts. ErrTooManyChanges past the limit (counted with the user's row
// locked, so nodes answering at once cannot pass it).
func (r *Repository) RequestEmailChange(ctx context.Context, userID int64, email string, ttl time.Duration, limit EmailChangeLimit) (EmailChangeRequest, error) {
	email = strings.TrimSpace(email)
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	now := r.now().UTC()
	if err := countEmailChange(ctx, tx, userID, limit, now); err != nil {
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: %w", err)
	}
	var out EmailChangeRequest
	switch err := emailFree(ctx, tx, userID, email); {
	case errors.Is(err, ErrConflict):
		out.Taken = true
	case err != nil:
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE email_changes SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`, userID, now); err != nil {
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: void older: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	if err := insertEmailChange(ctx, tx, token, userID, email, now, now.Add(ttl), nil); err != nil {
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return EmailChangeRequest{}, fmt.Errorf("email_changes.request: commit: %w", err)
	}
	if !out.Taken {
		out.Token = token
	}
	return out, nil
}

// countEmailChange locks the user's row and refuses a change past the limit of the window
// (ErrTooManyChanges): every request counts, made, mailed or refused as taken.
func countEmailChange(ctx context.Context, tx *sqlx.Tx, userID int64, limit EmailChangeLimit, now time.Time) error {
	if err := lockUser(ctx, tx, userID); err != nil {
		return err
	}
	var recent int
	err := tx.GetContext(ctx, &recent, `SELECT count(*) FROM email_changes WHERE user_id = $1 AND created_at > $2`, userID, now.Add(-limit.Window))
	if err != nil {
		return err
	}
	if recent >= limit.Max {
		return ErrTooManyChanges
	}
	return nil
}

// insertEmailChange stores a request; used is when it was used (a change made at once), nil
// for one waiting for its link.
func insertEmailChange(ctx context.Context, tx *sqlx.Tx, token string, userID int64, email string, now, expires time.Time, used *time.Time) error {
	const insert = `
		INSERT INTO email_changes (token_hash, user_id, email, created_at, expires_at, used_at)
		VALUES ($1, $2, $3, $4, $5, $6)`
	_, err := tx.ExecContext(ctx, insert, hashKey(token), userID, email, now, expires, used)
	return err
}

// PendingEmail is the address a user asked to move to and has not confirmed yet, "" when
// there is none that can still be confirmed.
func (r *Repository) PendingEmail(ctx context.Context, userID int64) (string, error) {
	const query = `
		SELECT email FROM email_changes
		WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2
		ORDER BY id DESC LIMIT 1`
	var email string
	err := r.db.GetContext(ctx, &email, query, userID, r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("email_changes.pending: %w", err)
	}
	return email, nil
}

// EmailChangeByToken returns the change a token confirms; ErrNotFound for an unknown, used,
// voided or expired one (not told apart).
func (r *Repository) EmailChangeByToken(ctx context.Context, token string) (EmailChange, error) {
	return r.emailChangeByToken(ctx, r.db, token, "")
}

func (r *Repository) emailChangeByToken(ctx context.Context, db sqlx.QueryerContext, token, lock string) (EmailChange, error) {
	query := `
		SELECT c.id, c.user_id, c.email, u.email AS old_email, c.expires_at
		FROM email_changes c JOIN users u ON u.id = c.user_id
		WHERE c.token_hash = $1 AND c.used_at IS NULL AND c.expires_at > $2` + lock
	var c EmailChange
	err := sqlx.GetContext(ctx, db, &c, query, hashKey(token), r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return EmailChange{}, fmt.Errorf("email_changes.by_token: %w", ErrNotFound)
	}
	if err != nil {
		return EmailChange{}, fmt.Errorf("email_changes.by_token: %w", err)
	}
	return c, nil
}

// ConfirmEmailChange makes the change a token confirms, in one transaction (see
// moveEmail), and uses the token up. keep is the session token of the browser that confirms,
// kept when it is the user's. ErrNotFound when the token cannot be used, ErrConflict when
// another account took the address since it was asked for (the token stays unused then, and
// changes nothing). The user's row is locked before the change's, in the order of every
// change of accounts (lockUser), and the change is read again under the lock: a request or
// a confirmation at the same moment waits instead of deadlocking.
func (r *Repository) ConfirmEmailChange(ctx context.Context, token, keep string) (EmailChange, error) {
	found, err := r.EmailChangeByToken(ctx, token)
	if err != nil {
		return EmailChange{}, err
	}
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return EmailChange{}, fmt.Errorf("email_changes.confirm: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if err := lockUser(ctx, tx, found.UserID); err != nil {
		return EmailChange{}, fmt.Errorf("email_changes.confirm: %w", err)
	}
	c, err := r.emailChangeByToken(ctx, tx, token, " FOR UPDATE OF c")
	if err != nil {
		return EmailChange{}, err
	}
	if err := r.moveEmail(ctx, tx, c.UserID, c.Email, keep); err != nil {
		return EmailChange{}, fmt.Errorf("email_changes.confirm: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return EmailChange{}, fmt.Errorf("email_changes.confirm: commit: %w", err)
	}
	return c, nil
}

// ChangeEmailNow gives a user a new address at once (the service sends no mail, so nothing
// can be proved), as a confirmed change does: see moveEmail. ErrConflict when another account
// has the address: without mail the answer cannot hide it (the change is made or it is not),
// so every request counts under the limit, refused ones included, and an account can test
// no more addresses than it may change to (ErrTooManyChanges past it).
func (r *Repository) ChangeEmailNow(ctx context.Context, userID int64, email, keep string, limit EmailChangeLimit) error {
	email = strings.TrimSpace(email)
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.change_email: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	now := r.now().UTC()
	if err := countEmailChange(ctx, tx, userID, limit, now); err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32)) // never sent: the row counts
	if err := insertEmailChange(ctx, tx, token, userID, email, now, now, &now); err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	switch err := emailFree(ctx, tx, userID, email); {
	case errors.Is(err, ErrConflict):
		// The request is counted, the address left as it is.
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("users.change_email: commit: %w", err)
		}
		return fmt.Errorf("users.change_email: %w", ErrConflict)
	case err != nil:
		return fmt.Errorf("users.change_email: %w", err)
	}
	if err := r.moveEmail(ctx, tx, userID, email, keep); err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("users.change_email: commit: %w", err)
	}
	return nil
}

// moveEmail gives a user the address, as a new password does its secret: it ends every
// session of the user but keep's (the browser that made the change), voids the user's unused
// links and the invitations for either address (a reset mailed to the old address must not
// open the account once it moved; voidUserLinks), and every unconfirmed e-mail change of the
// user. An account kept as a case duplicate (migration 0016) that moves to a free address
// becomes an ordinary one. The user's row is locked first and written last (lockUser).
func (r *Repository) moveEmail(ctx context.Context, tx *sqlx.Tx, userID int64, email, keep string) error {
	if err := lockUser(ctx, tx, userID); err != nil {
		return err
	}
	if err := emailFree(ctx, tx, userID, email); err != nil {
		return err
	}
	// The old address is still the user's here: its invitations go with the new one's.
	if err := r.voidUserLinks(ctx, tx, userID, email); err != nil {
		return err
	}
	now := r.now().UTC()
	steps := []struct {
		what, query string
		args        []any
	}{
		{"void changes", `UPDATE email_changes SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`, []any{userID, now}},
		{"end sessions", `DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, []any{userID, hashKey(keep)}},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.query, s.args...); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE users SET email = $2, case_duplicate = false WHERE id = $1`, userID, email)
	if isUniqueViolation(err) {
		return ErrConflict
	}
	return err
}

// emailFree is ErrConflict when an account other than the user's has the address, compared
// without regard to case.
func emailFree(ctx context.Context, tx *sqlx.Tx, userID int64, email string) error {
	var taken bool
	err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($2) AND id <> $1)`, userID, email)
	if err != nil {
		return err
	}
	if taken {
		return ErrConflict
	}
	return nil
}

// ForgetEmailChanges deletes the e-mail changes that expired before the time given.
func (r *Repository) ForgetEmailChanges(ctx context.Context, before time.Time) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM email_changes WHERE expires_at < $1`, before.UTC()); err != nil {
		return fmt.Errorf("email_changes.forget: %w", err)
	}
	return nil
}
