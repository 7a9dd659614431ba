package stats

import (
	"net/url"
	"time"
)

// Day is the calendar date of t, read in t's location, as midnight UTC: the form in which every
// part of the service passes a day (a date column, a counter's day, the ends of a range). The
// current day is Day(now.In(loc)), loc being the service's time zone.
func Day(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// MonthStart is the first day of t's month, as a Day.
func MonthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// WeekStart is the Monday of t's week (weeks run from Monday to Sunday), as a Day.
func WeekStart(t time.Time) time.Time {
	d := Day(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// DayValue is the value under which pageview and visitor count a day: its date, YYYY-MM-DD.
// The collector writes it and the pages' chart reads the days back by it.
func DayValue(day time.Time) string { return day.Format(time.DateOnly) }

// FirstDay and LastDay bound every day a request may name: years 1 to 9999, the ones a
// YYYY-MM-DD date spells. A day outside them, or a range whose period before it would leave
// them, is refused (422) rather than handed to the database.
var (
	FirstDay = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	LastDay  = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// DayBoundsMessage is the refusal of a day outside FirstDay..LastDay.
const DayBoundsMessage = "must be a date from 0001-01-01 to 9999-12-31"

// InBounds tells whether day lies between FirstDay and LastDay.
func InBounds(day time.Time) bool { return !day.Before(FirstDay) && !day.After(LastDay) }

// Range is the calendar days From to To, both included, each a Day.
type Range struct {
	From, To time.Time
}

// Days is the number of days in the range.
//
// Counted in seconds since the epoch: a time.Duration holds at most 292 years, so To.Sub(From)
// of a range of thousands of years would stop there.
func (r Range) Days() int { return int((r.To.Unix()-r.From.Unix())/86400) + 1 }

// Previous is the range of as many days just before this one.
func (r Range) Previous() Range {
	return Range{From: r.From.AddDate(0, 0, -r.Days()), To: r.From.AddDate(0, 0, -1)}
}

// Query is the range as the parameters from and to (YYYY-MM-DD) that the API and the stats
// pages take.
func (r Range) Query() url.Values {
	return url.Values{"from": {r.From.Format(time.DateOnly)}, "to": {r.To.Format(time.DateOnly)}}
}

// String is the range as the stats pages head it: "2 Jan 2026 – 31 Jan 2026", or the one day.
func (r Range) String() string {
	from, to := r.From.Format("2 Jan 2006"), r.To.Format("2 Jan 2006")
	if from == to {
		return from
	}
	return from + " – " + to
}

// Reset is a range of a website's stats its owner deleted (docs/retention.md), as the notes
// under its numbers tell it: From zero for every day up to To; At when.
type Reset struct {
	From, To, At time.Time
}
