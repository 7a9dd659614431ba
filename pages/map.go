package pages

import (
	"context"

	"github.com/analytics-service/analytics/pages/dashparts"
	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// maxCountries is more than the countries there are: the map reads them all.
const maxCountries = 300

// countryMap reads the range's countries (the Countries list's numbers: visits) and shades
// the map by them (package dashparts, docs/segments.md); each country with visits links to
// the dashboard filtered by it.
func (p *Pages) countryMap(ctx context.Context, site repository.Website, rng stats.Range, filters stats.Filters, links filterbar.Links) (*dashparts.Map, error) {
	top, err := p.base.Repo.Reader(site.ID, rng, filters).Top(ctx, []stats.Name{stats.Country}, maxCountries)
	if err != nil {
		return nil, err
	}
	var rows []dashparts.Country
	for _, e := range top[stats.Country].Entries {
		rows = append(rows, dashparts.Country{Value: e.Value, Count: e.Count})
	}
	m := dashparts.NewMap(rows,
		func(v string, n int64) string {
			return display.Value(stats.Country, v) + ": " + countOf(n, "visit", "visits")
		},
		func(v string) string { return links.Add(stats.Country, v) })
	return &m, nil
}
