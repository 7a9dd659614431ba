package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// ErrLastAdmin: the change would leave the service without an admin.
var ErrLastAdmin = errors.New("last admin")

// APIKey is one of a user's keys as the account page lists it: never the key itself.
type APIKey struct {
	ID        int64      `db:"id"`
	Name      string     `db:"name"`
	CreatedAt time.Time  `db:"created_at"`
	LastUsed  *time.Time `db:"last_used_at"`
	Scope     string     `db:"scope"`
}

// ListAPIKeys returns a user's keys, newest first.
func (r *Repository) ListAPIKeys(ctx context.Context, userID int64) ([]APIKey, error) {
	const query = `
		SELECT id, name, created_at, last_used_at, scope
		FROM api_keys
		WHERE user_id = $1
		ORDER BY id DESC`
	keys := []APIKey{}
	if err := r.db.SelectContext(ctx, &keys, query, userID); err != nil {
		return nil, fmt.Errorf("api_keys.list: %w", err)
	}
	return keys, nil
}

// RevokeUserAPIKey deletes one of a user's keys; ErrNotFound when it is unknown, already
// revoked or someone else's.
func (r *Repository) RevokeUserAPIKey(ctx context.Context, userID, keyID int64) error {
	res, err := r.db.ExecContext(ctx, `DELETE FROM api_keys WHERE id = $1 AND user_id = $2`, keyID, userID)
	if err != nil {
		return fmt.Errorf("api_keys.revoke: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("api_keys.revoke: %w", ErrNotFound)
	}
	return nil
}

// KeyUseInterval is how often a key's last use is written at most.
const KeyUseInterval = time.Minute

// RecordKeyUses writes that the keys were used at that time, in one statement, leaving alone
// any key whose last use was written less than KeyUseInterval before (by another node, say).
func (r *Repository) RecordKeyUses(ctx context.Context, keyIDs []int64, at time.Time) error {
	const query = `
		UPDATE api_keys
		SET last_used_at = $2
		WHERE id = ANY($1) AND (last_used_at IS NULL OR last_used_at <= $3)`
	at = at.UTC()
	if _, err := r.db.ExecContext(ctx, query, pq.Array(keyIDs), at, at.Add(-KeyUseInterval)); err != nil {
		return fmt.Errorf("api_keys.record_uses: %w", err)
	}
	return nil
}

// ChangeEmail gives a user a new e-mail address; ErrConflict when another account has it
// (compared without regard to case). An account kept as a case duplicate (migration 0016)
// that moves to a free address becomes an ordinary one. The user's unused links, and the
// invitations for the old and the new address, are voided: a link mailed to the old address
// must not open the account once it has moved.
func (r *Repository) ChangeEmail(ctx context.Context, userID int64, email string) error {
	const query = `
		UPDATE users
		SET email = $2, case_duplicate = false
		WHERE id = $1`
	email = strings.TrimSpace(email)
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.change_email: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if err := lockUser(ctx, tx, userID); err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	var taken bool
	err = tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($2) AND id <> $1)`, userID, email)
	if err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	if taken {
		return fmt.Errorf("users.change_email: %w", ErrConflict)
	}
	// The old address is still the user's here: its invitations go with the new one's.
	if err := r.voidUserLinks(ctx, tx, userID, email); err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	res, err := tx.ExecContext(ctx, query, userID, email)
	if isUniqueViolation(err) {
		return fmt.Errorf("users.change_email: %w", ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("users.change_email: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("users.change_email: %w", ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("users.change_email: commit: %w", err)
	}
	return nil
}

// PasswordHashByID returns the hash of a user's sign-in password, "" when none is set.
func (r *Repository) PasswordHashByID(ctx context.Context, userID int64) (string, error) {
	var hash string
	err := r.db.GetContext(ctx, &hash, `SELECT coalesce(password_hash, '') FROM users WHERE id = $1`, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("users.password_hash: %w", ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("users.password_hash: %w", err)
	}
	return hash, nil
}

// ChangePassword sets a user's sign-in password and ends every session of the user but the
// one whose token is keep (the browser that made the change), and voids the user's unused
// links, in one transaction.
func (r *Repository) ChangePassword(ctx context.Context, userID int64, hash, keep string) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.change_password: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if err := lockUser(ctx, tx, userID); err != nil {
		return fmt.Errorf("users.change_password: %w", err)
	}
	if err := r.voidUserLinks(ctx, tx, userID); err != nil {
		return fmt.Errorf("users.change_password: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, hash); err != nil {
		return fmt.Errorf("users.change_password: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, userID, hashKey(keep)); err != nil {
		return fmt.Errorf("users.change_password: end sessions: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("users.change_password: commit: %w", err)
	}
	return nil
}

// UserRow is a user as /admin/users lists them.
type UserRow struct {
	User
	HasPassword bool      `db:"has_password"`
	Websites    int64     `db:"websites"`
	CreatedAt   time.Time `db:"created_at"`
	// LastAdmin: the user is the service's only admin, whom SetAdmin and RemoveUser refuse to
	// unmake or remove (ErrLastAdmin), so the pages do not offer it.
	LastAdmin bool `db:"last_admin"`
}

const userRowColumns = `
		u.id, u.email, u.is_admin, u.password_hash IS NOT NULL AS has_password, u.created_at,
		(SELECT count(*) FROM websites w WHERE w.user_id = u.id) AS websites,
		u.is_admin AND NOT EXISTS (SELECT 1 FROM users o WHERE o.is_admin AND o.id <> u.id) AS last_admin`

// ListUsers returns every user, by e-mail.
func (r *Repository) ListUsers(ctx context.Context) ([]UserRow, error) {
	rows := []UserRow{}
	if err := r.db.SelectContext(ctx, &rows, `SELECT `+userRowColumns+` FROM users u ORDER BY lower(u.email), u.id`); err != nil {
		return nil, fmt.Errorf("users.list: %w", err)
	}
	return rows, nil
}

// UserRowByID returns one user; ErrNotFound if there is none.
func (r *Repository) UserRowByID(ctx context.Context, id int64) (UserRow, error) {
	var row UserRow
	err := r.db.GetContext(ctx, &row, `SELECT `+userRowColumns+` FROM users u WHERE u.id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return UserRow{}, fmt.Errorf("users.by_id: %w", ErrNotFound)
	}
	if err != nil {
		return UserRow{}, fmt.Errorf("users.by_id: %w", err)
	}
	return row, nil
}

// lockAdmins locks every admin's row and says whether id is the only admin, so that two
// admins unmaking or removing each other at once cannot leave none, and no admin makes a link
// meanwhile (that takes the maker's row FOR SHARE). NO KEY UPDATE, not UPDATE: the foreign
// keys of a link being stored share the key of its user, which may be another admin; with
// UPDATE, the unmaking and the link would each wait for the other.
func lockAdmins(ctx context.Context, tx *sqlx.Tx, id int64) (last bool, err error) {
	var admins []int64
	if err := tx.SelectContext(ctx, &admins, `SELECT id FROM users WHERE is_admin ORDER BY id FOR NO KEY UPDATE`); err != nil {
		return false, err
	}
	return len(admins) == 1 && admins[0] == id, nil
}

// lockUser locks a user's row; ErrNotFound when there is none. Every change of an account
// that voids links locks the user's row first, then the links, and writes the user's row
// last: one order everywhere, so that two changes at once wait for each other instead of
// each for the other (deadlock). See lockLinkUser.
func lockUser(ctx context.Context, tx *sqlx.Tx, id int64) error {
	var found int64
	err := tx.GetContext(ctx, &found, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// SetAdmin makes a user an admin or not; ErrLastAdmin when it would leave no admin,
// ErrNotFound when there is no such user. An admin unmade loses the links they made.
func (r *Repository) SetAdmin(ctx context.Context, id int64, admin bool) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("users.set_admin: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	last, err := lockAdmins(ctx, tx, id)
	if err != nil {
		return fmt.Errorf("users.set_admin: %w", err)
	}
	if last && !admin {
		return fmt.Errorf("users.set_admin: %w", ErrLastAdmin)
	}
	if !admin {
		if err := r.voidAdminLinks(ctx, tx, id); err != nil {
			return fmt.Errorf("users.set_admin: %w", err)
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE users SET is_admin = $2 WHERE id = $1`, id, admin)
	if err != nil {
		return fmt.Errorf("users.set_admin: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("users.set_admin: %w", ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("users.set_admin: commit: %w", err)
	}
	return nil
}

// RemoveUser deletes a user with their websites (and every row of their stats), sessions,
// keys and links, in one transaction, and returns the ids of the websites removed.
// ErrLastAdmin when the user is the last admin, ErrNotFound when there is no such user.
func (r *Repository) RemoveUser(ctx context.Context, id int64) ([]int64, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("users.remove: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	last, err := lockAdmins(ctx, tx, id)
	if err != nil {
		return nil, fmt.Errorf("users.remove: %w", err)
	}
	if last {
		return nil, fmt.Errorf("users.remove: %w", ErrLastAdmin)
	}
	if err := lockUser(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("users.remove: %w", err)
	}
	var sites []int64
	// Locked as a website's delete locks it, so a flush writing them waits or is waited for.
	if err := tx.SelectContext(ctx, &sites, `SELECT id FROM websites WHERE user_id = $1 ORDER BY id FOR UPDATE`, id); err != nil {
		return nil, fmt.Errorf("users.remove: websites: %w", err)
	}
	for _, site := range sites {
		if err := deleteWebsiteRows(ctx, tx, site); err != nil {
			return nil, fmt.Errorf("users.remove: %w", err)
		}
	}
	// The links the user made as an admin, and the invitations for their address, are voided
	// (the admins' rows are locked: no link of theirs is being made).
	if err := r.voidAdminLinks(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("users.remove: %w", err)
	}
	if err := r.voidUserLinks(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("users.remove: %w", err)
	}
	// Websites, sessions, keys, links and report deliveries go with the user (ON DELETE CASCADE).
	res, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("users.remove: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("users.remove: %w", ErrNotFound)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("users.remove: commit: %w", err)
	}
	return sites, nil
}

// Link kinds: what a one-use link of an account does.
const (
	LinkInvite      = "invite"       // creates the account, with a password
	LinkSetPassword = "set_password" // an admin's link for a user to set a password
	LinkReset       = "reset"        // a password reset asked for by e-mail
)

// Link is a one-use link of an account, as stored (never its token).
type Link struct {
	ID        int64     `db:"id"`
	Kind      string    `db:"kind"`
	Email     string    `db:"email"`
	UserID    *int64    `db:"user_id"`
	MakeAdmin bool      `db:"make_admin"`
	ExpiresAt time.Time `db:"expires_at"`
	// CreatedBy is the admin who made an invitation or a set-password link; nil for a reset.
	CreatedBy *int64 `db:"created_by"`
}

// CreateLink stores a new link and returns its token, shown once (in the mail or to the
// admin); only its SHA-256 is kept. An invitation or a set-password link needs its maker
// (CreatedBy): ErrNotAdmin when the maker is not an admin, or no longer one.
func (r *Repository) CreateLink(ctx context.Context, l Link, ttl time.Duration) (string, error) {
	if madeByAdmin(l.Kind) {
		return r.createAdminLink(ctx, l, ttl)
	}
	return r.createLink(ctx, r.db, l, ttl)
}

func (r *Repository) createLink(ctx context.Context, db sqlx.ExecerContext, l Link, ttl time.Duration) (string, error) {
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := r.now().UTC()
	const query = `
		INSERT INTO account_links (token_hash, kind, email, user_id, make_admin, created_at, expires_at, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	if _, err := db.ExecContext(ctx, query, hashKey(token), l.Kind, strings.TrimSpace(l.Email), l.UserID, l.MakeAdmin, now, now.Add(ttl), l.CreatedBy); err != nil {
		return "", fmt.Errorf("account_links.create: %w", err)
	}
	return token, nil
}

// CreateResetLink makes a password reset link for the user with that e-mail, unless the user
// had max of them made in the last window; ok is false then, or when there is no such user.
// The user's row is locked meanwhile, so nodes answering at once cannot pass the limit.
func (r *Repository) CreateResetLink(ctx context.Context, email string, ttl time.Duration, max int, window time.Duration) (token string, user User, ok bool, err error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return "", User{}, false, fmt.Errorf("account_links.reset: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	err = tx.GetContext(ctx, &user, `SELECT id, email, is_admin FROM users WHERE id = (SELECT id FROM users WHERE `+byEmail+`) FOR UPDATE`, strings.TrimSpace(email))
	if errors.Is(err, sql.ErrNoRows) {
		return "", User{}, false, nil
	}
	if err != nil {
		return "", User{}, false, fmt.Errorf("account_links.reset: %w", err)
	}
	var recent int
	err = tx.GetContext(ctx, &recent, `SELECT count(*) FROM account_links WHERE user_id = $1 AND kind = $2 AND created_at > $3`,
		user.ID, LinkReset, r.now().UTC().Add(-window))
	if err != nil {
		return "", User{}, false, fmt.Errorf("account_links.reset: %w", err)
	}
	if recent >= max {
		return "", user, false, nil
	}
	token, err = r.createLink(ctx, tx, Link{Kind: LinkReset, Email: user.Email, UserID: &user.ID}, ttl)
	if err != nil {
		return "", User{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return "", User{}, false, fmt.Errorf("account_links.reset: commit: %w", err)
	}
	return token, user, true, nil
}

// LinkByToken returns a link that can still be used; ErrNotFound for an unknown, used, voided
// or expired one (the four are not told apart).
func (r *Repository) LinkByToken(ctx context.Context, token string) (Link, error) {
	return r.linkByToken(ctx, r.db, token, "")
}

func (r *Repository) linkByToken(ctx context.Context, db sqlx.QueryerContext, token, lock string) (Link, error) {
	query := `
		SELECT id, kind, email, user_id, make_admin, expires_at, created_by
		FROM account_links
		WHERE token_hash = $1 AND kind <> 'member' AND used_at IS NULL AND expires_at > $2` + lock
	var l Link
	err := sqlx.GetContext(ctx, db, &l, query, hashKey(token), r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return Link{}, fmt.Errorf("account_links.by_token: %w", ErrNotFound)
	}
	if err != nil {
		return Link{}, fmt.Errorf("account_links.by_token: %w", err)
	}
	return l, nil
}

// UseLink sets the password (its hash) a link was opened for, in one transaction: an
// invitation creates its user first (ErrConflict when the address was taken since); the link,
// every other unused link of the user and the other invitations for their address are used
// up, and every session of the user ends.
// ErrNotFound when the link cannot be used (unknown, used, voided or expired).
func (r *Repository) UseLink(ctx context.Context, token, hash string) (User, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return User{}, fmt.Errorf("account_links.use: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	l, err := r.linkByToken(ctx, tx, token, "")
	if err != nil {
		return User{}, err
	}
	user, err := r.lockLinkUser(ctx, tx, l, token)
	if err != nil {
		return User{}, err
	}
	if err := r.voidUserLinks(ctx, tx, user.ID, l.Email); err != nil {
		return User{}, fmt.Errorf("account_links.use: %w", err)
	}
	steps := []struct {
		query string
		args  []any
	}{
		{`UPDATE account_links SET used_at = $2 WHERE id = $1`, []any{l.ID, r.now().UTC()}},
		{`UPDATE users SET password_hash = $2 WHERE id = $1`, []any{user.ID, hash}},
		{`DELETE FROM sessions WHERE user_id = $1`, []any{user.ID}},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.query, s.args...); err != nil {
			return User{}, fmt.Errorf("account_links.use: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return User{}, fmt.Errorf("account_links.use: commit: %w", err)
	}
	return user, nil
}

// lockLinkUser locks what using a link changes and returns the user whose password it sets;
// ErrNotFound when the link was used or voided meanwhile. The locks come in the order of
// every change of accounts (lockUser): the user's row first, then links, and the user's row
// is written last, so that an invitation of the user's address being accepted at the same
// moment fails on the taken address instead of waiting for this transaction forever.
// An invitation has no user yet: every pending invitation of its address is locked (in id
// order, so that two acceptances of one address wait for each other, not each for the
// other), then its user is created.
func (r *Repository) lockLinkUser(ctx context.Context, tx *sqlx.Tx, l Link, token string) (User, error) {
	if l.Kind == LinkInvite {
		var ids []int64
		const query = `
			SELECT id FROM account_links
			WHERE kind = 'invite' AND lower(email) = lower($1) AND used_at IS NULL AND expires_at > $2
			ORDER BY id
			FOR UPDATE`
		if err := tx.SelectContext(ctx, &ids, query, l.Email, r.now().UTC()); err != nil {
			return User{}, fmt.Errorf("account_links.use: %w", err)
		}
		if !slices.Contains(ids, l.ID) {
			return User{}, fmt.Errorf("account_links.use: %w", ErrNotFound)
		}
		return r.createUser(ctx, tx, l.Email, l.MakeAdmin)
	}
	var user User
	err := tx.GetContext(ctx, &user, `SELECT id, email, is_admin FROM users WHERE id = $1 FOR UPDATE`, *l.UserID)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("account_links.use: %w", ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("account_links.use: %w", err)
	}
	if _, err := r.linkByToken(ctx, tx, token, " FOR UPDATE"); err != nil {
		return User{}, err
	}
	return user, nil
}

// ForgetLinks deletes links that expired before the time given.
func (r *Repository) ForgetLinks(ctx context.Context, before time.Time) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM account_links WHERE expires_at < $1`, before.UTC()); err != nil {
		return fmt.Errorf("account_links.forget: %w", err)
	}
	return nil
}
