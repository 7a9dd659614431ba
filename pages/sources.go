package pages

import (
	"net/url"
	"slices"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// The dashboard's Sources panel: one card with a tab per way of naming where visits came from,
// reading only the list of the tab shown. The tab travels in the address (?sources=NAME), so
// that it is kept by the range, preset and filter links and can be bookmarked.

// sourcesParam is the query parameter that names the tab shown.
const sourcesParam = "sources"

// sourceTab is one tab: the statistic it lists and its label.
type sourceTab struct {
	Name  stats.Name
	Label string
}

// sourceTabs are the panel's tabs, in order; the first is shown when none is asked for.
var sourceTabs = []sourceTab{
	{stats.Channel, "Channels"}, {stats.Source, "Sources"}, {stats.UTMMedium, "UTM medium"},
	{stats.UTMSource, "UTM source"}, {stats.Campaign, "UTM campaign"}, {stats.UTMTerm, "UTM term"},
	{stats.UTMContent, "UTM content"},
}

// sourcesPanel is the data of the panel in dashboard.html.
type sourcesPanel struct {
	Tabs   []tabLink
	List   topList // the tab shown
	Label  string  // its label
	Notice string  // what its days before the upgrade lack; "" when none of the range's
}

type tabLink struct {
	Label   string
	URL     string
	Current bool
}

// inSourcesPanel tells whether a statistic is listed by the panel rather than a card of its own.
func inSourcesPanel(n stats.Name) bool {
	return slices.ContainsFunc(sourceTabs, func(t sourceTab) bool { return t.Name == n })
}

// parseSourcesTab is the tab the address asks for, the first when none; an unknown one is
// refused as other parameters are.
func parseSourcesTab(q url.Values, errs stats.FieldErrors) stats.Name {
	asked := q.Get(sourcesParam)
	if asked == "" {
		return sourceTabs[0].Name
	}
	for _, t := range sourceTabs {
		if stats.Name(asked).Canonical() == t.Name { // utm_campaign is campaign
			return t.Name
		}
	}
	names := make([]stats.Name, len(sourceTabs))
	for i, t := range sourceTabs {
		names[i] = t.Name
	}
	errs.Add(sourcesParam, stats.OneOf(names))
	return sourceTabs[0].Name
}

// newSourcesPanel lays out the panel: dash is the dashboard's address, rangeQuery its range and
// filters, list the shown tab's top list, sourcesFrom the website's first day counted with the
// new names and lacking whether a counted day of the range is before it.
func newSourcesPanel(dash, rangeQuery string, shown stats.Name, list topList, sourcesFrom time.Time, lacking bool) sourcesPanel {
	panel := sourcesPanel{List: list}
	for _, t := range sourceTabs {
		q, _ := url.ParseQuery(rangeQuery)
		if t.Name != sourceTabs[0].Name {
			q.Set(sourcesParam, string(t.Name))
		}
		panel.Tabs = append(panel.Tabs, tabLink{Label: t.Label, URL: dash + "?" + q.Encode() + "#sources", Current: t.Name == shown})
		if t.Name == shown {
			panel.Label = t.Label
		}
	}
	// campaign was counted before the upgrade: only the other tabs start at it.
	if shown != stats.Campaign && lacking {
		panel.Notice = "Sources, channels and UTM tags other than the campaign are counted from " +
			sourcesFrom.Format("2 Jan 2006") + ": the days of this range before it have them only where imported from Plausible."
	}
	return panel
}
