// Package graph is the dashboard's graph: the metric it draws (chosen by clicking a top
// stat's card, graph_metric= in the address), the buckets it is cut into (interval=, as the
// range allows) and the SVG line chart the server draws, which reads without JavaScript.
package graph

import (
	"math"
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
	// Units is the value of a bucket's totals (and of its base's: the visitors a conversion
	// rate divides by); defined is false for a rate or mean with nothing to divide, which the
	// graph leaves out rather than draw as 0.
	Units func(t, base stats.Totals) (units int64, defined bool)
	// Text writes a value in units: "1 204", "41.4%", "2.86", "1m 5s".
	Text func(units int64) string
	// Inverse: a rise is bad news (the bounce rate).
	Inverse bool
	// Goal: the metric is the conversion rate, shown under a goal filter only; its buckets
	// divide by those of a base, the visitors of the same filters but the goal (as the card's
	// rate does).
	Goal bool
	// HourlyRows: the daily counters have it, the hourly ones not (events): its hours are read
	// from the visit rows.
	HourlyRows bool
	// Minutes: a minute counts it (repository.Minute), so it can be drawn by the minute.
	Minutes bool
}

// groupSep is the digit group separator of the dashboard's numbers (a narrow no-break space).
const groupSep = "\u202f"

func count(part stats.Part) func(t, base stats.Totals) (int64, bool) {
	return func(t, _ stats.Totals) (int64, bool) { return t.Part(part), true }
}

func ratio(r stats.Ratio) func(t, base stats.Totals) (int64, bool) {
	return func(t, _ stats.Totals) (int64, bool) { return r.Units(t), r.Defined(t) }
}

// conversionRate is a bucket's converted visitors of its base's, in tenths of a percent, as
// stats.ConversionRate rounds it.
func conversionRate(t, base stats.Totals) (int64, bool) {
	return int64(math.Round(stats.ConversionRate(t.Visitors, base.Visitors) * 10)), base.Visitors > 0
}

func countText(n int64) string { return web.GroupDigits(n, groupSep) }

func percentText(n int64) string { return web.Decimal(n, 1) + "%" }

// Metrics are the graph's metrics, in the order of the cards; the first is the default.
var Metrics = []Metric{
	{Name: "visitors", Label: "Unique visitors", Units: count(stats.VisitorsPart), Text: countText, Minutes: true},
	{Name: "visits", Label: "Visits", Units: count(stats.VisitsPart), Text: countText, Minutes: true},
	{Name: "pageviews", Label: "Pageviews", Units: count(stats.PageviewsPart), Text: countText, Minutes: true},
	{Name: "views_per_visit", Label: "Views per visit", Units: ratio(stats.ViewsPerVisitRatio),
		Text: func(n int64) string { return web.Decimal(n, 2) }},
	{Name: "bounce_rate", Label: "Bounce rate", Units: ratio(stats.BounceRateRatio), Inverse: true, Text: percentText},
	{Name: "visit_duration", Label: "Visit duration", Units: ratio(stats.VisitDurationRatio), Text: web.Duration},
	{Name: "events", Label: "Events", Units: count(stats.EventsPart), Text: countText, HourlyRows: true},
	{Name: "conversion_rate", Label: "Conversion rate", Units: conversionRate, Text: percentText, Goal: true},
}

// ParseMetric is the metric graph_metric names, the first (visitors) when absent; goal tells
// whether the view has a goal filter, which the conversion rate needs. A name that is none,
// or the conversion rate without a goal filter, gives the message of the refusal on
// graph_metric.
func ParseMetric(name string, goal bool) (m Metric, message string) {
	if name == "" {
		return Metrics[0], ""
	}
	for _, m := range Metrics {
		switch {
		case m.Name != name:
		case m.Goal && !goal:
			return Metrics[0], name + " is drawn under a goal filter only (filter[goal]=NAME)"
		default:
			return m, ""
		}
	}
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
		if m.Goal {
			names[i] += " (under a goal filter)"
		}
	}
	return Metrics[0], "must be one of " + strings.Join(names, ", ")
}

// MinuteMetric is the refusal of metric m drawn in buckets of i ("" when it can be): a
// minute counts visitors, visits and pageviews only.
func MinuteMetric(m Metric, i stats.Interval) string {
	if i != Minute || m.Minutes {
		return ""
	}
	var names []string
	for _, o := range Metrics {
		if o.Minutes {
			names = append(names, o.Name)
		}
	}
	return m.Name + " is not counted by the minute: interval=minute draws " + strings.Join(names, ", ")
}
