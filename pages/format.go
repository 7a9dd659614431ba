package pages

import (
	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// statistic is one statistic name of the stats API as the pages show it.
type statistic struct {
	Name  stats.Name
	Title string // "Pages", "Operating systems"
	Value string // the column heading of its values
	Count string // what its counts are
}

// statistics in dashboard order: pages, the visit-level names in the order and with the
// labels stats.Dimensions gives them, events. pageview and visitor (time series) are the
// chart; the others are the top lists.
var statistics = func() []statistic {
	out := []statistic{{stats.Page, "Pages", "Page", "Pageviews"}}
	for _, d := range stats.Dimensions {
		out = append(out, statistic{d.Name, d.Title, d.Label, "Visits"})
	}
	return append(out,
		statistic{stats.Event, "Events", "Event", "Events"},
		statistic{stats.Pageview, "Pageviews by day", "Day", "Pageviews"},
		statistic{stats.Visitor, "Visitors by day", "Day", "Visitors"},
		statistic{stats.Visit, "Visits by day", "Day", "Visits"},
		statistic{stats.UTMCampaign, "Campaigns", "Campaign", "Visits"}, // campaign's other name
	)
}()

func statisticNamed(name string) (statistic, bool) {
	for _, s := range statistics {
		if string(s.Name) == name {
			return s, true
		}
	}
	return statistic{}, false
}

// eventValuesShown is how many value:unit parts the dashboard shows under each event name.
const eventValuesShown = 5

// eventGroup is one event name of the dashboard with its total and its values beneath.
type eventGroup struct {
	Name   string // the name as a person reads it (stats.EventNameSpelled)
	Total  int64
	Share  string // of the largest total, 0..100, for the bar
	Values []topRow
	// Filter filters by the event when it has no values beneath (a filter takes a whole
	// event, name:value:unit, not a name); "" otherwise.
	Filter string
}

// eventGroups are the dashboard's rows of grouped events. An event counted only without a
// value or unit has no rows beneath. link makes the address that filters by an event.
func eventGroups(found []repository.EventGroup, spellings map[string]string, link func(stats.Name, string) string) []eventGroup {
	var largest int64 = 1
	for _, g := range found {
		largest = max(largest, g.Total)
	}
	out := make([]eventGroup, len(found))
	for i, g := range found {
		out[i] = eventGroup{Name: stats.EventNameSpelled(g.Name, spellings), Total: g.Total, Share: num(float64(g.Total) / float64(largest) * 100)}
		if len(g.Values) == 1 && g.Values[0].Value == ":" {
			out[i].Filter = link(stats.Event, display.EventValue(g.Name, g.Values[0].Value))
			continue
		}
		for _, v := range g.Values {
			value := display.EventValue(g.Name, v.Value)
			out[i].Values = append(out[i].Values, topRow{Label: display.EventDetail(v.Value), Value: value, Count: v.Count, Filter: link(stats.Event, value)})
		}
	}
	return out
}

// formatCount writes a count with thin groups of three digits: 1 234 567.
func formatCount(n int64) string { return web.GroupDigits(n, "\u202f") }

// countOf is a count with its noun as the pages write it: "1 visitor", "1\u202f234 visitors".
func countOf(n int64, one, many string) string { return web.Counted(n, "\u202f", one, many) }

// changeText is a count's change against the one compared with, as the cards write it.
func changeText(now, before int64) string {
	return web.Change{Now: now, Before: before}.Percent()
}

// num formats an SVG coordinate: two decimals at most, no trailing zeros.
func num(f float64) string { return graph.Num(f) }
