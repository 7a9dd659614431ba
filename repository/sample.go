package repository

import (
	"context"
	"fmt"

	"github.com/analytics-service/analytics/stats"
)

// sampleFraction is the fraction of a website's visitors that reads of its visit rows over
// the range read: stats.SampleFraction of the range's pageviews by the daily counters (which
// read a range in milliseconds, and count imported days too: a view is sampled by what it
// shows, never less exact than its rows alone would be). Every read of one view (a page's
// panels, a query and its wholes) asks the same range, so gets the same fraction, and the
// sample keeps the same visitors (stats.SampleCut), so the panels add up.
func (r *Repository) sampleFraction(ctx context.Context, websiteID int64, days stats.Range) (float64, error) {
	sums, err := r.SumStats(ctx, websiteID, []stats.Name{stats.Pageview}, days)
	if err != nil {
		return 0, fmt.Errorf("stats.sample_fraction: %w", err)
	}
	return stats.SampleFraction(sums[stats.Pageview]), nil
}
