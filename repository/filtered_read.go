package repository

import (
	"context"
	"errors"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Filtered reads (CONTRACT.md section 9, docs/filters.md): the numbers of the visits that
// match every filter, read from visit_rows. ListStats, TopStats, TopEvents, Summary and
// Timeseries call these when given filters; the daily counters answer otherwise.

var errFiltersNotBuilt = errors.New("filtered reads are not built yet")

func (r *Repository) filteredList(ctx context.Context, websiteID int64, q StatQuery) ([]StatEntry, int64, error) {
	return nil, 0, errFiltersNotBuilt
}

func (r *Repository) filteredTop(ctx context.Context, websiteID int64, names []stats.Name, days stats.Range, limit int, filters stats.Filters) (map[stats.Name]StatList, error) {
	return nil, errFiltersNotBuilt
}

func (r *Repository) filteredEvents(ctx context.Context, websiteID int64, days stats.Range, limit, valuesEach int, filters stats.Filters) ([]EventGroup, int64, error) {
	return nil, 0, errFiltersNotBuilt
}

func (r *Repository) filteredTotals(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters) (stats.Totals, error) {
	return stats.Totals{}, errFiltersNotBuilt
}

func (r *Repository) filteredSeries(ctx context.Context, websiteID int64, days stats.Range, interval stats.Interval, loc *time.Location, filters stats.Filters) ([]Bucket, error) {
	return nil, errFiltersNotBuilt
}
