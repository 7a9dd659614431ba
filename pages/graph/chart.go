package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/web"
)

// The graph is an SVG line chart drawn here: readable without JavaScript, each point's
// <title> saying its bucket's date and value (and the comparison's) on hover. It is drawn
// twice, wide and compact; the stylesheet shows the one that fits the screen, so that its
// labels stay readable on a phone. A point is one transparent <rect> (the wide chart only:
// phones have no hover) carrying its numbers for the page's script, which shows them beside
// a marker; the lines themselves are one <path> each, so a year of days stays light.

// Point is one bucket of the graph.
type Point struct {
	Label   string // "2026-11-03 14:00" (in the website's zone), "2026-11-03", "week of 2026-11-02", "2026-11"
	Tick    string // the axis label: "14:00", "3 Nov", "Nov 2026"; "" for none (a minute not on the hour)
	Units   int64
	Defined bool // false: nothing to divide; no point is drawn
}

// Shape is a chart's size in SVG units, how many dates label its axis and whether its points
// have hover targets.
type Shape struct {
	Class         string // "wide" or "compact"
	Width, Height float64
	Ticks         int
	Hover         bool
}

// Shapes are the two drawings of the graph.
var Shapes = []Shape{
	{Class: "wide", Width: 960, Height: 240, Ticks: 6, Hover: true},
	{Class: "compact", Width: 400, Height: 260, Ticks: 3},
}

const (
	left   = 56.0 // room for the value labels
	right  = 8.0  // room for the last point's marker
	bottom = 22.0 // room for the date labels
	top    = 10.0
)

// X is the middle of bucket i of n across the shape's plot, where its point is drawn (what
// is drawn under the graph, as the annotations' markers, lines up with it).
func (s Shape) X(i, n int) float64 {
	step := (s.Width - left - right) / float64(max(n, 1))
	return left + (float64(i)+0.5)*step
}

// Chart is the data of the "graph_svg" template; every number is formatted here.
type Chart struct {
	Class         string
	Width, Height string
	Left, Right   string
	Bottom        string
	LabelX        string // x of the value labels
	TickY         string // y of the date labels
	Line          string // path data of the metric's line
	Area          string // path data of the area under it
	Dots          []Dot  // points alone between two gaps, which a line cannot show
	// Compared is the comparison's line, dashed, bucket by bucket; "" without one.
	Compared string
	Slots    []Slot
	Grid     []GridLine
	Ticks    []Tick
}

// Dot is a point drawn as a circle.
type Dot struct{ X, Y string }

// Slot is the hover target of one point: its x and width, its marker's place and its numbers.
type Slot struct {
	X, Width string
	// MarkX, MarkY are the point's (MarkY "" when it has no value).
	MarkX, MarkY string
	Title        string // "2026-11-03: 1 204 unique visitors; compared with 2026-10-27: 1 100 (+9%)"
}

// GridLine is a horizontal line of the scale with its value.
type GridLine struct{ Y, Label string }

// Tick is a date under the axis.
type Tick struct{ X, Label string }

// Draw lays out the chart of metric m over points, with the comparison's points (none
// without a comparison) aligned with them bucket by bucket.
func Draw(shape Shape, m Metric, points, compared []Point) Chart {
	base := shape.Height - bottom
	c := Chart{Class: shape.Class, Width: Num(shape.Width), Height: Num(shape.Height), Left: Num(left),
		Right: Num(shape.Width - right), Bottom: Num(base), LabelX: Num(left - 6), TickY: Num(base + 15)}
	compared = compared[:min(len(compared), len(points))]
	var most int64
	for _, p := range append(append([]Point{}, points...), compared...) {
		if p.Defined {
			most = max(most, p.Units)
		}
	}
	scale := NiceCeiling(most)
	plot := base - top
	step := (shape.Width - left - right) / float64(max(len(points), 1))
	x := func(i int) float64 { return shape.X(i, len(points)) }
	y := func(n int64) float64 { return base - float64(n)/float64(scale)*plot }
	c.Line, c.Area, c.Dots = trace(points, x, y, base)
	if len(compared) > 0 {
		c.Compared, _, _ = trace(compared, x, y, base)
	}
	if shape.Hover {
		for i, p := range points {
			s := Slot{X: Num(left + float64(i)*step), Width: Num(step), MarkX: Num(x(i)), Title: title(m, p, compared, i)}
			if p.Defined {
				s.MarkY = Num(y(p.Units))
			}
			c.Slots = append(c.Slots, s)
		}
	}
	for i := 0; i <= 4; i++ {
		n := scale * int64(i) / 4
		c.Grid = append(c.Grid, GridLine{Y: Num(y(n)), Label: m.Text(n)})
	}
	// The axis labels a few of the points that have a label (minutes have one on the hour).
	var labelled []int
	for i, p := range points {
		if p.Tick != "" {
			labelled = append(labelled, i)
		}
	}
	every := max(1, int(math.Ceil(float64(len(labelled))/float64(shape.Ticks))))
	for j := 0; j < len(labelled); j += every {
		i := labelled[j]
		c.Ticks = append(c.Ticks, Tick{X: Num(x(i)), Label: points[i].Tick})
	}
	return c
}

// trace writes the path data of a line through the defined points, broken where a point has
// no value, and of the area under it; a point alone between two gaps is a dot.
func trace(points []Point, x func(int) float64, y func(int64) float64, base float64) (string, string, []Dot) {
	var dots []Dot
	var line, area strings.Builder
	run := 0 // points in the current piece of line
	closeArea := func(last int) {
		if run > 0 {
			fmt.Fprintf(&area, "L%s %sL%s %sZ", Num(x(last)), Num(base), Num(x(last-run+1)), Num(base))
		}
	}
	for i, p := range points {
		if !p.Defined {
			if run == 1 {
				dots = append(dots, Dot{X: Num(x(i - 1)), Y: Num(y(points[i-1].Units))})
			}
			closeArea(i - 1)
			run = 0
			continue
		}
		cmd := "L"
		if run == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&line, "%s%s %s", cmd, Num(x(i)), Num(y(p.Units)))
		fmt.Fprintf(&area, "%s%s %s", cmd, Num(x(i)), Num(y(p.Units)))
		run++
	}
	if run == 1 {
		last := len(points) - 1
		dots = append(dots, Dot{X: Num(x(last)), Y: Num(y(points[last].Units))})
	}
	closeArea(len(points) - 1)
	return line.String(), area.String(), dots
}

// title is what a point says on hover: its bucket and value, and the compared bucket's with
// the change.
func title(m Metric, p Point, compared []Point, i int) string {
	t := p.Label + ": " + value(m, p)
	if i < len(compared) {
		o := compared[i]
		change := web.Change{Now: p.Units, Before: o.Units, Undefined: !p.Defined || !o.Defined}
		t += "; compared with " + o.Label + ": " + value(m, o) + " (" + change.Percent() + ")"
	}
	return t
}

// value is a point's value with what it is: "1 204 unique visitors", "41.4% bounce rate",
// "–" for nothing to divide.
func value(m Metric, p Point) string {
	if !p.Defined {
		return "– " + strings.ToLower(m.Label)
	}
	label := strings.ToLower(m.Label)
	if p.Units == 1 && strings.HasSuffix(label, "s") && m.Text(1) == "1" { // "1 visit", not "1 visits"
		label = strings.TrimSuffix(label, "s")
	}
	return m.Text(p.Units) + " " + label
}

// Table is the graph's numbers as a table's lines, with the compared bucket beside each.
func Table(m Metric, points, compared []Point) []Row {
	rows := make([]Row, len(points))
	for i, p := range points {
		rows[i] = Row{Label: p.Label, Value: text(m, p)}
		if i < len(compared) {
			o := compared[i]
			rows[i].Compared, rows[i].ComparedLabel, rows[i].ComparedValue = true, o.Label, text(m, o)
			rows[i].Change = web.Change{Now: p.Units, Before: o.Units, Undefined: !p.Defined || !o.Defined}.Percent()
		}
	}
	return rows
}

// Row is one line of the graph's table.
type Row struct {
	Label, Value string
	// Of the compared bucket at the same place, when there is one.
	Compared                             bool
	ComparedLabel, ComparedValue, Change string
}

func text(m Metric, p Point) string {
	if !p.Defined {
		return "–"
	}
	return m.Text(p.Units)
}

// Summary describes the chart for a screen reader: what it draws, its total or range of
// values, and its largest.
func Summary(m Metric, unit, period string, points []Point) string {
	var most int64
	defined := 0
	for _, p := range points {
		if p.Defined {
			most, defined = max(most, p.Units), defined+1
		}
	}
	if defined == 0 {
		return fmt.Sprintf("%s per %s, %s: nothing to show.", m.Label, unit, period)
	}
	return fmt.Sprintf("%s per %s, %s: at most %s in one %s.", m.Label, unit, period, m.Text(most), unit)
}

// Num formats an SVG coordinate: two decimals at most, no trailing zeros.
func Num(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// NiceCeiling is the top of the scale: four grid steps, each a round number (1, 1.2, 1.5, 2,
// 2.5, 3, 4, 5, 6 or 8 times a power of ten), together at least n.
func NiceCeiling(n int64) int64 {
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
