package pages

import (
	"github.com/analytics-service/analytics/pages/graph"
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
