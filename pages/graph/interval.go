package graph

import (
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// IntervalParam is the query parameter naming the graph's buckets.
const IntervalParam = "interval"

// The buckets a range may be cut into, as Plausible's dashboard allows them: minutes for
// Today (Span), hours up to 31 days (stats.Hour.MaxDays), days from two days on (one day is
// one point), weeks for ranges over two days, months for ranges over two months (61 days).
const (
	minDailyDays   = 2
	minWeeklyDays  = 3
	minMonthlyDays = 62
	// By default up to two days are drawn an hour a point, up to 92 days (a quarter) a day a
	// point, up to two years a week a point (a year is 53 points, not 365 hairlines), longer
	// ranges a month a point.
	defaultHourlyDays = 2
	defaultDailyDays  = 92
	defaultWeeklyDays = 731
)

// Minute cuts Today into minutes, from the website's minutes (repository.Minutes: visitors,
// visits and pageviews of the whole website, kept for repository.MinutesKept). Only Today
// without filters may be drawn so (Span), and only the metrics a minute counts
// (Metric.Minutes).
const Minute stats.Interval = "minute"

// Intervals are the intervals the graph can show, in order of size.
var Intervals = []stats.Interval{Minute, stats.Hour, stats.Daily, stats.Week, stats.Month}

// WithinDay tells whether an interval's buckets are parts of a day (labelled by the clock).
func WithinDay(i stats.Interval) bool { return i == Minute || i == stats.Hour }

// Span is what a graph's intervals depend on: its range, and whether it may be drawn by the
// minute (SpanOf), or why not. A Span of a range alone has no minutes.
type Span struct {
	Range     stats.Range
	minutes   bool
	noMinutes string // why not; "" for a range that is not Today
}

// SpanOf is the span of a dashboard's graph of r, today being the website's Today; filtered:
// the view has filters, which the minutes cannot apply (they count the whole website).
func SpanOf(r stats.Range, today time.Time, filtered bool) Span {
	s := Span{Range: r}
	switch {
	case r.Hours.Set || !r.From.Equal(today) || !r.To.Equal(today):
	case filtered:
		s.noMinutes = "minute counts the whole website: it takes no filters"
	default:
		s.minutes = true
	}
	return s
}

// Minutes tells whether the span may be drawn by the minute.
func (s Span) Minutes() bool { return s.minutes }

// whyNoMinutes is the refusal of minutes for a span that has none.
func (s Span) whyNoMinutes() string {
	if s.noMinutes != "" {
		return s.noMinutes
	}
	return "minute is for Today only"
}

// Allows tells whether the graph of a span may be cut into buckets of i.
func Allows(i stats.Interval, s Span) bool {
	r := s.Range
	if i == Minute {
		return s.Minutes()
	}
	if r.Hours.Set { // the last 24 hours: by the hour only
		return i == stats.Hour
	}
	days := r.Days()
	switch i {
	case stats.Hour:
		return days <= stats.Hour.MaxDays()
	case stats.Daily:
		return days >= minDailyDays
	case stats.Week:
		return days >= minWeeklyDays
	case stats.Month:
		return days >= minMonthlyDays
	}
	return false
}

// Allowed are the intervals a span may be cut into, smallest first.
func Allowed(s Span) []stats.Interval {
	var out []stats.Interval
	for _, i := range Intervals {
		if Allows(i, s) {
			out = append(out, i)
		}
	}
	return out
}

// Default is the interval of a range's graph when the address names none.
func Default(r stats.Range) stats.Interval {
	switch days := r.Days(); {
	case days <= defaultHourlyDays:
		return stats.Hour
	case days <= defaultDailyDays:
		return stats.Daily
	case days <= defaultWeeklyDays:
		return stats.Week
	}
	return stats.Month
}

// ParseInterval is the interval the address asks for, the range's default when none; an
// interval that is not one, or that the span does not allow, gives the message of the
// refusal on interval.
func ParseInterval(asked string, s Span) (stats.Interval, string) {
	r := s.Range
	if asked == "" {
		return Default(r), ""
	}
	i := stats.Interval(asked)
	known := false
	for _, k := range Intervals {
		known = known || k == i
	}
	allowed := Allowed(s)
	names := make([]string, len(allowed))
	for n, a := range allowed {
		names[n] = string(a)
	}
	switch {
	case !known:
		return Default(r), "must be one of minute, hour, day, week, month"
	case i == Minute && !s.Minutes():
		return Default(r), s.whyNoMinutes() + "; " + r.String() + " allows " + strings.Join(names, ", ")
	case !Allows(i, s):
		return Default(r), asked + " is not allowed for " + r.String() + " (" + daysText(r.Days()) + "); it allows " + strings.Join(names, ", ")
	}
	return i, ""
}

// MinutesReach tells whether the minutes of a day that starts at from are still kept at now
// (a comparison drawn by the minute reads them).
func MinutesReach(from, now time.Time) bool { return !from.Before(now.Add(-repository.MinutesKept)) }

func daysText(n int) string {
	if n == 1 {
		return "1 day"
	}
	return stats.GroupThousands(n) + " days"
}

// Switch are the intervals the graph of metric m over a span offers: those the span allows,
// but minutes for a metric a minute does not count.
func Switch(m Metric, s Span) []stats.Interval {
	var out []stats.Interval
	for _, i := range Allowed(s) {
		if MinuteMetric(m, i) == "" {
			out = append(out, i)
		}
	}
	return out
}

// Next is the interval after i among those allowed, the first after the last: the keyboard's
// I goes round them.
func Next(i stats.Interval, allowed []stats.Interval) stats.Interval {
	for n, a := range allowed {
		if a == i {
			return allowed[(n+1)%len(allowed)]
		}
	}
	return allowed[0]
}
