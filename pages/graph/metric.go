// Package graph is the dashboard's graph: the metric it draws (chosen by clicking a top
// stat's card, graph_metric= in the address), the buckets it is cut into (interval=, as the
// range allows) and the SVG line chart the server draws, which reads without JavaScript.
package graph

import (
	"strings"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// MetricParam is the query parameter naming the graph's metric.
const MetricParam = "graph_metric"

// Metric is one number the graph can draw: a bucket's value in whole units of its last
// decimal (tenths of a percent for the bounce rate, hundredths for views per visit), so that
// its change is exact, as the cards' are.
type Metric struct {
	Name  string // as graph_metric takes it
	Label string // "Unique visitors"
	// Units is the value of a bucket's totals; defined is false for a rate or mean with
	// nothing to divide, which the graph leaves out rather than draw as 0.
	Units func(stats.Totals) (units int64, defined bool)
	// Text writes a value in units: "1 204", "41.4%", "2.86", "1m 5s".
	Text func(units int64) string
	// Inverse: a rise is bad news (the bounce rate).
	Inverse bool
}

// groupSep is the digit group separator of the dashboard's numbers (a narrow no-break space).
const groupSep = "\u202f"

func count(part stats.Part) func(stats.Totals) (int64, bool) {
	return func(t stats.Totals) (int64, bool) { return t.Part(part), true }
}

func ratio(r stats.Ratio) func(stats.Totals) (int64, bool) {
	return func(t stats.Totals) (int64, bool) { return r.Units(t), r.Defined(t) }
}

func countText(n int64) string { return web.GroupDigits(n, groupSep) }

// Metrics are the graph's metrics, in the order of the cards; the first is the default. Not
// events: the time series has none (the daily event counters are kept by name, many a day),
// nor the conversion rate (no time series of it yet); those cards are not links.
var Metrics = []Metric{
	{Name: "visitors", Label: "Unique visitors", Units: count(stats.VisitorsPart), Text: countText},
	{Name: "visits", Label: "Visits", Units: count(stats.VisitsPart), Text: countText},
	{Name: "pageviews", Label: "Pageviews", Units: count(stats.PageviewsPart), Text: countText},
	{Name: "views_per_visit", Label: "Views per visit", Units: ratio(stats.ViewsPerVisitRatio),
		Text: func(n int64) string { return web.Decimal(n, 2) }},
	{Name: "bounce_rate", Label: "Bounce rate", Units: ratio(stats.BounceRateRatio), Inverse: true,
		Text: func(n int64) string { return web.Decimal(n, 1) + "%" }},
	{Name: "visit_duration", Label: "Visit duration", Units: ratio(stats.VisitDurationRatio), Text: web.Duration},
}

// ParseMetric is the metric graph_metric names, the first (visitors) when absent; a name that
// is none gives the message of the refusal on graph_metric.
func ParseMetric(name string) (m Metric, message string) {
	if name == "" {
		return Metrics[0], ""
	}
	for _, m := range Metrics {
		if m.Name == name {
			return m, ""
		}
	}
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return Metrics[0], "must be one of " + strings.Join(names, ", ")
}
