package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SharedLink is a shared link of a website (never its token): /share/DOMAIN?auth=TOKEN shows
// the website's dashboard read-only to whoever has it (docs/teams.md).
type SharedLink struct {
	ID           int64     `db:"id"`
	WebsiteID    int64     `db:"website_id"`
	Name         string    `db:"name"`
	PasswordHash *string   `db:"password_hash"`
	SegmentID    *int64    `db:"segment_id"`
	CreatedAt    time.Time `db:"created_at"`
}

const sharedLinkColumns = `id, website_id, name, password_hash, segment_id, created_at`

// CreateSharedLink stores a shared link of a website, made by a user who may (checked by the
// caller), with a name (1..120 characters, checked by the caller and the table), an optional
// password (its hash) and an optional segment of the website (nil: none), which the caller
// checked is one its view can apply; the table's foreign key refuses another website's. It
// returns the link's token, shown once: only its SHA-256 is kept; ErrNotFound when the website
// has no such segment (any more).
func (r *Repository) CreateSharedLink(ctx context.Context, websiteID, by int64, name string, passwordHash *string, segmentID *int64) (string, SharedLink, error) {
	token := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	const query = `
		INSERT INTO shared_links (website_id, token_hash, name, password_hash, segment_id, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		RETURNING ` + sharedLinkColumns
	var l SharedLink
	err := r.db.GetContext(ctx, &l, query, websiteID, hashKey(token), strings.TrimSpace(name), passwordHash, segmentID, by, r.now().UTC())
	if isForeignKeyViolation(err) {
		// The segment was deleted since the caller checked it (or is another website's).
		return "", SharedLink{}, fmt.Errorf("shared_links.create: segment %d: %w", *segmentID, ErrNotFound)
	}
	if err != nil {
		return "", SharedLink{}, fmt.Errorf("shared_links.create: %w", err)
	}
	return token, l, nil
}

// SharedLinks lists a website's shared links, newest first.
func (r *Repository) SharedLinks(ctx context.Context, websiteID int64) ([]SharedLink, error) {
	var out []SharedLink
	err := r.db.SelectContext(ctx, &out, `SELECT `+sharedLinkColumns+` FROM shared_links WHERE website_id = $1 ORDER BY created_at DESC, id DESC`, websiteID)
	if err != nil {
		return nil, fmt.Errorf("shared_links.list: %w", err)
	}
	return out, nil
}

// RenameSharedLink gives a shared link of a website a new name; ErrNotFound when the website
// has no such link.
func (r *Repository) RenameSharedLink(ctx context.Context, websiteID, id int64, name string) error {
	res, err := r.db.ExecContext(ctx, `UPDATE shared_links SET name = $3 WHERE website_id = $1 AND id = $2`, websiteID, id, strings.TrimSpace(name))
	if err != nil {
		return fmt.Errorf("shared_links.rename: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("shared_links.rename: %w", ErrNotFound)
	}
	return nil
}

// DeleteSharedLink deletes a shared link of a website: its address answers 404 at once, on
// every node (each view looks the link up). ErrNotFound when the website has no such link.
func (r *Repository) DeleteSharedLink(ctx context.Context, websiteID, id int64) error {
	res, err := r.db.ExecContext(ctx, `DELETE FROM shared_links WHERE website_id = $1 AND id = $2`, websiteID, id)
	if err != nil {
		return fmt.Errorf("shared_links.delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("shared_links.delete: %w", ErrNotFound)
	}
	return nil
}

// SharedLinkByToken finds a website's shared link of a token; ErrNotFound when it has none
// (never made, deleted, or another website's).
func (r *Repository) SharedLinkByToken(ctx context.Context, websiteID int64, token string) (SharedLink, error) {
	var l SharedLink
	err := r.db.GetContext(ctx, &l, `SELECT `+sharedLinkColumns+` FROM shared_links WHERE website_id = $1 AND token_hash = $2`, websiteID, hashKey(token))
	if errors.Is(err, sql.ErrNoRows) {
		return SharedLink{}, fmt.Errorf("shared_links.by_token: %w", ErrNotFound)
	}
	if err != nil {
		return SharedLink{}, fmt.Errorf("shared_links.by_token: %w", err)
	}
	return l, nil
}

// CreateTokenedSharedLink stores a shared link whose token is token(id): the Sites API's links,
// whose address can be told again (docs/plausible-sites.md); only the token's SHA-256 is
// stored, as for any link.
func (r *Repository) CreateTokenedSharedLink(ctx context.Context, websiteID, by int64, name string, token func(id int64) string) (string, SharedLink, error) {
	var id int64
	if err := r.db.GetContext(ctx, &id, `SELECT nextval(pg_get_serial_sequence('shared_links', 'id'))`); err != nil {
		return "", SharedLink{}, fmt.Errorf("shared_links.create: %w", err)
	}
	t := token(id)
	const query = `
		INSERT INTO shared_links (website_id, id, token_hash, name, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		RETURNING ` + sharedLinkColumns
	var l SharedLink
	if err := r.db.GetContext(ctx, &l, query, websiteID, id, hashKey(t), strings.TrimSpace(name), by, r.now().UTC()); err != nil {
		return "", SharedLink{}, fmt.Errorf("shared_links.create: %w", err)
	}
	return t, l, nil
}
