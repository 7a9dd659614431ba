package repository

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/analytics-service/analytics/repository/counters"
)

// Imports write through the counters' writer (repository/counters/imports.go).

// Import sources, as imported_days.source spells them (docs/imports.md).
const (
	SourcePlausible    = counters.SourcePlausible
	SourcePHPAnalytics = counters.SourcePHPAnalytics
	SourceGoatCounter  = counters.SourceGoatCounter
)

type (
	HeldDay = counters.HeldDay
	Import  = counters.Import
)

// BeginImport starts an import of days of a website from source (counters.BeginImport).
func (r *Repository) BeginImport(ctx context.Context, websiteID int64, source string, days []time.Time) (*Import, []HeldDay, error) {
	return counters.BeginImport(ctx, r.db, websiteID, source, days)
}

// BeginWebsiteImport starts the import of a whole website from another product: in one
// transaction, it creates the website for a user (ErrConflict if the domain is taken by anyone)
// and then takes its counters (Add) and its days (MarkNewWebsiteDays) until Commit.
func (r *Repository) BeginWebsiteImport(ctx context.Context, userID int64, in ImportedWebsite) (*Import, Website, error) {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, Website{}, fmt.Errorf("imports.begin_website: %w", err)
	}
	w, err := r.CreateImportedWebsite(ctx, tx, r.now(), userID, in)
	if err != nil {
		return nil, Website{}, errors.Join(err, tx.Rollback())
	}
	return counters.NewImport(tx, w.ID), w, nil
}
