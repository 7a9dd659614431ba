package graph

import (
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// IntervalParam is the query parameter naming the graph's buckets.
const IntervalParam = "interval"

// The buckets a range may be cut into, as Plausible's dashboard allows them: hours up to 31
// days (stats.Hour.MaxDays), days from two days on (one day is one point), weeks for ranges
// over two days, months for ranges over two months (61 days). Minutes are the realtime
// view's (Minute), not a range's.
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

// Minute is the realtime view's interval: its last 30 minutes (the realtime tables), a bar a
// minute. A range's visits are kept by the hour at the finest (the hourly counters, the visit
// rows' hour), so no range is cut into minutes: interval=minute is refused, saying so, and
// Today's interval switch leads to the realtime view for them.
const Minute stats.Interval = "minute"

// Intervals are the intervals the graph can show, in order of size.
var Intervals = []stats.Interval{stats.Hour, stats.Daily, stats.Week, stats.Month}

// Allows tells whether the graph of a range may be cut into buckets of i.
func Allows(i stats.Interval, r stats.Range) bool {
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

// Allowed are the intervals a range may be cut into, smallest first.
func Allowed(r stats.Range) []stats.Interval {
	var out []stats.Interval
	for _, i := range Intervals {
		if Allows(i, r) {
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
// interval that is not one, or that the range does not allow, gives the message of the
// refusal on interval.
func ParseInterval(asked string, r stats.Range) (stats.Interval, string) {
	if asked == "" {
		return Default(r), ""
	}
	i := stats.Interval(asked)
	known := false
	for _, k := range Intervals {
		known = known || k == i
	}
	allowed := Allowed(r)
	names := make([]string, len(allowed))
	for n, a := range allowed {
		names[n] = string(a)
	}
	switch {
	case i == Minute:
		return Default(r), "minute is the realtime view's (its last 30 minutes): a range is kept by the hour at the finest; " +
			r.String() + " allows " + strings.Join(names, ", ")
	case !known:
		return Default(r), "must be one of minute, hour, day, week, month"
	}
	if !Allows(i, r) {
		return Default(r), asked + " is not allowed for " + r.String() + " (" + daysText(r.Days()) + "); it allows " + strings.Join(names, ", ")
	}
	return i, ""
}

func daysText(n int) string {
	if n == 1 {
		return "1 day"
	}
	return stats.GroupThousands(n) + " days"
}

// Next is the interval after i among those the range allows, the first after the last: the
// keyboard's I goes round them.
func Next(i stats.Interval, r stats.Range) stats.Interval {
	allowed := Allowed(r)
	for n, a := range allowed {
		if a == i {
			return allowed[(n+1)%len(allowed)]
		}
	}
	return allowed[0]
}
