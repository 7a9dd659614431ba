package pages

import (
	"context"
	"fmt"
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
}

var intervalLabels = map[stats.Interval]string{graph.Minute: "Minutes", stats.Hour: "Hours", stats.Daily: "Days", stats.Week: "Weeks", stats.Month: "Months"}

// parseGraph reads graph_metric and interval, each refusal on its parameter (the span is
// valid: interval is checked against it; the conversion rate needs a goal filter, minutes a
// metric a minute counts).
func parseGraph(q url.Values, span graph.Span, goal bool, errs stats.FieldErrors) (graph.Metric, stats.Interval) {
	for _, name := range []string{graph.MetricParam, graph.IntervalParam} {
		if len(q[name]) > 1 {
			errs.Add(name, "must be sent once")
		}
	}
	m, msg := graph.ParseMetric(q.Get(graph.MetricParam), goal)
	if msg != "" {
		errs.Add(graph.MetricParam, msg)
	}
	interval, msg := graph.ParseInterval(q.Get(graph.IntervalParam), span)
	if msg != "" {
		errs.Add(graph.IntervalParam, msg)
	}
	if msg := graph.MinuteMetric(m, interval); msg != "" && len(errs[graph.MetricParam]) == 0 {
		errs.Add(graph.MetricParam, msg)
	}
	return m, interval
}

// checkMinuteComparison refuses a comparison drawn by the minute whose day's minutes are no
// longer kept (the day starts at the compared range's first midnight in loc).
func checkMinuteComparison(interval stats.Interval, rng stats.Range, cmp stats.Comparison, loc *time.Location, now time.Time, errs stats.FieldErrors) {
	if interval != graph.Minute || !cmp.On() {
		return
	}
	from := cmp.Range(rng).From
	if !graph.MinutesReach(stats.DayStart(from, loc), now) {
		errs.Add("comparison", fmt.Sprintf("reaches the last %d days only by the minute (minutes are kept so long); %s is older: choose interval=hour",
			int(repository.MinutesKept/(24*time.Hour)), cmp.Range(rng).String()))
	}
}

// newGraphPanel lays out the graph of the series read (and of the compared ones, none
// without a comparison) in the website's zone loc; base+addr make the interval switch's links
// (a metric a minute does not count leaves minutes out).
func newGraphPanel(base string, addr dashAddress, m graph.Metric, interval stats.Interval, span graph.Span, reads dashboardReads, loc *time.Location, before string) graphPanel {
	rng := span.Range
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
	allowed := graph.Switch(m, span)
	next := graph.Next(interval, allowed)
	for _, i := range allowed {
		panel.Intervals = append(panel.Intervals, intervalLink{Label: intervalLabels[i], URL: base + addr.set(graph.IntervalParam, string(i)),
			Current: i == interval, Next: i == next && i != interval})
	}
	return panel
}

// cardLinks makes each card of a metric the graph can draw a link to the graph of it, the
// shown one current; by the minute, a card of a metric a minute does not count leads to its
// graph in the range's default interval.
func cardLinks(numbers []headline, base string, addr dashAddress, shown graph.Metric, interval stats.Interval, goal bool) {
	for i := range numbers {
		n := &numbers[i]
		if _, msg := graph.ParseMetric(n.Metric, goal); n.Metric == "" || msg != "" {
			continue
		}
		value := n.Metric
		if value == graph.Metrics[0].Name {
			value = "" // the default: the address without it
		}
		change := url.Values{graph.MetricParam: {value}}
		if m, _ := graph.ParseMetric(n.Metric, goal); graph.MinuteMetric(m, interval) != "" {
			change.Set(graph.IntervalParam, "")
		}
		n.URL, n.Current = base+addr.with(change)+"#top-stats", n.Metric == shown.Name
	}
}

// seriesOf is what the graph's series are read for: its metric and interval, and by the
// minute how many minutes of the day (Today's so far, the current one included).
type seriesOf struct {
	metric   graph.Metric
	interval stats.Interval
	minutes  int
}

// minutesSoFar is how many minutes of day (in loc) have begun at now.
func minutesSoFar(day time.Time, loc *time.Location, now time.Time) int {
	return max(0, int(now.Sub(stats.DayStart(day, loc))/time.Minute)+1)
}

// minuteSeries reads s.minutes minutes of the website from the start of day (in loc), as
// buckets of visitors, visits and pageviews (the metrics a minute counts, graph.MinuteMetric).
func (p *Pages) minuteSeries(ctx context.Context, siteID int64, day time.Time, loc *time.Location, s seriesOf) ([]repository.Bucket, error) {
	from := stats.DayStart(day, loc)
	minutes, err := p.base.Repo.Minutes(ctx, siteID, from, from.Add(time.Duration(s.minutes)*time.Minute))
	if err != nil {
		return nil, err
	}
	out := make([]repository.Bucket, len(minutes))
	for i, m := range minutes {
		out[i] = repository.Bucket{Start: m.Start, Totals: stats.Totals{Visitors: m.Visitors, Visits: m.Visits, Pageviews: m.Pageviews}}
	}
	return out, nil
}

// graphSeries reads, in g, the time series of the graph of rng into series: by the minute
// the website's minutes (minuteSeries); else from the
// planner's reader (EventsReader for events: the other series leave the event counter
// unread), or the visit rows' for hours of a metric the hourly counters lack (events); for the conversion rate, also the series it divides by into base: the visitors
// of the visit rows under the filters but the goal, as the card's rate.
func (p *Pages) graphSeries(ctx context.Context, g *errgroup.Group, siteID int64, zone stats.Zone, rng stats.Range, s seriesOf, filters stats.Filters, series, base *[]repository.Bucket) {
	if s.interval == graph.Minute { // Today or its comparison's day, of the whole website
		g.Go(func() (err error) {
			*series, err = p.minuteSeries(ctx, siteID, rng.From, zone.OfDay(rng.From), s)
			return err
		})
		return
	}
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
