package graph

// BarChart is a bar chart of counts in one of the graph's Shapes, three quarters of its
// height: the realtime view's pageviews per minute. Every number is formatted here.
type BarChart struct {
	Class                      string
	Width, Height, Left, Right string
	LabelX, TickY              string
	Bars                       []Bar
	Lines                      []GridLine
}

// Bar is one count's bar, with what it says on hover.
type Bar struct {
	X, Y, Width, Height string
	Title               string
}

const (
	barsLeft   = 48.0 // room for the count labels
	barsBottom = 22.0 // room for the axis' labels
	barsTop    = 8.0
)

// Bars lays out one bar per count, the first on the left, bar i saying titles[i] on hover.
func Bars(shape Shape, counts []int64, titles []string) BarChart {
	var most int64
	for _, n := range counts {
		most = max(most, n)
	}
	scale := NiceCeiling(most)
	height := shape.Height * 0.75
	bottom := height - barsBottom
	plot := bottom - barsTop
	slot := (shape.Width - barsLeft) / float64(max(len(counts), 1))
	c := BarChart{Class: shape.Class, Width: Num(shape.Width), Height: Num(height), Left: Num(barsLeft), Right: Num(shape.Width),
		LabelX: Num(barsLeft - 6), TickY: Num(bottom + 15)}
	for i := 0; i <= 2; i++ {
		n := scale * int64(i) / 2
		c.Lines = append(c.Lines, GridLine{Y: Num(bottom - float64(n)/float64(scale)*plot), Label: countText(n)})
	}
	gap := min(slot*0.15, 3)
	for i, n := range counts {
		h := float64(n) / float64(scale) * plot
		c.Bars = append(c.Bars, Bar{X: Num(barsLeft + float64(i)*slot + gap), Y: Num(bottom - h), Width: Num(slot - 2*gap), Height: Num(h), Title: titles[i]})
	}
	return c
}
