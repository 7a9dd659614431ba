package store

import (
	"context"
	"fmt"
)

// CustomProps lists the custom property keys declared for a website, in the order they were
// declared (docs/plausible-sites.md).
func (r *Repository) CustomProps(ctx context.Context, websiteID int64) ([]string, error) {
	out := []string{}
	err := r.db.SelectContext(ctx, &out, `SELECT property FROM website_custom_props WHERE website_id = $1 ORDER BY created_at, property`, websiteID)
	if err != nil {
		return nil, fmt.Errorf("custom_props.list: %w", err)
	}
	return out, nil
}

// DeclareCustomProp declares a key (1..300 characters, checked by the caller and the table)
// for a website; declaring it again changes nothing.
func (r *Repository) DeclareCustomProp(ctx context.Context, websiteID int64, property string) error {
	_, err := r.db.ExecContext(ctx, `INSERT INTO website_custom_props (website_id, property, created_at)
		VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, websiteID, property, r.now().UTC())
	if err != nil {
		return fmt.Errorf("custom_props.declare: %w", err)
	}
	return nil
}

// RemoveCustomProp removes a declared key of a website; a key not declared is no error.
func (r *Repository) RemoveCustomProp(ctx context.Context, websiteID int64, property string) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM website_custom_props WHERE website_id = $1 AND property = $2`, websiteID, property); err != nil {
		return fmt.Errorf("custom_props.remove: %w", err)
	}
	return nil
}
