package graph

import (
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Points are the points of a time series for metric m: one per bucket, empty ones included,
// labelled in the website's zone loc. base is the series a conversion rate divides by, bucket
// by bucket (nil for the other metrics).
func Points(m Metric, interval stats.Interval, series, base []repository.Bucket, loc *time.Location) []Point {
	points := make([]Point, len(series))
	for i, b := range series {
		var p Point
		var of stats.Totals
		if i < len(base) {
			of = base[i].Totals
		}
		p.Units, p.Defined = m.Units(b.Totals, of)
		switch interval {
		case stats.Hour, Minute:
			local := b.Start.In(loc)
			p.Label, p.Tick = local.Format("2006-01-02 15:04"), local.Format("15:04")
			switch {
			case local.Hour() == 0 && local.Minute() == 0:
				p.Tick = local.Format("2 Jan")
			case interval == Minute && local.Minute() != 0: // the axis names hours
				p.Tick = ""
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
