// Package dashparts lays out parts of the dashboard that need no HTTP and no template
// (docs/segments.md): the annotation markers under the graph, which saved segment the
// dashboard shows, and the countries map's shapes. Package pages reads what they need and
// renders them; keeping them here keeps pages small.
package dashparts

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/worldmap"
)

// Note is an annotation as the markers need it.
type Note struct {
	ID   int64
	Date string // YYYY-MM-DD
	Text string
}

// Chart is one drawn shape of the graph: its class, its width in SVG units, and X, the
// middle of bucket i of n in it.
type Chart struct {
	Class string
	Width float64
	X     func(i, n int) float64
}

// Strip is the row of markers under one chart shape, in its units.
type Strip struct {
	Class   string
	Width   string
	Markers []Marker
}

// Marker is one annotation's marker: its x, the note it stands for, and its title.
type Marker struct {
	X     string
	ID    int64
	Title string // "2026-03-10: the note"
}

// Markers place each note under the bucket that holds its day, in every chart shape. starts
// are the buckets' starts, hours already in the website's time zone; hourly: the buckets are
// hours, and a day's note goes under the day's first.
func Markers(notes []Note, starts []time.Time, hourly bool, charts []Chart) []Strip {
	var out []Strip
	for _, c := range charts {
		strip := Strip{Class: c.Class, Width: num(c.Width)}
		for _, n := range notes {
			if i := bucketOf(n.Date, starts, hourly); i >= 0 {
				strip.Markers = append(strip.Markers, Marker{X: num(c.X(i, len(starts))), ID: n.ID, Title: n.Date + ": " + n.Text})
			}
		}
		out = append(out, strip)
	}
	return out
}

// bucketOf is the index of the last bucket starting on or before the day, the day's first
// when the buckets are hours; -1 when the day is before the first bucket.
func bucketOf(day string, starts []time.Time, hourly bool) int {
	found := -1
	for i, s := range starts {
		date := s.Format(time.DateOnly)
		if date > day {
			break
		}
		if hourly && found >= 0 && starts[found].Format(time.DateOnly) == day {
			continue // the day's first hour is found
		}
		found = i
	}
	return found
}

// num formats an SVG coordinate: two decimals at most, no trailing zeros.
func num(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// SameFilters tells whether two lists of the dashboard's filters (both in the order
// stats.ParseFilters gives) filter alike: a country or continent by its code, as it filters
// (a segment keeps the code only).
func SameFilters(a, b stats.Filters) bool {
	return slices.EqualFunc(a, b, func(x, y stats.Filter) bool {
		return x.Name == y.Name && x.Key == y.Key && x.Op == y.Op && slices.Equal(compared(x), compared(y))
	})
}

func compared(f stats.Filter) []string {
	values := f.List()
	if d, _, ok := stats.DimensionOf(f.Name); !ok || d.Compare != stats.CodeBefore {
		return values
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i], _, _ = strings.Cut(v, ":")
	}
	return out
}

// Map is the data of the countries map: each country drawn, shaded by the count of the
// Countries list (the same number as the table beside it), a country with a count a link.
type Map struct {
	ViewBox string
	Shapes  []Shape
}

// Shape is one country as the map draws it.
type Shape struct {
	Path  string
	Level int    // 0 (none) to worldmap.Levels
	Title string // "Germany: 1,204 visits"
	URL   string // the dashboard filtered by the country; "" without a count
}

// Country is one row of the Countries list: its stored value ("DE:Germany") and count.
type Country struct {
	Value string
	Count int64
}

// NewMap shades the map by the list's rows; title writes a country's title from its list
// value and count, link the address that filters by the value.
func NewMap(rows []Country, title func(value string, count int64) string, link func(value string) string) Map {
	counts := map[string]int64{}
	values := map[string]string{}
	for _, r := range rows {
		code, _, _ := strings.Cut(r.Value, ":")
		counts[code] += r.Count
		values[code] = r.Value
	}
	m := Map{ViewBox: worldmap.ViewBox()}
	for _, s := range worldmap.Draw(counts) {
		shape := Shape{Path: s.Path, Level: s.Level, Title: s.Name + ": no visits"}
		if v, ok := values[s.Code]; ok {
			shape.Title, shape.URL = title(v, s.Count), link(v)
		}
		m.Shapes = append(m.Shapes, shape)
	}
	return m
}
