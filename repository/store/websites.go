package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// Website is one tracked site as stored.
type Website struct {
	ID            int64   `db:"id"`
	UserID        int64   `db:"user_id"`
	Domain        string  `db:"domain"`
	Privacy       int     `db:"privacy"`
	PasswordHash  *string `db:"password_hash"`
	Email         int     `db:"email"`
	ExcludeBots   int     `db:"exclude_bots"`
	ExcludeParams *string `db:"exclude_params"`
	ExcludeIPs    *string `db:"exclude_ips"`
	Favorite      bool    `db:"favorite"`
	// Timezone is the IANA zone whose days the website counts (NULL: the service's TZ), until
	// TimezoneFrom; from then on TimezoneNext (a change waits for the next local midnight).
	Timezone     *string    `db:"timezone"`
	TimezoneNext *string    `db:"timezone_next"`
	TimezoneFrom *time.Time `db:"timezone_from"`
	CreatedAt    time.Time  `db:"created_at"`
	UpdatedAt    time.Time  `db:"updated_at"`
	// The shields (docs/shields.md), one entry per line, NULL for none.
	BlockCountries   *string `db:"block_countries"`
	BlockPages       *string `db:"block_pages"`
	AllowedHostnames *string `db:"allowed_hostnames"`
	// RetentionDays keeps the website's visit rows that many days; NULL: FACTS_RETENTION.
	RetentionDays *int `db:"retention_days"`
	// AccessVersion moves on every change of the password or the privacy; password grants
	// are only good for the version they were made under.
	AccessVersion int64 `db:"access_version"`
	// Role is the asking user's role on the website, read only by WebsiteRole and
	// ListWebsites (members_roles.go); "" elsewhere.
	Role Role `db:"role"`
}

// NewWebsite is what a store needs, already validated and normalised.
type NewWebsite struct {
	Domain        string
	Privacy       int
	PasswordHash  *string
	Email         int
	ExcludeBots   int
	ExcludeParams *string // nil or "" stores NULL
	ExcludeIPs    *string // nil or "" stores NULL
	Timezone      *string // an IANA name already checked; nil: the service's TZ
	// ServiceZone is the service's TZ, the zone of the website's first day when Timezone is
	// nil (nil: UTC; an import whose zone is not known uses UTC+14, CreateImportedWebsite).
	ServiceZone *time.Location
	// The shields, nil or "" for none; RetentionDays nil or 0 for FACTS_RETENTION.
	BlockCountries   *string
	BlockPages       *string
	AllowedHostnames *string
	RetentionDays    *int
}

// WebsiteChanges lists the fields an update sets; nil leaves a field as it is. For the two
// lists, a non-nil empty string clears the list.
type WebsiteChanges struct {
	Privacy        *int
	PasswordHash   *string
	RemovePassword bool // clears the password; PasswordHash must then be nil
	Email          *int
	ExcludeBots    *int
	ExcludeParams  *string
	ExcludeIPs     *string
	Favorite       *bool
	// Timezone is a new zone (an IANA name already checked); it takes effect at the next
	// midnight of the zone in force (stats.ChangeFrom). ServiceZone is the service's TZ, the
	// zone of a website that has none of its own.
	Timezone    *string
	ServiceZone *time.Location
	// The shields (a non-nil "" clears a list) and the retention (0: back to FACTS_RETENTION).
	BlockCountries   *string
	BlockPages       *string
	AllowedHostnames *string
	RetentionDays    *int
}

// WebsiteQuery selects one page of a user's websites.
type WebsiteQuery struct {
	Search   string // literal, case-insensitive substring of domain; "" for all
	Favorite *bool  // nil for all
	SortBy   string // "id" or "domain"
	Desc     bool
	// FavoriteFirst puts favorites before the others, each part in the order asked (the
	// owner's home page).
	FavoriteFirst bool
	Limit         int
	Offset        int
}

const websiteColumns = `id, user_id, domain, privacy, password_hash, email, exclude_bots,
	exclude_params, exclude_ips, favorite, timezone, timezone_next, timezone_from, created_at,
	updated_at, access_version, block_countries, block_pages, allowed_hostnames, retention_days`

// CreateWebsite stores a website for a user; ErrConflict if the domain is taken by anyone.
func (r *Repository) CreateWebsite(ctx context.Context, userID int64, in NewWebsite) (Website, error) {
	return createWebsite(ctx, r.db, r.now(), userID, in)
}

// firstRowDay is the first day whose visits of a website made at now have their rows, visitor
// days and sources (visits_from, filters_from, sources_from, funnels_from): its date in the
// website's zone. The columns' DEFAULT is the database's current_date, a day late for a
// website west of the database's zone created in its evening, whose first day then went
// missing from its filtered numbers. No zone at all (a caller that has no service zone) gives
// the UTC date; an import whose zone is not known passes latestZone instead.
func firstRowDay(now time.Time, zone *string, service *time.Location) string {
	loc := service
	if zone != nil {
		if l, err := time.LoadLocation(*zone); err == nil {
			loc = l
		}
	}
	if loc == nil {
		loc = time.UTC
	}
	return now.In(loc).Format(time.DateOnly)
}

// latestZone has the latest date any zone has at a moment (UTC+14). An imported website whose
// zone is not known starts its visit rows on that date, so a day that may hold imported
// history is never taken for a day of visit rows.
var latestZone = time.FixedZone("UTC+14", 14*60*60)

func createWebsite(ctx context.Context, q sqlx.QueryerContext, now time.Time, userID int64, in NewWebsite) (Website, error) {
	const query = `
		INSERT INTO websites (user_id, domain, privacy, password_hash, email, exclude_bots,
			exclude_params, exclude_ips, timezone, created_at, updated_at,
			block_countries, block_pages, allowed_hostnames, retention_days,
			visits_from, filters_from, sources_from, funnels_from)
		VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), NULLIF($8, ''), $10, $9, $9,
			NULLIF($11, ''), NULLIF($12, ''), NULLIF($13, ''), NULLIF($14, 0),
			$15, $15, $15, $15)
		RETURNING ` + websiteColumns
	first := firstRowDay(now, in.Timezone, in.ServiceZone)
	now = now.UTC().Truncate(time.Microsecond)
	var w Website
	err := sqlx.GetContext(ctx, q, &w, query, userID, in.Domain, in.Privacy, in.PasswordHash,
		in.Email, in.ExcludeBots, in.ExcludeParams, in.ExcludeIPs, now, in.Timezone,
		in.BlockCountries, in.BlockPages, in.AllowedHostnames, in.RetentionDays, first)
	if isUniqueViolation(err) {
		return Website{}, fmt.Errorf("websites.create: %w", ErrConflict)
	}
	if err != nil {
		return Website{}, fmt.Errorf("websites.create: %w", err)
	}
	return w, nil
}

// Website returns one of a user's own websites (the user its owner); ErrNotFound if it is
// unknown or someone else's. The e-mail reports, which go to owners, use it; pages and API
// calls check the user's role with website.Service.Open instead.
func (r *Repository) Website(ctx context.Context, userID, id int64) (Website, error) {
	w, err := getWebsite(ctx, r.db, "websites.get", id, "")
	if err == nil && w.UserID != userID {
		return Website{}, fmt.Errorf("websites.get: %w", ErrNotFound)
	}
	return w, err
}

// getWebsite reads a website by id, whoever owns it; the callers have checked the role.
func getWebsite(ctx context.Context, q sqlx.QueryerContext, op string, id int64, lock string) (Website, error) {
	query := `
		SELECT ` + websiteColumns + `
		FROM websites
		WHERE id = $1 ` + lock
	var w Website
	err := sqlx.GetContext(ctx, q, &w, query, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Website{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err != nil {
		return Website{}, fmt.Errorf("%s: %w", op, err)
	}
	return w, nil
}

// UpdateWebsite applies changes to a website (the caller checked the role: website.Service).
// It refuses (ErrPasswordRequired) to leave a website at privacy 2 without a password; the
// check and the write share one transaction so a concurrent update cannot slip between them.
// ErrNotFound when there is no such website.
func (r *Repository) UpdateWebsite(ctx context.Context, id int64, ch WebsiteChanges) (Website, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return Website{}, fmt.Errorf("websites.update: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck

	// NO KEY: serialises updates without waiting for a stats flush, which locks FOR KEY SHARE.
	current, err := getWebsite(ctx, tx, "websites.update", id, "FOR NO KEY UPDATE")
	if err != nil {
		return Website{}, err
	}
	privacy := current.Privacy
	if ch.Privacy != nil {
		privacy = *ch.Privacy
	}
	hasPassword := ch.PasswordHash != nil || (current.PasswordHash != nil && !ch.RemovePassword)
	if privacy == 2 && !hasPassword {
		return Website{}, fmt.Errorf("websites.update: %w", ErrPasswordRequired)
	}

	set := []string{"updated_at = $2"}
	if accessChanges(current, ch) {
		set = append(set, "access_version = access_version + 1")
	}
	args := []any{id, r.now().UTC().Truncate(time.Microsecond)}
	add := func(column string, value any, wrap string) {
		args = append(args, value)
		set = append(set, fmt.Sprintf("%s = "+wrap, column, len(args)))
	}
	if ch.Privacy != nil {
		add("privacy", *ch.Privacy, "$%d")
	}
	if ch.PasswordHash != nil {
		add("password_hash", *ch.PasswordHash, "$%d")
	} else if ch.RemovePassword {
		set = append(set, "password_hash = NULL")
	}
	if ch.Email != nil {
		add("email", *ch.Email, "$%d")
	}
	if ch.ExcludeBots != nil {
		add("exclude_bots", *ch.ExcludeBots, "$%d")
	}
	if ch.ExcludeParams != nil {
		add("exclude_params", *ch.ExcludeParams, "NULLIF($%d, '')")
	}
	if ch.ExcludeIPs != nil {
		add("exclude_ips", *ch.ExcludeIPs, "NULLIF($%d, '')")
	}
	if ch.Favorite != nil {
		add("favorite", *ch.Favorite, "$%d")
	}
	for _, list := range []struct {
		column string
		value  *string
	}{{"block_countries", ch.BlockCountries}, {"block_pages", ch.BlockPages}, {"allowed_hostnames", ch.AllowedHostnames}} {
		if list.value != nil {
			add(list.column, *list.value, "NULLIF($%d, '')")
		}
	}
	if ch.RetentionDays != nil {
		add("retention_days", *ch.RetentionDays, "NULLIF($%d, 0)")
	}
	if ch.Timezone != nil {
		if before, next, from, changed := zoneChange(current, *ch.Timezone, ch.ServiceZone, r.now()); changed {
			add("timezone", before, "$%d")
			add("timezone_next", next, "$%d")
			add("timezone_from", from, "$%d")
		}
	}
	query := `
		UPDATE websites
		SET ` + strings.Join(set, ", ") + `
		WHERE id = $1
		RETURNING ` + websiteColumns
	var w Website
	if err := tx.GetContext(ctx, &w, query, args...); err != nil {
		return Website{}, fmt.Errorf("websites.update: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Website{}, fmt.Errorf("websites.update: commit: %w", err)
	}
	return w, nil
}

// zoneChange is what the three zone columns become when name is asked for at now: the zone in
// force now stays until the next midnight (stats.ChangeFrom), then name counts. Asking for the
// zone in force cancels a pending change; asking for the pending one changes nothing.
func zoneChange(current Website, name string, service *time.Location, now time.Time) (before, next *string, from *time.Time, changed bool) {
	inForce := current.Timezone
	if current.TimezoneFrom != nil && !now.Before(*current.TimezoneFrom) {
		inForce = current.TimezoneNext // the last change has taken effect: fold it
	}
	if current.TimezoneNext != nil && *current.TimezoneNext == name && inForce != current.TimezoneNext {
		return nil, nil, nil, false // already pending
	}
	old := current.Zone(service).At(now)
	if old.String() == name {
		return inForce, nil, nil, inForce != current.Timezone || current.TimezoneNext != nil
	}
	loc, err := stats.LoadZone(name)
	if err != nil { // checked by the caller; a website keeps its zone rather than fail here
		return nil, nil, nil, false
	}
	at := stats.ChangeFrom(now, old, loc).UTC()
	return inForce, &name, &at, true
}

// Zone is the website's time zone as it counts days; service is the service's TZ, the zone of
// a website that has none of its own. A name that no longer loads counts in service.
func (w Website) Zone(service *time.Location) stats.Zone {
	return ZoneOf(w.Timezone, w.TimezoneNext, w.TimezoneFrom, service)
}

// ZoneName is the zone the owner chose last (pending or in force): the name the API and the
// forms show, the service's TZ for a website without its own.
func (w Website) ZoneName(service *time.Location) string {
	switch {
	case w.TimezoneNext != nil:
		return *w.TimezoneNext
	case w.Timezone != nil:
		return *w.Timezone
	case service != nil:
		return service.String()
	}
	return "UTC"
}

// ZoneOf makes a stats.Zone of the three zone columns of a website (Before nil when
// timezone is NULL and service nil).
func ZoneOf(timezone, next *string, from *time.Time, service *time.Location) stats.Zone {
	load := func(name *string) *time.Location {
		if name == nil {
			return service
		}
		loc, err := stats.LoadZone(*name)
		if err != nil {
			return service
		}
		return loc
	}
	z := stats.Zone{Before: load(timezone)}
	if next != nil && from != nil {
		z.After, z.From = load(next), *from
	}
	return z
}

// accessChanges tells whether an update changes who may read the stats pages: the privacy, or
// the password (a new one, even the same text, or its removal).
func accessChanges(current Website, ch WebsiteChanges) bool {
	return (ch.Privacy != nil && *ch.Privacy != current.Privacy) ||
		ch.PasswordHash != nil || (ch.RemovePassword && current.PasswordHash != nil)
}

// WebsiteByDomain finds a website by its normalised domain, whoever owns it; the stats pages
// decide who may see it. ErrNotFound if there is none.
func (r *Repository) WebsiteByDomain(ctx context.Context, domain string) (Website, error) {
	const query = `
		SELECT ` + websiteColumns + `
		FROM websites
		WHERE domain = $1`
	var w Website
	err := r.db.GetContext(ctx, &w, query, domain)
	if errors.Is(err, sql.ErrNoRows) {
		return Website{}, fmt.Errorf("websites.by_domain: %w", ErrNotFound)
	}
	if err != nil {
		return Website{}, fmt.Errorf("websites.by_domain: %w", err)
	}
	return w, nil
}

// DeleteWebsite removes a website and all of its stats in one transaction (the caller checked
// the role: website.Service); ErrNotFound when there is no such website.
func (r *Repository) DeleteWebsite(ctx context.Context, id int64) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("websites.delete: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck

	const deleteWebsite = `
		DELETE FROM websites
		WHERE id = $1`
	res, err := tx.ExecContext(ctx, deleteWebsite, id)
	if err != nil {
		return fmt.Errorf("websites.delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("websites.delete: %w", ErrNotFound)
	}
	if err := deleteWebsiteRows(ctx, tx, id); err != nil {
		return fmt.Errorf("websites.delete: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("websites.delete: commit: %w", err)
	}
	return nil
}

// deleteWebsiteRows deletes every row of a website's stats, in the transaction that deletes
// the website (or its owner).
func deleteWebsiteRows(ctx context.Context, tx *sqlx.Tx, id int64) error {
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly", "stats_value_counts",
		"imported_days", "visitor_days", "realtime_minutes", "realtime_recent", "realtime_visitors", "visit_rows",
		"property_keys", "property_values"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE website_id = $1`, id); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// ListWebsites returns one page of the websites a user has a role on (their own and those
// shared with them, each with Role set) and how many match in all.
func (r *Repository) ListWebsites(ctx context.Context, userID int64, q WebsiteQuery) ([]Website, int64, error) {
	// The user's own websites and those shared with them, each with the user's role.
	where := []string{"(w.user_id = $1 OR w.id IN (SELECT website_id FROM website_members WHERE user_id = $1))"}
	args := []any{userID}
	if q.Search != "" {
		args = append(args, likePattern(q.Search))
		where = append(where, fmt.Sprintf("w.domain ILIKE $%d", len(args)))
	}
	if q.Favorite != nil {
		args = append(args, *q.Favorite)
		where = append(where, fmt.Sprintf("w.favorite = $%d", len(args)))
	}
	direction := "ASC"
	if q.Desc {
		direction = "DESC"
	}
	// Ties break by id in the same direction, so paging is stable; only id and domain reach
	// here (the spec's enum), so the column name is never user text.
	order := "w.id " + direction
	if q.SortBy == "domain" {
		order = "w.domain " + direction + ", w.id " + direction
	}
	if q.FavoriteFirst {
		order = "w.favorite DESC, " + order
	}
	whereSQL := strings.Join(where, " AND ")
	query := `
		SELECT ` + prefixed("w.", websiteColumns) + `, ` + roleOf + ` AS role, count(*) OVER () AS total
		FROM websites w
		WHERE ` + whereSQL + `
		ORDER BY ` + order + `
		LIMIT ` + fmt.Sprint(q.Limit) + ` OFFSET ` + fmt.Sprint(q.Offset)
	var rows []struct {
		Website
		Total int64 `db:"total"`
	}
	if err := r.db.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, 0, fmt.Errorf("websites.list: %w", err)
	}
	websites := make([]Website, len(rows))
	for i, row := range rows {
		websites[i] = row.Website
	}
	if len(rows) > 0 {
		return websites, rows[0].Total, nil
	}
	if q.Offset == 0 {
		return websites, 0, nil
	}
	// A page past the end has no row to carry the total; count separately.
	var total int64
	if err := r.db.GetContext(ctx, &total, `SELECT count(*) FROM websites w WHERE `+whereSQL, args...); err != nil {
		return nil, 0, fmt.Errorf("websites.list: count: %w", err)
	}
	return websites, total, nil
}

// ImportedWebsite is a website brought from another product (phpAnalytics) with its settings,
// already checked by the website rules, and what that product knew of it besides.
type ImportedWebsite struct {
	NewWebsite
	Favorite  bool
	CreatedAt time.Time // zero: now
}

// CreateImportedWebsite creates an imported website in tx, the import's transaction
// (BeginWebsiteImport), with what the other product knew of it.
func (r *Repository) CreateImportedWebsite(ctx context.Context, tx *sqlx.Tx, now time.Time, userID int64, in ImportedWebsite) (Website, error) {
	if in.Timezone == nil && in.ServiceZone == nil {
		in.ServiceZone = latestZone
	}
	w, err := createWebsite(ctx, tx, now, userID, in.NewWebsite)
	if err != nil {
		return Website{}, fmt.Errorf("imports.create_website: %w", err)
	}
	if !in.Favorite && in.CreatedAt.IsZero() {
		return w, nil
	}
	created := w.CreatedAt
	if !in.CreatedAt.IsZero() {
		created = in.CreatedAt.UTC().Truncate(time.Microsecond)
	}
	const query = `
		UPDATE websites
		SET favorite = $2, created_at = $3
		WHERE id = $1
		RETURNING ` + websiteColumns
	if err := tx.GetContext(ctx, &w, query, w.ID, in.Favorite, created); err != nil {
		return Website{}, fmt.Errorf("imports.create_website: %w", err)
	}
	return w, nil
}
