package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Two-factor sign-in's storage (migration 0063; docs/teams.md): a user's TOTP secret, the one
// shown on the setup page until a first code confirms it, the last time step a code was
// accepted for (a code is good once), the recovery codes' hashes, and the admins' "require it
// for everyone".

// sessionUserColumns are what a signed-in user's every page needs: who, admin or not, with
// two-factor sign-in on or not, and whether the service requires it.
const sessionUserColumns = `u.id, u.email, u.is_admin, u.totp_secret IS NOT NULL AS totp,
	COALESCE((SELECT value = 'true' FROM service_settings WHERE name = 'require_totp'), false) AS totp_required`

// ErrTOTPState: two-factor sign-in is not in the state the change needs (already on, or
// the setup's secret replaced meanwhile).
var ErrTOTPState = errors.New("two-factor sign-in changed meanwhile")

// SetPendingTOTP keeps the secret the setup page shows until a first code confirms it;
// ErrTOTPState when the user has two-factor sign-in on already.
func (r *Repository) SetPendingTOTP(ctx context.Context, userID int64, secret []byte) error {
	res, err := r.db.ExecContext(ctx, `UPDATE users SET totp_pending = $2 WHERE id = $1 AND totp_secret IS NULL`, userID, secret)
	if err != nil {
		return fmt.Errorf("totp.set_pending: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("totp.set_pending: %w", ErrTOTPState)
	}
	return nil
}

// PendingTOTP is the secret waiting for its first code; ErrNotFound when there is none.
func (r *Repository) PendingTOTP(ctx context.Context, userID int64) ([]byte, error) {
	var secret []byte
	err := r.db.GetContext(ctx, &secret, `SELECT totp_pending FROM users WHERE id = $1 AND totp_secret IS NULL AND totp_pending IS NOT NULL`, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("totp.pending: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("totp.pending: %w", err)
	}
	return secret, nil
}

// EnableTOTP turns two-factor sign-in on with the pending secret, which a code of step
// confirmed (that step is used up), and stores the recovery codes' hashes, in one
// transaction; ErrTOTPState when the pending secret is no longer secret (replaced, or on
// already).
func (r *Repository) EnableTOTP(ctx context.Context, userID int64, secret []byte, step int64, codes [][]byte) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("totp.enable: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	res, err := tx.ExecContext(ctx, `UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_step = $3
		WHERE id = $1 AND totp_secret IS NULL AND totp_pending = $2`, userID, secret, step)
	if err != nil {
		return fmt.Errorf("totp.enable: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("totp.enable: %w", ErrTOTPState)
	}
	if err := replaceRecoveryCodes(ctx, tx, userID, codes); err != nil {
		return fmt.Errorf("totp.enable: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("totp.enable: commit: %w", err)
	}
	return nil
}

// TOTPSecret is the user's secret; ErrNotFound when two-factor sign-in is off.
func (r *Repository) TOTPSecret(ctx context.Context, userID int64) ([]byte, error) {
	var secret []byte
	err := r.db.GetContext(ctx, &secret, `SELECT totp_secret FROM users WHERE id = $1 AND totp_secret IS NOT NULL`, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("totp.secret: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("totp.secret: %w", err)
	}
	return secret, nil
}

// UseTOTPStep uses up a time step whose code was right: false when a code of that step, or of
// a later one, was accepted before (a code is good once, and one older than the last is
// stale). One statement, so two nodes given the same code at once accept it once.
func (r *Repository) UseTOTPStep(ctx context.Context, userID, step int64) (bool, error) {
	res, err := r.db.ExecContext(ctx, `UPDATE users SET totp_step = $2 WHERE id = $1 AND totp_secret IS NOT NULL AND totp_step < $2`, userID, step)
	if err != nil {
		return false, fmt.Errorf("totp.use_step: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UseRecoveryCode uses up a recovery code (its hash); false when the user has no unused code
// of that hash.
func (r *Repository) UseRecoveryCode(ctx context.Context, userID int64, hash []byte) (bool, error) {
	res, err := r.db.ExecContext(ctx, `UPDATE recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
		userID, hash, r.now().UTC())
	if err != nil {
		return false, fmt.Errorf("totp.use_recovery_code: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecoveryCodesLeft is how many unused recovery codes the user has.
func (r *Repository) RecoveryCodesLeft(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := r.db.GetContext(ctx, &n, `SELECT count(*) FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL`, userID); err != nil {
		return 0, fmt.Errorf("totp.recovery_codes_left: %w", err)
	}
	return n, nil
}

// ReplaceRecoveryCodes gives a user with two-factor sign-in on new recovery codes (their
// hashes), which replace every old one; ErrTOTPState when it is off.
func (r *Repository) ReplaceRecoveryCodes(ctx context.Context, userID int64, codes [][]byte) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("totp.replace_codes: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	var on bool
	if err := tx.GetContext(ctx, &on, `SELECT totp_secret IS NOT NULL FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return fmt.Errorf("totp.replace_codes: %w", err)
	}
	if !on {
		return fmt.Errorf("totp.replace_codes: %w", ErrTOTPState)
	}
	if err := replaceRecoveryCodes(ctx, tx, userID, codes); err != nil {
		return fmt.Errorf("totp.replace_codes: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("totp.replace_codes: commit: %w", err)
	}
	return nil
}

func replaceRecoveryCodes(ctx context.Context, tx *sqlx.Tx, userID int64, codes [][]byte) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = $1`, userID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::bytea[])`, userID, pq.Array(codes))
	return err
}

// DisableTOTP turns two-factor sign-in off and forgets the secret and the recovery codes.
func (r *Repository) DisableTOTP(ctx context.Context, userID int64) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("totp.disable: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	for _, q := range []string{`UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_step = 0 WHERE id = $1`,
		`DELETE FROM recovery_codes WHERE user_id = $1`} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return fmt.Errorf("totp.disable: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("totp.disable: commit: %w", err)
	}
	return nil
}

// SetTOTPRequired sets whether every user must have two-factor sign-in on.
func (r *Repository) SetTOTPRequired(ctx context.Context, required bool) error {
	const query = `INSERT INTO service_settings (name, value) VALUES ('require_totp', $1)
		ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`
	if _, err := r.db.ExecContext(ctx, query, fmt.Sprint(required)); err != nil {
		return fmt.Errorf("totp.set_required: %w", err)
	}
	return nil
}

// TOTPRequired tells whether every user must have two-factor sign-in on.
func (r *Repository) TOTPRequired(ctx context.Context) (bool, error) {
	var v bool
	err := r.db.GetContext(ctx, &v, `SELECT COALESCE((SELECT value = 'true' FROM service_settings WHERE name = 'require_totp'), false)`)
	if err != nil {
		return false, fmt.Errorf("totp.required: %w", err)
	}
	return v, nil
}
