package pages

import (
	"time"

	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// The realtime view's bar chart of minutes is drawn in the shapes of the dashboard's graph
// (pages/graph): wide and compact, the stylesheet showing the one that fits the screen.
const (
	chartLeft   = 48.0 // room for the count labels
	chartBottom = 22.0 // room for the date labels
	chartTop    = 8.0
)

// chartShape is a chart's size, in SVG units, how many labels its axis has, and whether its
// bars have hover targets.
type chartShape = graph.Shape

var chartShapes = graph.Shapes

type chartLine struct {
	Y     string
	Label string
}

// changeText is a count's change against the one compared with, as the cards write it.
func changeText(now, before int64) string {
	return web.Change{Now: now, Before: before}.Percent()
}

// num formats an SVG coordinate: two decimals at most, no trailing zeros.
func num(f float64) string { return graph.Num(f) }

func niceCeiling(n int64) int64 { return graph.NiceCeiling(n) }

// graphPoints are the points of a time series for metric m: one per bucket, empty ones
// included, labelled in the website's zone loc.
func graphPoints(m graph.Metric, interval stats.Interval, series []repository.Bucket, loc *time.Location) []graph.Point {
	points := make([]graph.Point, len(series))
	for i, b := range series {
		var p graph.Point
		p.Units, p.Defined = m.Units(b.Totals)
		switch interval {
		case stats.Hour:
			local := b.Start.In(loc)
			p.Label, p.Tick = local.Format("2006-01-02 15:04"), local.Format("15:04")
			if local.Hour() == 0 {
				p.Tick = local.Format("2 Jan")
			}
		case stats.Week:
			// The week's Monday, which for the first week may be before the range.
			p.Label, p.Tick = "week of "+b.Start.Format(time.DateOnly), b.Start.Format("2 Jan")
		case stats.Month:
			p.Label, p.Tick = b.Start.Format("2006-01"), b.Start.Format("Jan 2006")
		default:
			p.Label, p.Tick = b.Start.Format(time.DateOnly), b.Start.Format("2 Jan")
		}
		points[i] = p
	}
	return points
}
