package pages

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// The chart is an SVG drawn here, on the server: readable without JavaScript, and each bar's
// <title> shows its day's numbers on hover. It is drawn twice, wide and compact; the
// stylesheet shows the one that fits the screen, so its labels stay readable on a phone.
//
// Each series is one <path> whose bars are drawn here, and a day is one transparent <rect>
// with its <title> (the wide chart only: phones have no hover): a year's chart is a few
// hundred elements, not thousands, and costs little to render.
const (
	chartLeft   = 48.0 // room for the count labels
	chartBottom = 22.0 // room for the date labels
	chartTop    = 8.0
	// Up to two days are drawn a bar an hour, up to 92 days (a quarter) a bar a day, up to two
	// years a bar a week (a year is 53 bars, not 365 hairlines); longer ranges a bar a month.
	maxHourlyDays = 2
	maxDailyBars  = 92
	maxWeeklyDays = 731
)

// chartInterval is the bars' size for a range.
func chartInterval(r stats.Range) stats.Interval {
	switch {
	case r.Days() <= maxHourlyDays:
		return stats.Hour
	case r.Days() <= maxDailyBars:
		return stats.Daily
	case r.Days() <= maxWeeklyDays:
		return stats.Week
	}
	return stats.Month
}

// chartPoint is one bar: an hour, a day, or a month for long ranges.
type chartPoint struct {
	Label     string // "2026-11-03 14:00" (in TZ), "2026-11-03", "week of 2026-11-02" or "2026-11"
	Tick      string // the axis label: "14:00", "3 Nov", "Nov 2026"
	Pageviews int64
	Visitors  int64
}

// chartRow is one line of the chart's table.
type chartRow struct {
	Label, Pageviews, Visitors string
	// Of the compared bucket at the same place, when there is one.
	Compared                                           bool
	ComparedLabel, ComparedPageviews, ComparedVisitors string
}

// chartSlot is the hover target of one bar: its x and width (formatted) and its numbers.
type chartSlot struct {
	X, Width string
	Title    string
}

type chartLine struct {
	Y     string
	Label string
}

type chartTick struct {
	X     string
	Label string
}

// chartShape is a chart's size, in SVG units, how many dates label its axis, and whether its
// days have hover targets.
type chartShape struct {
	Class         string // "wide" or "compact"
	Width, Height float64
	Ticks         int
	Hover         bool
}

var chartShapes = []chartShape{
	{Class: "wide", Width: 960, Height: 240, Ticks: 6, Hover: true},
	{Class: "compact", Width: 400, Height: 260, Ticks: 3},
}

// chart is the data of the chart in dashboard.html. Numbers are formatted here.
type chart struct {
	Class         string
	Width, Height string
	Left, Right   string
	Bottom        string
	LabelX        string // x of the count labels
	TickY         string // y of the date labels
	Pageviews     string // path data of the pageview bars
	Visitors      string // path data of the visitor bars
	// The comparison's lines, dashed: path data through the middles of its buckets, the
	// first with the range's first; "" without a comparison.
	ComparedPageviews, ComparedVisitors string
	Slots                               []chartSlot
	Lines                               []chartLine
	Ticks                               []chartTick
	Unit                                string // "hour", "day" or "month"
	Summary                             string
}

// newChart lays out the bars of a range from its points, and the lines of the compared
// days' points (none without a comparison).
func newChart(shape chartShape, r stats.Range, interval stats.Interval, points, compared []chartPoint) chart {
	bottom := shape.Height - chartBottom
	c := chart{Class: shape.Class, Width: num(shape.Width), Height: num(shape.Height), Left: num(chartLeft),
		Right: num(shape.Width), Bottom: num(bottom), LabelX: num(chartLeft - 6), TickY: num(bottom + 15),
		Unit: string(interval)}
	var top int64
	for _, p := range points {
		top = max(top, p.Pageviews, p.Visitors)
	}
	for _, p := range compared[:min(len(compared), len(points))] {
		top = max(top, p.Pageviews, p.Visitors)
	}
	scale := niceCeiling(top)
	plotHeight := bottom - chartTop
	slot := (shape.Width - chartLeft) / float64(len(points))
	y := func(n int64) float64 { return bottom - float64(n)/float64(scale)*plotHeight }
	unit := c.Unit
	var pageviews, visitors strings.Builder
	bar := func(b *strings.Builder, x, width float64, n int64) {
		if n == 0 {
			return
		}
		h := bottom - y(n)
		fmt.Fprintf(b, "M%s %sh%sv%sh-%sz", num(x), num(bottom), num(width), num(-h), num(width))
	}
	for i, p := range points {
		x := chartLeft + float64(i)*slot
		gap := math.Min(slot*0.15, 3)
		inner := slot - 2*gap
		bar(&pageviews, x+gap, inner, p.Pageviews)
		bar(&visitors, x+gap+inner*0.2, inner*0.6, p.Visitors)
		if shape.Hover {
			title := fmt.Sprintf("%s: %s, %s", p.Label, countOf(p.Pageviews, "pageview", "pageviews"), countOf(p.Visitors, "visitor", "visitors"))
			if i < len(compared) {
				o := compared[i]
				title += fmt.Sprintf("; compared with %s: %s (%s), %s (%s)", o.Label,
					countOf(o.Pageviews, "pageview", "pageviews"), changeText(p.Pageviews, o.Pageviews),
					countOf(o.Visitors, "visitor", "visitors"), changeText(p.Visitors, o.Visitors))
			}
			c.Slots = append(c.Slots, chartSlot{X: num(x), Width: num(slot), Title: title})
		}
	}
	c.Pageviews, c.Visitors = pageviews.String(), visitors.String()
	var cmpPageviews, cmpVisitors strings.Builder
	for i, o := range compared[:min(len(compared), len(points))] {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		mid := num(chartLeft + (float64(i)+0.5)*slot)
		fmt.Fprintf(&cmpPageviews, "%s%s %s", cmd, mid, num(y(o.Pageviews)))
		fmt.Fprintf(&cmpVisitors, "%s%s %s", cmd, mid, num(y(o.Visitors)))
	}
	c.ComparedPageviews, c.ComparedVisitors = cmpPageviews.String(), cmpVisitors.String()
	for i := 0; i <= 4; i++ {
		n := scale * int64(i) / 4
		c.Lines = append(c.Lines, chartLine{Y: num(y(n)), Label: formatCount(n)})
	}
	step := max(1, int(math.Ceil(float64(len(points))/float64(shape.Ticks))))
	for i := 0; i < len(points); i += step {
		c.Ticks = append(c.Ticks, chartTick{X: num(chartLeft + (float64(i)+0.5)*slot), Label: points[i].Tick})
	}
	var pv, vi int64
	for _, p := range points {
		pv += p.Pageviews
		vi += p.Visitors
	}
	c.Summary = fmt.Sprintf("Pageviews and visitors per %s, %s: %s and %s in all, at most %s in one %s.",
		unit, r.String(), countOf(pv, "pageview", "pageviews"), countOf(vi, "visitor", "visitors"), countOf(top, "pageview", "pageviews"), unit)
	return c
}

// chartTable is the chart's numbers as the lines of a table, with the compared bucket at
// the same place beside each.
func chartTable(points, compared []chartPoint) []chartRow {
	rows := make([]chartRow, len(points))
	for i, p := range points {
		rows[i] = chartRow{Label: p.Label, Pageviews: formatCount(p.Pageviews), Visitors: formatCount(p.Visitors)}
		if i < len(compared) {
			o := compared[i]
			rows[i].Compared, rows[i].ComparedLabel = true, o.Label
			rows[i].ComparedPageviews, rows[i].ComparedVisitors = formatCount(o.Pageviews), formatCount(o.Visitors)
		}
	}
	return rows
}

// changeText is a count's change against the one compared with, as the cards write it.
func changeText(now, before int64) string {
	return web.Change{Now: now, Before: before}.Percent()
}

// num formats an SVG coordinate: two decimals at most, no trailing zeros.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// chartPoints are the bars of a time series: one per bucket, empty ones included.
func chartPoints(interval stats.Interval, series []repository.Bucket, loc *time.Location) []chartPoint {
	points := make([]chartPoint, len(series))
	for i, b := range series {
		p := chartPoint{Pageviews: b.Totals.Pageviews, Visitors: b.Totals.Visitors}
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
