package repository

import (
	"fmt"
	"strings"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// The metrics, each declared once (as Plausible's metrics.ex): a count is a sum of parts
// (stats.Part), a rate divides two (stats.Ratio, whose rounding and "nothing to divide" the v1
// summary, the pages and the reports share); both stores compute them from the same parts,
// summed over days and over stores before anything is divided. The counters' parts are
// stats.Totals; the visit rows' are the columns of the statement's per-visitor groups v
// (query.go), where every visit is timed. The metrics that need more than parts (percentage,
// the conversion rates, time on page and scroll depth, revenue) are computed where their
// wholes are read: finish, conversionMetrics, engagementSQL, revenueSQL.

// metricDef is how a metric is made of parts: a count's parts (summed), or a ratio.
type metricDef struct {
	count []stats.Part
	ratio *stats.Ratio
}

// totalsMetrics are the metrics of stats.Totals' parts, in rowTotals' order.
var totalsMetrics = []query.Metric{query.Visitors, query.Visits, query.Pageviews, query.CustomEvents, query.Bounces, query.VisitSeconds}

var metricDefs = map[query.Metric]metricDef{
	query.Visitors:      {count: []stats.Part{stats.VisitorsPart}},
	query.Visits:        {count: []stats.Part{stats.VisitsPart}},
	query.Pageviews:     {count: []stats.Part{stats.PageviewsPart}},
	query.Events:        {count: []stats.Part{stats.PageviewsPart, stats.EventsPart}}, // Plausible's: pageviews and custom events
	query.BounceRate:    {ratio: &stats.BounceRateRatio},
	query.VisitDuration: {ratio: &stats.VisitDurationRatio},
	query.ViewsPerVisit: {ratio: &stats.ViewsPerVisitRatio},
	query.CustomEvents:  {count: []stats.Part{stats.EventsPart}},
	query.Bounces:       {count: []stats.Part{stats.BouncesPart}},
	query.VisitSeconds:  {count: []stats.Part{stats.VisitSecondsPart}},
	// Their visitors here; finish and conversionMetrics divide them by their wholes.
	query.Percentage:          {count: []stats.Part{stats.VisitorsPart}},
	query.ConversionRate:      {count: []stats.Part{stats.VisitorsPart}},
	query.GroupConversionRate: {count: []stats.Part{stats.VisitorsPart}},
}

// counterValue is metric m of the counters' totals t.
func counterValue(m query.Metric, t stats.Totals) float64 {
	def := metricDefs[m]
	if def.ratio != nil {
		return def.ratio.Of(t)
	}
	var sum int64
	for _, p := range def.count {
		sum += t.Part(p)
	}
	return float64(sum)
}

// counterMetrics are q's metrics of the counters' totals.
func counterMetrics(q *query.Query, t stats.Totals) []float64 {
	out := make([]float64, len(q.Metrics))
	for i, m := range q.Metrics {
		out[i] = counterValue(m, t)
	}
	return out
}

// rowPart is the SQL of a part's sum over v's rows (perVisitor); grouped: v has a row a
// (dimensions, day, visitor) (queryBuild.groupVisitors).
func rowPart(p stats.Part, grouped bool) string {
	switch p {
	case stats.VisitorsPart:
		if grouped {
			// One visitor a row; count(DISTINCT) would sort every row for nothing.
			return "sum(visitors)"
		}
		// v's visitors where rkey is NULL; one a visitor-day of several visits.
		return "(coalesce(sum(visitors) FILTER (WHERE rkey IS NULL), 0) + count(DISTINCT rkey))"
	case stats.VisitsPart, stats.TimedVisitsPart: // every visit row is timed
		return "sum(visits)"
	case stats.PageviewsPart:
		return "sum(pageviews)"
	case stats.EventsPart:
		return "sum(events)"
	case stats.BouncesPart:
		return "sum(bounces)"
	case stats.VisitSecondsPart:
		return "sum(seconds)"
	}
	panic(fmt.Sprintf("repository: unknown part %d", p))
}

// metricSQL is a metric over v's rows, rounded as its ratio rounds (PostgreSQL's round of a
// numeric: halves away from zero, as stats.Ratio).
func metricSQL(m query.Metric) string { return metricSQLOver(m, false) }

// metricSQL is the metric over b's v (grouped by visitor, or not).
func (b *queryBuild) metricSQL(m query.Metric) string { return metricSQLOver(m, b.groupVisitors) }

func metricSQLOver(m query.Metric, grouped bool) string {
	if m == query.TimeOnPage || m == query.ScrollDepth {
		return engagementSQL(m)
	}
	def, ok := metricDefs[m]
	if !ok {
		panic("repository: unknown metric " + string(m))
	}
	if r := def.ratio; r != nil {
		num := rowPart(r.Num, grouped) + "::numeric"
		if r.Scale != 1 {
			num = fmt.Sprint(r.Scale) + " * " + num
		}
		return fmt.Sprintf("coalesce(round(%s / nullif(%s, 0), %d), 0)", num, rowPart(r.Den, grouped), r.Decimals)
	}
	parts := make([]string, len(def.count))
	for i, p := range def.count {
		parts[i] = rowPart(p, grouped)
	}
	return strings.Join(parts, " + ")
}
