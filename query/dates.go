package query

import (
	"encoding/json"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// Range is the query's range in the website's time zone, in whole hours (the visit rows keep
// the hour a visit started): from FromHour of From to ToHour of To, both included.
type Range struct {
	From, To         time.Time // days, midnight UTC as stats.Day makes them
	FromHour, ToHour int       // 0..23
	// Rounded: a 24h or date-time range was rounded out to whole hours.
	Rounded bool
	loc     *time.Location
}

// Days are the calendar days the range touches.
func (r Range) Days() stats.Range { return stats.Range{From: r.From, To: r.To} }

// WholeDays tells whether the range covers its first and last day whole.
func (r Range) WholeDays() bool { return r.FromHour == 0 && r.ToHour == 23 }

// Labels are the range as it ran, two ISO 8601 date-times in the website's time zone.
func (r Range) Labels() []string {
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	at := func(day time.Time, hour, minSec int) string {
		t := time.Date(day.Year(), day.Month(), day.Day(), hour, minSec, minSec, 0, loc)
		return t.Format("2006-01-02T15:04:05-07:00")
	}
	return []string{at(r.From, r.FromHour, 0), at(r.To, r.ToHour, 59)}
}

// parseRange reads date_range: a relative range as Plausible defines it (relative to today
// in the website's time zone), two dates, or two date-times.
func parseRange(raw json.RawMessage, env Env) (Range, error) {
	loc := env.Location
	if loc == nil {
		loc = time.UTC
	}
	now := env.Now.In(loc)
	today := stats.Day(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC))
	days := func(from, to time.Time) Range { return Range{From: from, To: to, ToHour: 23, loc: loc} }
	var name string
	if json.Unmarshal(raw, &name) == nil {
		monthEnd := stats.MonthStart(today).AddDate(0, 1, -1)
		switch name {
		case "day":
			return days(today, today), nil
		case "7d", "28d", "30d", "91d":
			n := map[string]int{"7d": 7, "28d": 28, "30d": 30, "91d": 91}[name]
			// The last n whole days, today not included.
			return days(today.AddDate(0, 0, -n), today.AddDate(0, 0, -1)), nil
		case "month":
			return days(stats.MonthStart(today), monthEnd), nil
		case "6mo":
			return days(stats.MonthStart(today).AddDate(0, -5, 0), monthEnd), nil
		case "12mo":
			return days(stats.MonthStart(today).AddDate(0, -11, 0), monthEnd), nil
		case "year":
			return days(time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC), time.Date(today.Year(), 12, 31, 0, 0, 0, 0, time.UTC)), nil
		case "all":
			start := stats.Day(env.Start)
			if start.IsZero() || start.After(today) {
				start = today
			}
			return days(start, today), nil
		case "24h":
			return Last24Hours(env.Now, loc), nil
		}
		return Range{}, invalidf("date_range %s is not one of day, 24h, 7d, 28d, 30d, 91d, month, 6mo, 12mo, year, all", quote(name))
	}
	var pair []string
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return Range{}, invalidf("date_range must be a relative range or two dates or date-times")
	}
	if from, err1 := time.Parse(time.DateOnly, pair[0]); err1 == nil {
		to, err := time.Parse(time.DateOnly, pair[1])
		if err != nil {
			return Range{}, invalidf("date_range: %s is not a date YYYY-MM-DD like the first", quote(pair[1]))
		}
		if !stats.InBounds(from) || !stats.InBounds(to) {
			return Range{}, invalidf("date_range: each date %s", stats.DayBoundsMessage)
		}
		if from.After(to) {
			return Range{}, invalidf("date_range: the first date must not be after the second")
		}
		return days(from, to), nil
	}
	from, err := time.Parse(time.RFC3339, pair[0])
	if err != nil {
		return Range{}, invalidf("date_range: %s is neither a date YYYY-MM-DD nor an ISO 8601 date-time", quote(pair[0]))
	}
	to, err := time.Parse(time.RFC3339, pair[1])
	if err != nil {
		return Range{}, invalidf("date_range: %s is not an ISO 8601 date-time like the first", quote(pair[1]))
	}
	if from.After(to) {
		return Range{}, invalidf("date_range: the first date-time must not be after the second")
	}
	if !stats.InBounds(stats.Day(from)) || !stats.InBounds(stats.Day(to)) {
		return Range{}, invalidf("date_range: each date %s", stats.DayBoundsMessage)
	}
	r := hours(from, to, loc)
	return r, nil
}

// Last24Hours is Plausible's last 24 hours at now in loc: from the hour of 24 hours ago to the
// current hour, whole hours (the visit rows keep the hour a visit started), so 25 of them.
// The dashboard's Last 24 hours is this range (stats.Range.Hours).
func Last24Hours(now time.Time, loc *time.Location) Range {
	return hours(now.Add(-24*time.Hour), now, loc)
}

// Span is the range as the stats pages and the repository's readers take it: its days, with
// its hours when it does not cover them whole.
func (r Range) Span() stats.Range {
	out := r.Days()
	if !r.WholeDays() {
		out.Hours = stats.Hours{Set: true, From: r.FromHour, To: r.ToHour}
	}
	return out
}

// hours is the range of whole hours from the hour of from to the hour of to, in loc.
func hours(from, to time.Time, loc *time.Location) Range {
	from, to = from.In(loc), to.In(loc)
	whole := from.Minute() == 0 && from.Second() == 0 && from.Nanosecond() == 0 && to.Minute() == 59 && to.Second() == 59
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	return Range{From: day(from), To: day(to), FromHour: from.Hour(), ToHour: to.Hour(), Rounded: !whole, loc: loc}
}
