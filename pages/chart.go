package pages

import (
	"fmt"
	"math"
	"time"
)

// The chart is an SVG drawn here, on the server: readable without JavaScript, and each bar's
// <title> shows its day's numbers on hover. It is drawn twice, wide and compact; the
// stylesheet shows the one that fits the screen, so its labels stay readable on a phone.
const (
	chartLeft   = 48.0 // room for the count labels
	chartBottom = 22.0 // room for the date labels
	chartTop    = 8.0
	// Up to a year is drawn a bar a day; longer ranges a bar a month, or bars would be thinner
	// than a pixel.
	maxDailyBars = 366
)

// chartPoint is one bar: a day, or a month for long ranges.
type chartPoint struct {
	Label     string // "2026-11-03" or "2026-11"
	Pageviews int64
	Visitors  int64
}

type chartBar struct {
	X, Width               float64 // the slot
	PageviewsY, PageviewsH float64
	VisitorsX, VisitorsW   float64
	VisitorsY, VisitorsH   float64
	Title                  string
}

type chartLine struct {
	Y     float64
	Label string
}

type chartTick struct {
	X     float64
	Label string
}

// chartShape is a chart's size, in SVG units, and how many dates label its axis.
type chartShape struct {
	Class         string // "wide" or "compact"
	Width, Height float64
	Ticks         int
}

var chartShapes = []chartShape{
	{Class: "wide", Width: 960, Height: 240, Ticks: 6},
	{Class: "compact", Width: 400, Height: 260, Ticks: 3},
}

// chart is the data of the chart in dashboard.html.
type chart struct {
	Class         string
	Width, Height float64
	Left, Right   float64
	Bottom        float64
	Bars          []chartBar
	Lines         []chartLine
	Ticks         []chartTick
	Points        []chartPoint // the same numbers as a table
	PerMonth      bool
	Summary       string
}

// newChart lays out the bars of a range from its points.
func newChart(shape chartShape, r dateRange, points []chartPoint) chart {
	c := chart{Class: shape.Class, Width: shape.Width, Height: shape.Height, Left: chartLeft, Right: shape.Width,
		Bottom: shape.Height - chartBottom, Points: points, PerMonth: r.Days() > maxDailyBars}
	var top int64
	for _, p := range points {
		top = max(top, p.Pageviews, p.Visitors)
	}
	scale := niceCeiling(top)
	plotHeight := c.Bottom - chartTop
	slot := (shape.Width - chartLeft) / float64(len(points))
	y := func(n int64) float64 { return c.Bottom - float64(n)/float64(scale)*plotHeight }
	unit := "day"
	if c.PerMonth {
		unit = "month"
	}
	for i, p := range points {
		x := chartLeft + float64(i)*slot
		gap := math.Min(slot*0.15, 3)
		inner := slot - 2*gap
		c.Bars = append(c.Bars, chartBar{
			X: x, Width: slot,
			PageviewsY: y(p.Pageviews), PageviewsH: c.Bottom - y(p.Pageviews),
			VisitorsX: x + gap + inner*0.2, VisitorsW: inner * 0.6,
			VisitorsY: y(p.Visitors), VisitorsH: c.Bottom - y(p.Visitors),
			Title: fmt.Sprintf("%s: %s pageviews, %s visitors", p.Label, formatCount(p.Pageviews), formatCount(p.Visitors)),
		})
		c.Bars[i].X, c.Bars[i].Width = x+gap, inner
	}
	for i := 0; i <= 4; i++ {
		n := scale * int64(i) / 4
		c.Lines = append(c.Lines, chartLine{Y: y(n), Label: formatCount(n)})
	}
	step := max(1, int(math.Ceil(float64(len(points))/float64(shape.Ticks))))
	for i := 0; i < len(points); i += step {
		c.Ticks = append(c.Ticks, chartTick{X: chartLeft + (float64(i)+0.5)*slot, Label: tickLabel(points[i].Label, c.PerMonth)})
	}
	var pv, vi int64
	for _, p := range points {
		pv += p.Pageviews
		vi += p.Visitors
	}
	c.Summary = fmt.Sprintf("Pageviews and visitors per %s, %s: %s pageviews and %s visitors in all, at most %s pageviews in one %s.",
		unit, r.String(), formatCount(pv), formatCount(vi), formatCount(top), unit)
	return c
}

// chartPoints is one point per day of the range, zero where nothing was counted, or one per
// month for long ranges.
func chartPoints(r dateRange, pageviews, visitors map[string]int64) []chartPoint {
	perMonth := r.Days() > maxDailyBars
	var points []chartPoint
	for d := r.From; !d.After(r.To); d = d.AddDate(0, 0, 1) {
		day := d.Format(time.DateOnly)
		label := day
		if perMonth {
			label = d.Format("2006-01")
		}
		if n := len(points); n == 0 || points[n-1].Label != label {
			points = append(points, chartPoint{Label: label})
		}
		last := &points[len(points)-1]
		last.Pageviews += pageviews[day]
		last.Visitors += visitors[day]
	}
	return points
}

// niceCeiling is the top of the chart's scale: four grid steps, each a round number (1, 1.2,
// 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), together at least n.
func niceCeiling(n int64) int64 {
	if n <= 4 {
		return 4
	}
	need := float64(n) / 4
	magnitude := math.Pow(10, math.Floor(math.Log10(need)))
	for _, f := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		step := f * magnitude
		if step >= need && step == math.Trunc(step) {
			return 4 * int64(step)
		}
	}
	return 4 * int64(10*magnitude)
}

func tickLabel(label string, perMonth bool) string {
	layout, out := time.DateOnly, "2 Jan"
	if perMonth {
		layout, out = "2006-01", "Jan 2006"
	}
	t, err := time.Parse(layout, label)
	if err != nil {
		return label
	}
	return t.Format(out)
}
