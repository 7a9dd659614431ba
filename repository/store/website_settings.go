package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SiteSettings is what the tracker endpoint needs of a website.
type WebsiteSettings struct {
	ID            int64   `db:"id"`
	Domain        string  `db:"domain"`
	ExcludeBots   int     `db:"exclude_bots"`
	ExcludeParams *string `db:"exclude_params"`
	ExcludeIPs    *string `db:"exclude_ips"`
	// The website's zone (Website.Zone): NULL timezone is the service's TZ.
	Timezone     *string    `db:"timezone"`
	TimezoneNext *string    `db:"timezone_next"`
	TimezoneFrom *time.Time `db:"timezone_from"`
	// The shields (docs/shields.md), one entry per line; NULL for none.
	BlockCountries   *string `db:"block_countries"`
	BlockPages       *string `db:"block_pages"`
	AllowedHostnames *string `db:"allowed_hostnames"`
}

// websiteSettingsColumns are the columns of WebsiteSettings.
const websiteSettingsColumns = `id, domain, exclude_bots, exclude_params, exclude_ips, timezone, timezone_next,
	timezone_from, block_countries, block_pages, allowed_hostnames`

// AllSiteSettings returns the settings of every website, for the ingest cache.
func (r *Repository) AllWebsiteSettings(ctx context.Context) ([]WebsiteSettings, error) {
	const query = `
		SELECT ` + websiteSettingsColumns + `
		FROM websites`
	var sites []WebsiteSettings
	if err := r.db.SelectContext(ctx, &sites, query); err != nil {
		return nil, fmt.Errorf("sites.all: %w", err)
	}
	return sites, nil
}

// SiteSettingsByID returns one website's settings; ErrNotFound once it is deleted.
func (r *Repository) WebsiteSettingsByID(ctx context.Context, id int64) (WebsiteSettings, error) {
	const query = `
		SELECT ` + websiteSettingsColumns + `
		FROM websites
		WHERE id = $1`
	var s WebsiteSettings
	err := r.db.GetContext(ctx, &s, query, id)
	if errors.Is(err, sql.ErrNoRows) {
		return WebsiteSettings{}, fmt.Errorf("sites.by_id: %w", ErrNotFound)
	}
	if err != nil {
		return WebsiteSettings{}, fmt.Errorf("sites.by_id: %w", err)
	}
	return s, nil
}

// WebsiteRetention is a website that keeps its visit rows fewer days than FACTS_RETENTION.
type WebsiteRetention struct {
	ID   int64 `db:"id"`
	Days int   `db:"retention_days"`
}

// ShortRetentions lists the websites whose retention is under factsRetention days (the
// others' rows go with their partitions).
func (r *Repository) ShortRetentions(ctx context.Context, factsRetention int) ([]WebsiteRetention, error) {
	var out []WebsiteRetention
	const query = `SELECT id, retention_days FROM websites WHERE retention_days < $1 ORDER BY id`
	if err := r.db.SelectContext(ctx, &out, query, factsRetention); err != nil {
		return nil, fmt.Errorf("retention.websites: %w", err)
	}
	return out, nil
}
