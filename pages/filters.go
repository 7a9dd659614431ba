package pages

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/stats"
)

// Filters on the stats pages (docs/filters.md): filter[NAME]=VALUE in the URL,
// read by stats.ParseFilters as the API reads them, so that a filtered view is an address that
// can be bookmarked and shared under the page's access rules.

// parseFilters reads a page's filters from its URL's query (never from a form body: a filter
// is part of the address, not something posted), with the view's locked ones added (locked):
// every stats page reads its filters here, so that every read of a shared link's view is
// narrowed by its segment. A refusal is a 422 on `filter`.
func (v statsView) parseFilters(q url.Values, errs stats.FieldErrors) stats.Filters {
	f, err := stats.ParseFilters(q)
	if err != nil {
		errs.Add(stats.FilterField(err), err.Error())
		return nil
	}
	return v.locked(f, errs)
}

// locked is the address's filters with the view's segment's added, each Locked. A filter of
// the address on a name (a property's key) the segment filters is refused rather than
// dropped or merged: the view cannot show what it asks for (the segment's filter holds
// whatever the viewer adds), and a page that quietly showed other numbers would mislead.
func (v statsView) locked(own stats.Filters, errs stats.FieldErrors) stats.Filters {
	if v.segment == nil {
		return own
	}
	for _, x := range own {
		if slices.ContainsFunc(v.segment.Filters, x.SameField) {
			errs.Add(stats.FilterField(nil), fmt.Sprintf("%s[%s]: %s is fixed by the shared link (its segment “%s”) and cannot be filtered further here",
				x.Param(), x.Field(), fieldLabel(x), v.segment.Name))
		}
	}
	return own.Joined(v.segment.Filters)
}

// fieldLabel is how a message names what a filter filters: "Country", "Property plan".
func fieldLabel(x stats.Filter) string {
	if x.Name == stats.Property {
		return "Property " + x.Key
	}
	return filterLabel(x.Name)
}

// newFilterLinks are the links of a stats page with its filters changed (package filterbar).
// They leave out interval=minute: a view with filters cannot be drawn by the minute (graph.Span),
// as the period menu leaves out an interval its range does not allow.
func newFilterLinks(path string, query url.Values, filters stats.Filters) filterbar.Links {
	if query.Get(graph.IntervalParam) == string(graph.Minute) {
		query = cloneValues(query)
		query.Del(graph.IntervalParam)
	}
	return filterbar.New(path, query, filters, filterLabel)
}

// bar is the chips of l's filters (filterbar.Links.Bar) in the view, naming the shared link's
// segment whose filters are the fixed chips.
func (v statsView) bar(base string, l filterbar.Links) *filterbar.Bar {
	out := l.Bar(base)
	if out != nil && v.segment != nil {
		out.Segment = v.segment.Name
	}
	return out
}

// filterLabel names a filter's statistic in the singular, as a chip reads: "Landing page is
// /pricing".
func filterLabel(name stats.Name) string {
	switch name {
	case stats.LandingPage:
		return "Landing page"
	case stats.ExitPage:
		return "Exit page"
	case stats.GoalName:
		return "Goal"
	}
	stat, _ := statisticNamed(string(name))
	return stat.Value
}
