package counters

import (
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Segment is a part of a range that one table holds whole: days of stats, weeks (from their
// Monday) of stats_weekly, months (from their 1st) of stats_monthly.
type Segment struct {
	Table, Column string
	From, To      time.Time // the first days of the first and last unit
}

// Split cuts [from, to] into the fewest rows to read: the whole calendar months inside
// it, then the whole weeks (Monday to Sunday) inside what is left on either side, then the
// days left over; a month or week is read from its rollup only when rolled says the rollup is
// whole. A year reads 11 or 12 months and a few weeks and days; 30 days read three or four
// weeks and at most twelve days. The range is never empty: it yields at least one segment.
func Split(from, to time.Time, rolled RolledUp) []Segment {
	from, to = stats.Day(from), stats.Day(to)
	weeksEnd := rolled.Weeks.AddDate(0, 0, 6) // the last day of the last week rolled up
	firstMonth := stats.MonthStart(from)
	if firstMonth.Before(from) {
		firstMonth = firstMonth.AddDate(0, 1, 0)
	}
	// The months end with to, or earlier with the last one rolled up.
	last := minDate(to, rolled.Months.AddDate(0, 1, -1))
	afterLastMonth := stats.MonthStart(last.AddDate(0, 0, 1)) // the 1st after the last whole month
	if !firstMonth.Before(afterLastMonth) {
		return splitWeeks(from, to, weeksEnd)
	}
	segs := splitWeeks(from, firstMonth.AddDate(0, 0, -1), weeksEnd)
	segs = append(segs, Segment{"stats_monthly", "month", firstMonth, afterLastMonth.AddDate(0, -1, 0)})
	return append(segs, splitWeeks(afterLastMonth, to, weeksEnd)...)
}

// splitWeeks cuts [from, to] into the days before its first Monday, its whole weeks up to
// weeksEnd and the days after them; nothing when from is after to.
func splitWeeks(from, to, weeksEnd time.Time) []Segment {
	if from.After(to) {
		return nil
	}
	last := minDate(to, weeksEnd)
	firstMonday := stats.WeekStart(from.AddDate(0, 0, 6))
	afterLastWeek := stats.WeekStart(last.AddDate(0, 0, 1)) // the Monday after the last whole week
	if !firstMonday.Before(afterLastWeek) {
		return []Segment{{"stats", "date", from, to}}
	}
	var segs []Segment
	if from.Before(firstMonday) {
		segs = append(segs, Segment{"stats", "date", from, firstMonday.AddDate(0, 0, -1)})
	}
	segs = append(segs, Segment{"stats_weekly", "week", firstMonday, afterLastWeek.AddDate(0, 0, -7)})
	if !afterLastWeek.After(to) {
		segs = append(segs, Segment{"stats", "date", afterLastWeek, to})
	}
	return segs
}

func minDate(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
