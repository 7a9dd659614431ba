package stats

import (
	"fmt"
	"time"
)

// Interval is the size of one bucket of a time series.
type Interval string

const (
	Hour  Interval = "hour"
	Daily Interval = "day"
	// Week is a bucket of a week, Monday to Sunday (the dashboard's; the API's time series
	// takes hour, day and month). Its visitors are the sum of its days', as a month's.
	Week  Interval = "week"
	Month Interval = "month"
)

// MaxBuckets is the most buckets any time series holds: the API's (v1's time series, the query
// API's time dimensions and their time labels) and the pages' charts alike. A series is built
// whole in memory before it is paged, so without a bound one request for a thousand years of
// hours held 8.8 million labels (2.4 GB).
const MaxBuckets = 10_000

// MaxDays is the longest range, in days counted inclusively, that a time series takes in
// buckets of the interval (docs/visits.md): 31 days of hours, 3,660 days of days; months are
// bounded by MaxBuckets (Allows).
func (i Interval) MaxDays() int {
	switch i {
	case Hour:
		return 31
	case Daily:
		return 3660
	case Week:
		return 7 * (MaxBuckets - 1)
	}
	return Range{From: FirstDay, To: LastDay}.Days()
}

// Months is the number of calendar months a range touches: its buckets by month.
func Months(r Range) int {
	return (r.To.Year()-r.From.Year())*12 + int(r.To.Month()) - int(r.From.Month()) + 1
}

// Allows tells whether a range may be cut into buckets of the interval; the message says why
// not, to be returned on the parameter `interval`.
func (i Interval) Allows(r Range) (ok bool, message string) {
	switch i {
	case Hour, Daily, Week, Month:
	default:
		return false, "must be one of hour, day, month"
	}
	if r.Days() > i.MaxDays() {
		return false, fmt.Sprintf("%s is allowed for ranges of up to %s days", i, GroupThousands(i.MaxDays()))
	}
	if i == Month && Months(r) > MaxBuckets {
		return false, fmt.Sprintf("month is allowed for ranges of up to %s months", GroupThousands(MaxBuckets))
	}
	return true, ""
}

// Buckets are the starts of the buckets of the range, oldest first: each hour of each day in
// loc (as an instant), each day, or the first day of each month (the first month's bucket
// starts at the range's first day). A day whose clocks go back has an hour twice: it is one
// bucket, at its first occurrence, as the hourly counters count it once (its value HourValue).
func (i Interval) Buckets(r Range, loc *time.Location) []time.Time {
	var out []time.Time
	for _, b := range i.ZoneBuckets(r, FixedZone(loc)) {
		out = append(out, b.Start)
	}
	return out
}

// BucketStart is a bucket's start and the calendar day (a Day) and, for hours, the hour of
// the clock that the counters file it under.
type BucketStart struct {
	Start time.Time
	Day   time.Time
	Hour  int
}

// ZoneBuckets are Buckets with each day's hours in the zone that counted that day
// (Zone.OfDay): a range across a change of zone keeps the old zone's hours for its days.
func (i Interval) ZoneBuckets(r Range, z Zone) []BucketStart {
	var out []BucketStart
	switch i {
	case Hour:
		for d := r.From; !d.After(r.To); d = d.AddDate(0, 0, 1) {
			loc := z.OfDay(d)
			for _, start := range DayHours(d, loc) {
				if h := start.In(loc).Hour(); r.hasHour(d, h) {
					out = append(out, BucketStart{Start: start, Day: d, Hour: h})
				}
			}
		}
	case Daily:
		for d := r.From; !d.After(r.To); d = d.AddDate(0, 0, 1) {
			out = append(out, BucketStart{Start: d, Day: d})
		}
	case Week:
		for w := WeekStart(r.From); !w.After(r.To); w = w.AddDate(0, 0, 7) {
			out = append(out, BucketStart{Start: w, Day: w})
		}
	case Month:
		for m := MonthStart(r.From); !m.After(r.To); m = m.AddDate(0, 1, 0) {
			out = append(out, BucketStart{Start: m, Day: m})
		}
	}
	return out
}

// DayStart is the first instant of a calendar day in loc.
func DayStart(day time.Time, loc *time.Location) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
}

// DayHours are the starts of the hours of a calendar day in loc, as instants, one per hour of
// the clock: 24, or 23 on the day the clocks go forward (a repeated hour is listed once).
func DayHours(day time.Time, loc *time.Location) []time.Time {
	start := DayStart(day, loc)
	end := time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc)
	var seen [24]bool
	out := make([]time.Time, 0, 24)
	// Steps of an hour from the day's first instant: the clock's hours, whatever the offset,
	// with the skipped hour absent and the repeated one met twice.
	for t := start; t.Before(end); t = t.Add(time.Hour) {
		h := t.In(loc).Hour()
		if seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, t)
	}
	return out
}

// BucketLabel writes a bucket's start as the time series' date: the hour in UTC
// ("2026-11-23T14:00:00Z"), the day ("2026-11-23") or the month ("2026-11").
func (i Interval) BucketLabel(start time.Time) string {
	switch i {
	case Hour:
		return start.UTC().Format(time.RFC3339)
	case Month:
		return start.Format("2006-01")
	}
	return start.Format(time.DateOnly)
}

// GroupThousands writes n with a comma between each three digits: 10,000.
func GroupThousands(n int) string {
	s := fmt.Sprint(n)
	if len(s) <= 3 {
		return s
	}
	return GroupThousands(n/1000) + "," + s[len(s)-3:]
}

// hasHour tells whether hour h of day d is in the range: every hour of its days, or with
// Hours set those from its first hour to its last.
func (r Range) hasHour(d time.Time, h int) bool {
	return !r.Hours.Set || !(d.Equal(r.From) && h < r.Hours.From) && !(d.Equal(r.To) && h > r.Hours.To)
}
