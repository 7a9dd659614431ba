// Package period is the dashboard's period menu, as Plausible's: the ready-made ranges with
// their keyboard shortcuts, and the periods before and after a range (the arrows).
package period

import (
	"time"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// Period is one entry of the menu.
type Period struct {
	Label string
	// Key is the keyboard shortcut, as KeyboardEvent.key gives it lower-cased: "d" for Today.
	Key   string
	Range stats.Range
	// Realtime: the entry leads to the realtime view, not to a range; Custom: to the custom
	// range form. Neither has a Range.
	Realtime, Custom bool
	// by is how the arrows move it, by its name: days (Today, Last 7 days...), months (Last
	// month, Month to date, Last 6 months...) or years (Year to date); zero for none (All
	// time moves by its shape).
	by step
}

// step is a period's arrows' move: Days days, or Months whole calendar months, or a whole
// calendar year.
type step struct {
	Days, Months int
	Year         bool
}

// Menu is the menu's entries on today, in Plausible's order; first is the website's first day
// with data (all time starts there, or today without any), last24 the last 24 hours now
// (Last24Hours).
func Menu(today, first time.Time, last24 stats.Range) []Period {
	month := stats.MonthStart(today)
	year := time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	days := func(n int) stats.Range { return stats.Range{From: today.AddDate(0, 0, 1-n), To: today} }
	yesterday := today.AddDate(0, 0, -1)
	return []Period{
		{Label: "Today", Key: "d", Range: days(1), by: step{Days: 1}},
		{Label: "Yesterday", Key: "e", Range: stats.Range{From: yesterday, To: yesterday}, by: step{Days: 1}},
		{Label: "Realtime", Key: "r", Realtime: true},
		{Label: "Last 24 hours", Key: "h", Range: last24},
		{Label: "Last 7 days", Key: "w", Range: days(7), by: step{Days: 7}},
		{Label: "Last 28 days", Key: "f", Range: days(28), by: step{Days: 28}},
		{Label: "Last 30 days", Key: "t", Range: days(30), by: step{Days: 30}},
		{Label: "Last 91 days", Key: "n", Range: days(91), by: step{Days: 91}},
		{Label: "Month to date", Key: "m", Range: stats.Range{From: month, To: today}, by: step{Months: 1}},
		{Label: "Last month", Key: "p", Range: stats.Range{From: month.AddDate(0, -1, 0), To: month.AddDate(0, 0, -1)}, by: step{Months: 1}},
		{Label: "Year to date", Key: "y", Range: stats.Range{From: year, To: today}, by: step{Year: true}},
		{Label: "Last 6 months", Key: "s", Range: stats.Range{From: month.AddDate(0, -5, 0), To: today}, by: step{Months: 6}},
		{Label: "Last 12 months", Key: "l", Range: stats.Range{From: month.AddDate(0, -11, 0), To: today}, by: step{Months: 12}},
		{Label: "All time", Key: "a", Range: stats.Range{From: earliest(first, today), To: today}},
		{Label: "Custom range", Key: "c", Custom: true},
	}
}

// Current is the entry of the menu showing r, if one does ("Last 30 days" before "Month to
// date" when both are the same days).
func Current(menu []Period, r stats.Range) (Period, bool) {
	for _, p := range menu {
		if !p.Realtime && !p.Custom && p.Range == r {
			return p, true
		}
	}
	return Period{}, false
}

// Last24Hours is Plausible's last 24 hours at now, in the website's zone loc: the query API's
// date_range "24h", whole hours from the hour of 24 hours ago to the current one, as a range
// of the pages (stats.Range.Hours; its address is period=24h).
func Last24Hours(now time.Time, loc *time.Location) stats.Range {
	return query.Last24Hours(now, loc).Span()
}

// Arrow is the period before (dir -1) or after (dir 1) r, as the menu's arrows move it: by
// its name when r is an entry of the menu (Last 7 days: the 7 days before; Month to date and
// Last month: the whole month before; Year to date: the whole year before), else by its
// shape (Shift). The address holds dates, not the name, so a range is the entry it equals
// (Current): a Last 28 days that is February moves by 28 days, a custom February by a month.
func Arrow(menu []Period, r stats.Range, dir int, today time.Time) (stats.Range, bool) {
	p, ok := Current(menu, r)
	if !ok || p.by == (step{}) {
		return Shift(r, dir, today)
	}
	var out stats.Range
	switch by := p.by; {
	case by.Year:
		from := time.Date(r.From.Year()+dir, 1, 1, 0, 0, 0, 0, time.UTC)
		out = stats.Range{From: from, To: from.AddDate(1, 0, -1)}
	case by.Months > 0:
		from := stats.MonthStart(r.From).AddDate(0, dir*by.Months, 0)
		out = stats.Range{From: from, To: from.AddDate(0, by.Months, -1)}
	default:
		out = stats.Range{From: r.From.AddDate(0, 0, dir*by.Days), To: r.To.AddDate(0, 0, dir*by.Days)}
	}
	return upToToday(out, today)
}

// Shift is the period before (step -1) or after (step 1) r by its shape: whole calendar months
// (its last one may end today) by as many months, whole January-to-December years by years,
// any other range by as many days. A month or year to date moves to the whole month or year
// before; ok is false for a period after today, which has no data yet, and for one outside
// the calendar.
func Shift(r stats.Range, step int, today time.Time) (stats.Range, bool) {
	if r.Hours.Set { // the last 24 hours: relative to now, no period before or after
		return stats.Range{}, false
	}
	var out stats.Range
	switch months, whole := calendarMonths(r, today); {
	case whole && months%12 == 0 && r.From.Month() == time.January:
		years := months / 12
		from := r.From.AddDate(step*years, 0, 0)
		out = stats.Range{From: from, To: from.AddDate(years, 0, -1)}
	case whole:
		from := r.From.AddDate(0, step*months, 0)
		out = stats.Range{From: from, To: from.AddDate(0, months, -1)}
	default:
		n := r.Days()
		out = stats.Range{From: r.From.AddDate(0, 0, step*n), To: r.To.AddDate(0, 0, step*n)}
	}
	return upToToday(out, today)
}

// upToToday is a moved period as shown: none after today or outside the calendar, and this
// month or year to date only.
func upToToday(out stats.Range, today time.Time) (stats.Range, bool) {
	if out.From.After(today) || !stats.InBounds(out.From) || !stats.InBounds(out.To) {
		return stats.Range{}, false
	}
	if out.To.After(today) {
		out.To = today
	}
	return out, true
}

// calendarMonths tells whether r is whole calendar months (its last one may end today, to
// date) and how many.
func calendarMonths(r stats.Range, today time.Time) (int, bool) {
	if r.From != stats.MonthStart(r.From) || r.Days() == 1 { // today on the 1st is a day
		return 0, false
	}
	end := stats.MonthStart(r.To).AddDate(0, 1, -1)
	if r.To != end && r.To != today {
		return 0, false
	}
	return stats.Months(r), true
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
