// Package period is the dashboard's period menu, as Plausible's: the ready-made ranges with
// their keyboard shortcuts, and the periods before and after a range (the arrows).
package period

import (
	"time"

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
}

// Menu is the menu's entries on today, in Plausible's order; first is the website's first day
// with data (all time starts there, or today without any). Plausible's "Last 24 hours" (H) is
// not among them: a range here is whole days of the website's zone.
func Menu(today, first time.Time) []Period {
	month := stats.MonthStart(today)
	year := time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	days := func(n int) stats.Range { return stats.Range{From: today.AddDate(0, 0, 1-n), To: today} }
	yesterday := today.AddDate(0, 0, -1)
	return []Period{
		{Label: "Today", Key: "d", Range: days(1)},
		{Label: "Yesterday", Key: "e", Range: stats.Range{From: yesterday, To: yesterday}},
		{Label: "Realtime", Key: "r", Realtime: true},
		{Label: "Last 7 days", Key: "w", Range: days(7)},
		{Label: "Last 28 days", Key: "f", Range: days(28)},
		{Label: "Last 30 days", Key: "t", Range: days(30)},
		{Label: "Last 91 days", Key: "n", Range: days(91)},
		{Label: "Month to date", Key: "m", Range: stats.Range{From: month, To: today}},
		{Label: "Last month", Key: "p", Range: stats.Range{From: month.AddDate(0, -1, 0), To: month.AddDate(0, 0, -1)}},
		{Label: "Year to date", Key: "y", Range: stats.Range{From: year, To: today}},
		{Label: "Last 6 months", Key: "s", Range: stats.Range{From: month.AddDate(0, -5, 0), To: today}},
		{Label: "Last 12 months", Key: "l", Range: stats.Range{From: month.AddDate(0, -11, 0), To: today}},
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

// Shift is the period before (step -1) or after (step 1) r, of its kind: whole calendar months
// (a month, last 6 or 12 months, month to date) by as many months, whole years (year to
// date) by a year, any other range by as many days. A month or year to date moves to the
// whole month or year before; ok is false for a period after today, which has no data yet,
// and for one outside the calendar.
func Shift(r stats.Range, step int, today time.Time) (stats.Range, bool) {
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
	if out.From.After(today) || !stats.InBounds(out.From) || !stats.InBounds(out.To) {
		return stats.Range{}, false
	}
	if out.To.After(today) {
		out.To = today // this month or year: to date
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
