package pages

import (
	"context"
	"net/url"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/pages/dashparts"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The dashboard's graph (pages/graph): the metric of the card clicked (graph_metric=), in
// buckets of the interval chosen (interval=, as the range allows), with the comparison's
// dashed line.

// graphPanel is the data of the "graph" template (_graph.html).
type graphPanel struct {
	Metric   graph.Metric
	Unit     string // "hour", "day", "week" or "month"
	Charts   []graphChart
	Table    []graph.Row
	Compared bool   // the chart and the table have the comparison's numbers
	Before   string // what the dashed line is: "the 30 days before"
	// Intervals is the interval switch: the intervals the range allows, the shown one
	// current; the one after it is the keyboard's I.
	Intervals []intervalLink
	Markers   []dashparts.Strip // the annotations' markers, one row a chart (pinned.go)
}

// graphChart is one drawing of the graph with what it says to a screen reader.
type graphChart struct {
	graph.Chart
	Summary string
}

type intervalLink struct {
	Label   string
	URL     string
	Current bool
	Next    bool // the keyboard's I goes to it
	Other   bool // it leads to another page (Today's minutes: the realtime view's)
}

var intervalLabels = map[stats.Interval]string{stats.Hour: "Hours", stats.Daily: "Days", stats.Week: "Weeks", stats.Month: "Months"}

// parseGraph reads graph_metric and interval, each refusal on its parameter (the range is
// valid: interval is checked against it; the conversion rate needs a goal filter).
func parseGraph(q url.Values, rng stats.Range, goal bool, errs stats.FieldErrors) (graph.Metric, stats.Interval) {
	for _, name := range []string{graph.MetricParam, graph.IntervalParam} {
		if len(q[name]) > 1 {
			errs.Add(name, "must be sent once")
		}
	}
	m, msg := graph.ParseMetric(q.Get(graph.MetricParam), goal)
	if msg != "" {
		errs.Add(graph.MetricParam, msg)
	}
	interval, msg := graph.ParseInterval(q.Get(graph.IntervalParam), rng)
	if msg != "" {
		errs.Add(graph.IntervalParam, msg)
	}
	return m, interval
}

// newGraphPanel lays out the graph of the series read (and of the compared ones, none
// without a comparison) in the website's zone loc; base+addr make the interval switch's links,
// realtime the one to minutes (the realtime view's, graph.Minute) for Today ("" otherwise).
func newGraphPanel(base string, addr dashAddress, m graph.Metric, interval stats.Interval, rng stats.Range, reads dashboardReads, loc *time.Location, before, realtime string) graphPanel {
	points := graph.Points(m, interval, reads.series, reads.rateBase, loc)
	var cmp []graph.Point
	if reads.cmp.On() {
		cmp = graph.Points(m, interval, reads.compared, reads.comparedBase, loc)
	}
	panel := graphPanel{Metric: m, Unit: string(interval), Table: graph.Table(m, points, cmp), Compared: len(cmp) > 0, Before: before}
	for _, shape := range graph.Shapes {
		panel.Charts = append(panel.Charts, graphChart{Chart: graph.Draw(shape, m, points, cmp),
			Summary: graph.Summary(m, string(interval), rng.String(), points)})
	}
	next := graph.Next(interval, rng)
	for _, i := range graph.Allowed(rng) {
		panel.Intervals = append(panel.Intervals, intervalLink{Label: intervalLabels[i], URL: base + addr.set(graph.IntervalParam, string(i)),
			Current: i == interval, Next: i == next && i != interval})
	}
	if realtime != "" {
		panel.Intervals = append([]intervalLink{{Label: "Minutes", URL: realtime, Other: true}}, panel.Intervals...)
	}
	return panel
}

// cardLinks makes each card of a metric the graph can draw a link to the graph of it, the
// shown one current.
func cardLinks(numbers []headline, base string, addr dashAddress, shown graph.Metric, goal bool) {
	for i := range numbers {
		n := &numbers[i]
		if _, msg := graph.ParseMetric(n.Metric, goal); n.Metric == "" || msg != "" {
			continue
		}
		value := n.Metric
		if value == graph.Metrics[0].Name {
			value = "" // the default: the address without it
		}
		n.URL, n.Current = base+addr.set(graph.MetricParam, value)+"#top-stats", n.Metric == shown.Name
	}
}

// seriesOf is what the graph's series are read for: its metric and interval.
type seriesOf struct {
	metric   graph.Metric
	interval stats.Interval
}

// graphSeries reads, in g, the time series of the graph of rng into series: from the
// planner's reader (EventsReader for events: the other series leave the event counter
// unread), or the visit rows' for hours of a metric the hourly counters lack (events); for the conversion rate, also the series it divides by into base: the visitors
// of the visit rows under the filters but the goal, as the card's rate.
func (p *Pages) graphSeries(ctx context.Context, g *errgroup.Group, siteID int64, zone stats.Zone, rng stats.Range, s seriesOf, filters stats.Filters, series, base *[]repository.Bucket) {
	reader := p.base.Repo.Reader(siteID, rng, filters)
	switch {
	case s.metric.HourlyRows && s.interval == stats.Hour:
		reader = p.base.Repo.RowReader(siteID, rng, filters)
	case s.metric.HourlyRows:
		reader = p.base.Repo.EventsReader(siteID, rng, filters)
	}
	g.Go(func() (err error) {
		*series, err = reader.Series(ctx, s.interval, zone)
		return err
	})
	if s.metric.Goal {
		g.Go(func() (err error) {
			*base, err = p.base.Repo.RowReader(siteID, rng, filters.Canonical().Without(stats.GoalName)).Series(ctx, s.interval, zone)
			return err
		})
	}
}
