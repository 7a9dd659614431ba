package stats

import (
	"fmt"
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

// Range is the calendar days From to To, both included, each a Day; with Hours set, only
// those hours of them.
type Range struct {
	From, To time.Time
	Hours    Hours
}

// Hours narrow a range to hours of the website's zone: from hour From of its first day to hour
// To of its last, both included. The one such range is Plausible's last 24 hours (the query
// API's rule, date_range "24h"), relative to now: its address is period=24h. Zero: whole days.
type Hours struct {
	Set      bool
	From, To int // 0..23
}

// Last24Hours is the period=24h range: from the hour of 24 hours ago to the current hour, in
// the website's zone, as the query API's date_range "24h" makes it (query.Last24Hours).
const Last24Hours = "24h"

// Days is the number of days in the range.
//
// Counted in seconds since the epoch: a time.Duration holds at most 292 years, so To.Sub(From)
// of a range of thousands of years would stop there.
func (r Range) Days() int { return int((r.To.Unix()-r.From.Unix())/86400) + 1 }

// Previous is the range of as many days just before this one; of hours, the same hours a day
// before.
func (r Range) Previous() Range {
	if r.Hours.Set {
		return Range{From: r.From.AddDate(0, 0, -1), To: r.To.AddDate(0, 0, -1), Hours: r.Hours}
	}
	return Range{From: r.From.AddDate(0, 0, -r.Days()), To: r.From.AddDate(0, 0, -1)}
}

// Query is the range as the parameters from and to (YYYY-MM-DD) that the API and the stats
// pages take.
func (r Range) Query() url.Values {
	if r.Hours.Set {
		return url.Values{"period": {Last24Hours}}
	}
	return url.Values{"from": {r.From.Format(time.DateOnly)}, "to": {r.To.Format(time.DateOnly)}}
}

// String is the range as the stats pages head it: "2 Jan 2026 – 31 Jan 2026", or the one day.
func (r Range) String() string {
	from, to := r.From.Format("2 Jan 2006"), r.To.Format("2 Jan 2006")
	if r.Hours.Set { // "1 Dec 2026 15:00 – 2 Dec 2026 15:59"
		return fmt.Sprintf("%s %02d:00 – %s %02d:59", from, r.Hours.From, to, r.Hours.To)
	}
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
