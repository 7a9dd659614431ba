package pages

import (
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// maxRangeDays bounds a range (about ten years): a dashboard's work grows with its days.
const maxRangeDays = 3660

// defaultRangeDays is the range of a dashboard opened without one: the last 30 days.
const defaultRangeDays = 30

// today is a website's current calendar day, in its own zone.
func (p *Pages) today(site repository.Website) time.Time {
	return p.zone(site).Today(p.now())
}

// zone is a website's time zone; the service's TZ when it has none of its own.
func (p *Pages) zone(site repository.Website) stats.Zone { return site.Zone(p.loc) }

// parseRange reads from and to (YYYY-MM-DD). Without them the range is the last 30 days ending
// today; with only one, the other is today (from given) or 30 days before (to given). Errors
// name the parameter, as the API's do.
func parseRange(q url.Values, today time.Time) (stats.Range, stats.FieldErrors) {
	errs := stats.FieldErrors{}
	r := stats.Range{To: today, From: today.AddDate(0, 0, -(defaultRangeDays - 1))}
	from, hasFrom := dateParam(q, "from", errs)
	to, hasTo := dateParam(q, "to", errs)
	switch {
	case hasFrom && hasTo:
		r = stats.Range{From: from, To: to}
	case hasFrom:
		r = stats.Range{From: from, To: today}
		if from.After(today) {
			r.To = from
		}
	case hasTo:
		r = stats.Range{From: to.AddDate(0, 0, -(defaultRangeDays - 1)), To: to}
	}
	if len(errs) > 0 {
		return r, errs
	}
	switch {
	case r.From.After(r.To):
		errs.Add("to", "must be a date after or equal to from")
	case r.Days() > maxRangeDays:
		errs.Add("from", "must be at most 10 years before to")
	case !stats.InBounds(r.From): // to alone, near 0001-01-01: its 30 days would leave the calendar
		errs.Add("to", fmt.Sprintf("must be at least %d days after 0001-01-01 without from", defaultRangeDays-1))
	}
	return r, errs
}

// checkComparable refuses a range whose period before it, of as many days, would start before
// 0001-01-01: the dashboard compares every number with that period.
func checkComparable(r stats.Range, errs stats.FieldErrors) {
	if !stats.InBounds(r.Previous().From) {
		errs.Add("from", fmt.Sprintf("must leave room for the %d days before it, which the dashboard compares with, after 0001-01-01", r.Days()))
	}
}

func dateParam(q url.Values, name string, errs stats.FieldErrors) (time.Time, bool) {
	v, ok := q[name]
	if !ok || len(v) == 0 || v[0] == "" {
		return time.Time{}, false
	}
	if len(v) > 1 {
		errs.Add(name, "must be sent once")
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, v[0])
	if err != nil {
		errs.Add(name, "must be a date in the form YYYY-MM-DD")
		return time.Time{}, false
	}
	if !stats.InBounds(t) {
		errs.Add(name, stats.DayBoundsMessage)
		return time.Time{}, false
	}
	return t, true
}

// preset is one of the dashboard's ready-made ranges.
type preset struct {
	Label   string
	Range   stats.Range
	Current bool
}

// presets are today, 7 days, 30 days, this month, last month, this year and all time (from the
// first day with data, or today when there is none).
func presets(today, first time.Time, current stats.Range) []preset {
	monthStart := stats.MonthStart(today)
	lastMonthStart := monthStart.AddDate(0, -1, 0)
	list := []preset{
		{Label: "Today", Range: stats.Range{From: today, To: today}},
		{Label: "7 days", Range: stats.Range{From: today.AddDate(0, 0, -6), To: today}},
		{Label: "30 days", Range: stats.Range{From: today.AddDate(0, 0, -29), To: today}},
		{Label: "This month", Range: stats.Range{From: monthStart, To: today}},
		{Label: "Last month", Range: stats.Range{From: lastMonthStart, To: monthStart.AddDate(0, 0, -1)}},
		{Label: "This year", Range: stats.Range{From: time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC), To: today}},
		{Label: "All time", Range: stats.Range{From: earliest(first, today), To: today}},
	}
	for i := range list {
		if list[i].Range == current {
			list[i].Current = true
			break // "30 days" and "this month" can be the same days: mark one
		}
	}
	return list
}

// errorLines is the refusals as sentences, sorted by field, for the error page.
func errorLines(f stats.FieldErrors) []string {
	names := make([]string, 0, len(f))
	for name := range f {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []string
	for _, name := range names {
		for _, m := range f[name] {
			out = append(out, name+" "+m)
		}
	}
	return out
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
