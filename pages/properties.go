package pages

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The dashboard's Properties panel (docs/properties.md): the range's custom property keys as a
// chooser, and the values of the chosen one, each a link that filters by it
// (property_filter[KEY]=VALUE). Keys and values are whatever a stranger's tracker sent: they
// reach the page only through html/template's escaping, and the CSV only through web.CSV.

// propertyParam is the dashboard's parameter that chooses the key shown; absent: the key
// carried by the most hits.
const propertyParam = "property"

// propertiesExport is the export's name for the custom properties (key, value, hits).
const propertiesExport = "properties"

// propertiesPanel is the data of the Properties panel; nil when the range has no property.
type propertiesPanel struct {
	Keys      []tabLink // the key chooser; Current marks the key shown
	Key       string
	Rows      []topRow // its values
	Distinct  int64    // how many values it has
	ExportURL string
}

// parsePropertyKey reads the chosen key: 1 to 255 characters of text, or none.
func parsePropertyKey(q url.Values, errs stats.FieldErrors) string {
	v, ok := q[propertyParam]
	switch {
	case !ok:
		return ""
	case len(v) > 1:
		errs.Add(propertyParam, "must be sent once")
	case !stats.ValidText(v[0]):
		errs.Add(propertyParam, stats.TextRule)
	case utf8.RuneCountInString(v[0]) > stats.MaxFilterValueLength:
		errs.Add(propertyParam, "must be at most 255 characters")
	default:
		return v[0]
	}
	return ""
}

// propertyReads are the keys and the chosen key's values as read.
type propertyReads struct {
	keys     []repository.StatEntry
	key      string
	values   []repository.StatEntry
	distinct int64
}

// readProperties reads the range's top keys and the values of key (or of the first key).
func (p *Pages) readProperties(ctx context.Context, siteID int64, rng stats.Range, filters stats.Filters, key string) (propertyReads, error) {
	if has, err := p.base.Repo.HasProperties(ctx, siteID, rng); err != nil || !has {
		return propertyReads{}, err
	}
	reader := p.base.Repo.RowReader(siteID, rng, filters)
	top := repository.StatQuery{Name: stats.Property, SortBy: "count", Desc: true, Limit: topSize}
	keys, _, err := reader.List(ctx, top)
	if err != nil || len(keys) == 0 {
		return propertyReads{}, err
	}
	if key == "" {
		key = keys[0].Value
	}
	top.Property = key
	values, distinct, err := reader.List(ctx, top)
	return propertyReads{keys: keys, key: key, values: values, distinct: distinct}, err
}

// newPropertiesPanel lays the panel out: dash is the dashboard's address, query its range and
// filters, links its filter links.
func newPropertiesPanel(dash string, query url.Values, links filterbar.Links, reads propertyReads, exportURL string) *propertiesPanel {
	if len(reads.keys) == 0 {
		return nil
	}
	panel := &propertiesPanel{Key: reads.key, Distinct: reads.distinct, ExportURL: exportURL}
	for _, k := range reads.keys {
		q := url.Values{}
		for name, v := range query {
			q[name] = v
		}
		q.Set(propertyParam, k.Value)
		panel.Keys = append(panel.Keys, tabLink{Label: k.Value, URL: dash + "?" + q.Encode(), Current: k.Value == reads.key})
	}
	link := func(_ stats.Name, value string) string {
		if value == stats.Other {
			return "" // (other) matches nothing
		}
		if links.Fixed(stats.Filter{Name: stats.Property, Key: reads.key}) {
			return "" // the shared link's segment filters this key
		}
		return links.To(links.Filters.WithProperty(reads.key, value))
	}
	panel.Rows = topRows(stats.Property, reads.values, link)
	return panel
}

func propertiesExportURL(v statsView, rng stats.Range, filters stats.Filters) string {
	q := filterbar.With(rng.Query(), filters)
	q.Set("name", propertiesExport)
	return v.url("/export", q)
}

// exportProperties answers the CSV of the range's custom properties with the filters: key,
// value and the hits that carried them, by hits descending.
func (p *Pages) exportProperties(w http.ResponseWriter, r *http.Request, site repository.Website, rng stats.Range, filters stats.Filters) {
	pairs, _, err := p.base.Repo.PropertyPairs(r.Context(), site.ID, rng, filters)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	out := startCSV(w, site, "properties", rng, filters)
	out.Row("key", "value", "hits")
	for _, pair := range pairs {
		out.Row(pair.Key, pair.Value, strconv.FormatInt(pair.Hits, 10))
	}
	if err := out.Flush(); err != nil {
		p.base.Log.Warn("export: write", "error", err) // the client went away
	}
}
