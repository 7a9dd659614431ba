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

// Role is what a user may do with a website: its owner's, or a member's (website_members). The
// access check of every page and API call is website.Service.Open, which reads it here.
type Role string

// Roles, each allowing what the one before allows and more.
const (
	RoleViewer Role = "viewer" // reads the dashboard
	RoleEditor Role = "editor" // also changes settings, goals, funnels, segments, shared links
	RoleAdmin  Role = "admin"  // also invites, changes roles and removes members
	RoleOwner  Role = "owner"  // also deletes the website and hands it over
)

// MemberRoles are the roles a member can be given (the owner is not a member).
var MemberRoles = []Role{RoleViewer, RoleEditor, RoleAdmin}

var roleRank = map[Role]int{RoleViewer: 1, RoleEditor: 2, RoleAdmin: 3, RoleOwner: 4}

// Can tells whether a user with this role may do what needs the role need. "" (no role) can
// do nothing.
func (r Role) Can(need Role) bool {
	return roleRank[r] > 0 && roleRank[r] >= roleRank[need]
}

// Valid tells whether r is a role a member can be given.
func (r Role) Valid() bool { return r == RoleViewer || r == RoleEditor || r == RoleAdmin }

// ErrNotMember: the user named is not a member of the website.
var ErrNotMember = errors.New("not a member")

// roleOf is the SQL expression of user $1's role on the website w: 'owner', a member's role,
// or NULL. Every read of a role uses it.
const roleOf = `CASE WHEN w.user_id = $1 THEN 'owner'
	ELSE (SELECT m.role FROM website_members m WHERE m.website_id = w.id AND m.user_id = $1) END`

// WebsiteRole returns a website with the user's role on it (Website.Role); ErrNotFound when
// there is no such website or the user has no role on it (the two are not told apart).
func (r *Repository) WebsiteRole(ctx context.Context, userID, id int64) (Website, error) {
	return websiteRole(ctx, r.db, userID, id)
}

func websiteRole(ctx context.Context, q sqlx.QueryerContext, userID, id int64) (Website, error) {
	query := `
		SELECT ` + prefixed("w.", websiteColumns) + `, COALESCE(` + roleOf + `, '') AS role
		FROM websites w
		WHERE w.id = $2`
	var w Website
	err := sqlx.GetContext(ctx, q, &w, query, userID, id)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && w.Role == "") {
		return Website{}, fmt.Errorf("websites.role: %w", ErrNotFound)
	}
	if err != nil {
		return Website{}, fmt.Errorf("websites.role: %w", err)
	}
	return w, nil
}

// prefixed puts a table alias before each of a list of columns.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = alias + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// RoleOn is the user's role on a website already read (the stats pages find it by domain);
// "" when the user has none.
func (r *Repository) RoleOn(ctx context.Context, userID int64, site Website) (Role, error) {
	if site.UserID == userID {
		return RoleOwner, nil
	}
	var role Role
	err := r.db.GetContext(ctx, &role, `SELECT role FROM website_members WHERE website_id = $1 AND user_id = $2`, site.ID, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("websites.role_on: %w", err)
	}
	return role, nil
}

// WebsiteMember is a member of a website, as its members page lists them.
type WebsiteMember struct {
	UserID    int64     `db:"user_id"`
	Email     string    `db:"email"`
	Role      Role      `db:"role"`
	CreatedAt time.Time `db:"created_at"`
}

// Members lists a website's members by e-mail address.
func (r *Repository) Members(ctx context.Context, websiteID int64) ([]WebsiteMember, error) {
	const query = `
		SELECT m.user_id, u.email, m.role, m.created_at
		FROM website_members m JOIN users u ON u.id = m.user_id
		WHERE m.website_id = $1
		ORDER BY lower(u.email), u.id`
	var out []WebsiteMember
	if err := r.db.SelectContext(ctx, &out, query, websiteID); err != nil {
		return nil, fmt.Errorf("members.list: %w", err)
	}
	return out, nil
}

// SetMemberRole gives a member another role; ErrNotMember when the user is not one.
func (r *Repository) SetMemberRole(ctx context.Context, websiteID, userID int64, role Role) error {
	res, err := r.db.ExecContext(ctx, `UPDATE website_members SET role = $3 WHERE website_id = $1 AND user_id = $2`, websiteID, userID, role)
	if err != nil {
		return fmt.Errorf("members.set_role: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("members.set_role: %w", ErrNotMember)
	}
	return nil
}

// RemoveMember takes a member's access away; ErrNotMember when the user is not one.
func (r *Repository) RemoveMember(ctx context.Context, websiteID, userID int64) error {
	res, err := r.db.ExecContext(ctx, `DELETE FROM website_members WHERE website_id = $1 AND user_id = $2`, websiteID, userID)
	if err != nil {
		return fmt.Errorf("members.remove: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("members.remove: %w", ErrNotMember)
	}
	return nil
}

// TransferWebsite hands a website from its owner to one of its members, who becomes the owner;
// the old owner becomes an admin. One transaction, with the website's row locked: ErrNotFound
// when from is not (or no longer) the owner, ErrNotMember when to is not a member.
func (r *Repository) TransferWebsite(ctx context.Context, websiteID, from, to int64) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("members.transfer: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	var owner int64
	err = tx.GetContext(ctx, &owner, `SELECT user_id FROM websites WHERE id = $1 FOR NO KEY UPDATE`, websiteID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && owner != from) {
		return fmt.Errorf("members.transfer: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("members.transfer: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM website_members WHERE website_id = $1 AND user_id = $2`, websiteID, to)
	if err != nil {
		return fmt.Errorf("members.transfer: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("members.transfer: %w", ErrNotMember)
	}
	now := r.now().UTC()
	steps := []struct {
		query string
		args  []any
	}{
		{`UPDATE websites SET user_id = $2, updated_at = $3 WHERE id = $1`, []any{websiteID, to, now}},
		{`INSERT INTO website_members (website_id, user_id, role, created_at) VALUES ($1, $2, 'admin', $3)`, []any{websiteID, from, now}},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.query, s.args...); err != nil {
			return fmt.Errorf("members.transfer: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("members.transfer: commit: %w", err)
	}
	return nil
}

// Invitation is a pending invitation to a website (never its token).
type Invitation struct {
	ID        int64     `db:"id"`
	Email     string    `db:"email"`
	Role      Role      `db:"role"`
	WebsiteID int64     `db:"website_id"`
	Domain    string    `db:"domain"`
	CreatedBy *int64    `db:"created_by"`
	MadeBy    *string   `db:"made_by"` // the maker's address
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
}

// InviteMember stores an invitation of an address to a website with a role, made by a user who
// may invite (checked by the caller), and returns its token, shown once; only its SHA-256 is
// kept.
func (r *Repository) InviteMember(ctx context.Context, websiteID, by int64, email string, role Role, ttl time.Duration) (string, error) {
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := r.now().UTC()
	const query = `
		INSERT INTO account_links (token_hash, kind, email, member_of, role, created_at, expires_at, created_by)
		VALUES ($1, 'member', $2, $3, $4, $5, $6, $7)`
	if _, err := r.db.ExecContext(ctx, query, hashKey(token), strings.TrimSpace(email), websiteID, role, now, now.Add(ttl), by); err != nil {
		return "", fmt.Errorf("members.invite: %w", err)
	}
	return token, nil
}

const invitationColumns = `l.id, l.email, l.role, l.member_of AS website_id, w.domain, l.created_by, m.email AS made_by,
	l.created_at, l.expires_at`

// Invitations lists a website's pending invitations, newest first.
func (r *Repository) Invitations(ctx context.Context, websiteID int64) ([]Invitation, error) {
	query := `
		SELECT ` + invitationColumns + `
		FROM account_links l JOIN websites w ON w.id = l.member_of LEFT JOIN users m ON m.id = l.created_by
		WHERE l.kind = 'member' AND l.member_of = $1 AND l.used_at IS NULL AND l.expires_at > $2
		ORDER BY l.created_at DESC, l.id DESC`
	var out []Invitation
	if err := r.db.SelectContext(ctx, &out, query, websiteID, r.now().UTC()); err != nil {
		return nil, fmt.Errorf("members.invitations: %w", err)
	}
	return out, nil
}

// RevokeInvitation voids a pending invitation to a website; ErrNotFound when there is none.
func (r *Repository) RevokeInvitation(ctx context.Context, websiteID, id int64) error {
	now := r.now().UTC()
	res, err := r.db.ExecContext(ctx, `UPDATE account_links SET used_at = $3
		WHERE id = $1 AND kind = 'member' AND member_of = $2 AND used_at IS NULL AND expires_at > $3`, id, websiteID, now)
	if err != nil {
		return fmt.Errorf("members.revoke_invitation: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("members.revoke_invitation: %w", ErrNotFound)
	}
	return nil
}

// InvitationByToken returns a pending invitation that can still be used: not used, voided or
// expired, and its maker still allowed to invite to the website. ErrNotFound otherwise (the
// cases are not told apart).
func (r *Repository) InvitationByToken(ctx context.Context, token string) (Invitation, error) {
	return r.invitationByToken(ctx, r.db, token, "")
}

func (r *Repository) invitationByToken(ctx context.Context, q sqlx.QueryerContext, token, lock string) (Invitation, error) {
	query := `
		SELECT ` + invitationColumns + `
		FROM account_links l JOIN websites w ON w.id = l.member_of LEFT JOIN users m ON m.id = l.created_by
		WHERE l.kind = 'member' AND l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2` + lock
	var inv Invitation
	err := sqlx.GetContext(ctx, q, &inv, query, hashKey(token), r.now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return Invitation{}, fmt.Errorf("members.invitation: %w", ErrNotFound)
	}
	if err != nil {
		return Invitation{}, fmt.Errorf("members.invitation: %w", err)
	}
	if inv.CreatedBy == nil {
		return Invitation{}, fmt.Errorf("members.invitation: its maker is gone: %w", ErrNotFound)
	}
	maker, err := websiteRole(ctx, q, *inv.CreatedBy, inv.WebsiteID)
	if errors.Is(err, ErrNotFound) || (err == nil && !maker.Role.Can(RoleAdmin)) {
		return Invitation{}, fmt.Errorf("members.invitation: its maker may no longer invite: %w", ErrNotFound)
	}
	if err != nil {
		return Invitation{}, fmt.Errorf("members.invitation: %w", err)
	}
	return inv, nil
}

// ErrWrongAddress: the signed-in user is not the address an invitation is for.
var ErrWrongAddress = errors.New("invitation for another address")

// AcceptInvitation makes a signed-in user a member with the invitation's role, and uses the
// invitation up, in one transaction. The user must have the invited address (ErrWrongAddress);
// an owner stays the owner, and a member gets the invited role. ErrNotFound when the
// invitation cannot be used.
func (r *Repository) AcceptInvitation(ctx context.Context, token string, userID int64) (Invitation, error) {
	return r.acceptInvitation(ctx, token, func(tx *sqlx.Tx, inv Invitation) (int64, error) {
		var email string
		if err := tx.GetContext(ctx, &email, `SELECT email FROM users WHERE id = $1`, userID); err != nil {
			return 0, err
		}
		if !strings.EqualFold(email, inv.Email) {
			return 0, ErrWrongAddress
		}
		return userID, nil
	})
}

// AcceptInvitationAsNewUser creates the invited address's account with a sign-in password (its
// hash) and makes it a member, using the invitation up, in one transaction; ErrConflict when
// the address has an account (whose owner accepts signed in), ErrNotFound when the
// invitation cannot be used.
func (r *Repository) AcceptInvitationAsNewUser(ctx context.Context, token, hash string) (Invitation, User, error) {
	var user User
	inv, err := r.acceptInvitation(ctx, token, func(tx *sqlx.Tx, inv Invitation) (int64, error) {
		u, err := r.createUser(ctx, tx, inv.Email, false)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, u.ID, hash); err != nil {
			return 0, err
		}
		user = u
		return u.ID, nil
	})
	return inv, user, err
}

func (r *Repository) acceptInvitation(ctx context.Context, token string, member func(*sqlx.Tx, Invitation) (int64, error)) (Invitation, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return Invitation{}, fmt.Errorf("members.accept: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	inv, err := r.invitationByToken(ctx, tx, token, " FOR UPDATE OF l")
	if err != nil {
		return Invitation{}, err
	}
	userID, err := member(tx, inv)
	if err != nil {
		return Invitation{}, fmt.Errorf("members.accept: %w", err)
	}
	now := r.now().UTC()
	const join = `
		INSERT INTO website_members (website_id, user_id, role, created_at)
		SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM websites WHERE id = $1 AND user_id = $2)
		ON CONFLICT (website_id, user_id) DO UPDATE SET role = EXCLUDED.role`
	if _, err := tx.ExecContext(ctx, join, inv.WebsiteID, userID, inv.Role, now); err != nil {
		return Invitation{}, fmt.Errorf("members.accept: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE account_links SET used_at = $2 WHERE id = $1`, inv.ID, now); err != nil {
		return Invitation{}, fmt.Errorf("members.accept: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Invitation{}, fmt.Errorf("members.accept: commit: %w", err)
	}
	return inv, nil
}
