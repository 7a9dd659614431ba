package pages

import (
	"context"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/worldmap"
)

// maxCountries is more than the countries there are: the map reads them all.
const maxCountries = 300

// countryMap is the data of the "country_map" template: the countries drawn by the server
// (package worldmap), each shaded by the visits the Countries list counts (the same number
// as the table beside it), a country with visits a link that filters by it.
type countryMap struct {
	ViewBox string
	Shapes  []mapShape
	Levels  []int // 1..worldmap.Levels, for the legend
}

type mapShape struct {
	Path  string
	Level int
	Title string // "Germany: 1,204 visits"
	URL   string // the dashboard filtered by the country; "" without visits
}

// countryMap reads the range's countries and shades the map by them.
func (p *Pages) countryMap(ctx context.Context, site repository.Website, rng stats.Range, filters stats.Filters, links filterLinks) (*countryMap, error) {
	top, err := p.repo.Reader(site.ID, rng, filters).Top(ctx, []stats.Name{stats.Country}, maxCountries)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	values := map[string]string{}
	for _, e := range top[stats.Country].Entries {
		code, _, _ := strings.Cut(e.Value, ":")
		counts[code] += e.Count
		values[code] = e.Value
	}
	m := &countryMap{ViewBox: worldmap.ViewBox()}
	for level := 1; level <= worldmap.Levels; level++ {
		m.Levels = append(m.Levels, level)
	}
	for _, s := range worldmap.Draw(counts) {
		shape := mapShape{Path: s.Path, Level: s.Level, Title: s.Name + ": no visits"}
		if v, ok := values[s.Code]; ok {
			shape.Title = displayValue(stats.Country, v) + ": " + countOf(s.Count, "visit", "visits")
			shape.URL = links.add(stats.Country, v)
		}
		m.Shapes = append(m.Shapes, shape)
	}
	return m, nil
}
