package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// One-use links do not outlive the reasons to trust them: a link is voided (used_at set; it
// then answers as an expired one) when
//   - the user's password or e-mail address changes, by any path: every unused link of the
//     user, and the invitations for their address (VoidUserLinks);
//   - the admin who made it (an invitation or a set-password link) is unmade or removed;
//   - another invitation for its address is accepted;
//   - an admin revokes it at /admin/users.
// An invitation or set-password link is made only by a user who is an admin at that moment:
// the maker's row is locked while the link is stored, so a link cannot slip in beside the
// unmaking or removal of its maker.

// ErrNotAdmin: the maker of an admin's link is not (or no longer) an admin.
var ErrNotAdmin = errors.New("not an admin")

// madeByAdmin says whether a kind of link is an admin's act, with a maker.
func madeByAdmin(kind string) bool {
	return kind == LinkInvite || kind == LinkSetPassword
}

// createAdminLink stores an admin's link (CreateLink) once the maker's row is locked and found
// to be an admin's.
func (r *Repository) createAdminLink(ctx context.Context, l Link, ttl time.Duration) (string, error) {
	if l.CreatedBy == nil {
		return "", fmt.Errorf("account_links.create: a link of kind %s needs the admin who made it", l.Kind)
	}
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("account_links.create: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	// FOR SHARE waits for an unmaking or removal of the maker (which lock the admins' rows FOR
	// UPDATE) and then reads the row as they left it.
	var admin bool
	err = tx.GetContext(ctx, &admin, `SELECT is_admin FROM users WHERE id = $1 FOR SHARE`, *l.CreatedBy)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !admin) {
		return "", fmt.Errorf("account_links.create: %w", ErrNotAdmin)
	}
	if err != nil {
		return "", fmt.Errorf("account_links.create: %w", err)
	}
	token, err := r.createLink(ctx, tx, l, ttl)
	if err != nil {
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("account_links.create: commit: %w", err)
	}
	return token, nil
}

// VoidUserLinks voids every unused link of a user (resets, set-password links, and any other
// kind made for the user) and the invitations for the user's address and for each of
// addresses (an address the user just left, say). Every change of a user's password or e-mail
// address calls it, in the change's own transaction where there is one (voidUserLinks).
func (r *Repository) VoidUserLinks(ctx context.Context, userID int64, addresses ...string) error {
	return r.voidUserLinks(ctx, r.db, userID, addresses...)
}

func (r *Repository) voidUserLinks(ctx context.Context, db sqlx.ExecerContext, userID int64, addresses ...string) error {
	const query = `
		UPDATE account_links
		SET used_at = $2
		WHERE used_at IS NULL
		AND (user_id = $1
			OR kind = 'invite' AND lower(email) IN (
				SELECT lower(email) FROM users WHERE id = $1
				UNION ALL
				SELECT lower(a) FROM unnest($3::text[]) AS a))`
	if addresses == nil {
		addresses = []string{}
	}
	if _, err := db.ExecContext(ctx, query, userID, r.now().UTC(), pq.Array(addresses)); err != nil {
		return fmt.Errorf("account_links.void_user: %w", err)
	}
	return nil
}

// voidAdminLinks voids the unused links an admin made; the caller holds the admin's row locked
// (lockAdmins), so that none is being made meanwhile.
func (r *Repository) voidAdminLinks(ctx context.Context, db sqlx.ExecerContext, adminID int64) error {
	const query = `UPDATE account_links SET used_at = $2 WHERE created_by = $1 AND used_at IS NULL`
	if _, err := db.ExecContext(ctx, query, adminID, r.now().UTC()); err != nil {
		return fmt.Errorf("account_links.void_admin: %w", err)
	}
	return nil
}

// PendingLink is a link that can still be used, as /admin/users lists it (never its token).
type PendingLink struct {
	ID        int64  `db:"id"`
	Kind      string `db:"kind"`
	Email     string `db:"email"` // whom it is for
	MakeAdmin bool   `db:"make_admin"`
	// MadeBy is the address of the admin who made it; nil for a reset (asked for by e-mail).
	MadeBy    *string   `db:"made_by"`
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
}

// ListPendingLinks returns the newest limit links that can still be used, newest first, and
// how many there are in all.
func (r *Repository) ListPendingLinks(ctx context.Context, limit int) ([]PendingLink, int, error) {
	const query = `
		SELECT l.id, l.kind, l.email, l.make_admin, m.email AS made_by, l.created_at, l.expires_at,
			count(*) OVER () AS total
		FROM account_links l
		LEFT JOIN users m ON m.id = l.created_by
		WHERE l.used_at IS NULL AND l.expires_at > $1 AND l.kind <> 'member'
		ORDER BY l.created_at DESC, l.id DESC
		LIMIT $2`
	var rows []struct {
		PendingLink
		Total int `db:"total"`
	}
	if err := r.db.SelectContext(ctx, &rows, query, r.now().UTC(), limit); err != nil {
		return nil, 0, fmt.Errorf("account_links.list_pending: %w", err)
	}
	links := make([]PendingLink, len(rows))
	total := 0
	for i, row := range rows {
		links[i], total = row.PendingLink, row.Total
	}
	return links, total, nil
}

// RevokeLink voids a link that can still be used; ErrNotFound when it is unknown, used,
// voided or expired.
func (r *Repository) RevokeLink(ctx context.Context, id int64) error {
	now := r.now().UTC()
	res, err := r.db.ExecContext(ctx, `UPDATE account_links SET used_at = $2 WHERE id = $1 AND kind <> 'member' AND used_at IS NULL AND expires_at > $2`, id, now)
	if err != nil {
		return fmt.Errorf("account_links.revoke: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("account_links.revoke: %w", ErrNotFound)
	}
	return nil
}
