package pages

import (
	"net/url"
	"sort"
	"time"
)

// dateRange is a range of calendar days, both ends included; days are UTC midnights standing
// for dates of the service's time zone, as in the repository.
type dateRange struct {
	From, To time.Time
}

// maxRangeDays bounds a range (about ten years): a dashboard's work grows with its days.
const maxRangeDays = 3660

// defaultRangeDays is the range of a dashboard opened without one: the last 30 days.
const defaultRangeDays = 30

func (d dateRange) Days() int { return int(d.To.Sub(d.From).Hours()/24) + 1 }

// Previous is the range of equal length just before this one, for the change figures.
func (d dateRange) Previous() dateRange {
	return dateRange{From: d.From.AddDate(0, 0, -d.Days()), To: d.From.AddDate(0, 0, -1)}
}

// Query is "from=...&to=..." for links.
func (d dateRange) Query() url.Values {
	return url.Values{"from": {d.From.Format(time.DateOnly)}, "to": {d.To.Format(time.DateOnly)}}
}

func (d dateRange) String() string {
	from, to := d.From.Format("2 Jan 2006"), d.To.Format("2 Jan 2006")
	if from == to {
		return from
	}
	return from + " – " + to
}

// today is the current calendar day in the service's time zone.
func (p *Pages) today() time.Time {
	t := p.now().In(p.loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// parseRange reads from and to (YYYY-MM-DD). Without them the range is the last 30 days ending
// today; with only one, the other is today (from given) or 30 days before (to given). Errors
// name the parameter, as the API's do.
func parseRange(q url.Values, today time.Time) (dateRange, fieldErrs) {
	errs := fieldErrs{}
	r := dateRange{To: today, From: today.AddDate(0, 0, -(defaultRangeDays - 1))}
	from, hasFrom := dateParam(q, "from", errs)
	to, hasTo := dateParam(q, "to", errs)
	switch {
	case hasFrom && hasTo:
		r = dateRange{From: from, To: to}
	case hasFrom:
		r = dateRange{From: from, To: today}
		if from.After(today) {
			r.To = from
		}
	case hasTo:
		r = dateRange{From: to.AddDate(0, 0, -(defaultRangeDays - 1)), To: to}
	}
	if len(errs) > 0 {
		return r, errs
	}
	if r.From.After(r.To) {
		errs.add("to", "must be a date after or equal to from")
	} else if r.Days() > maxRangeDays {
		errs.add("from", "must be at most 10 years before to")
	}
	return r, errs
}

func dateParam(q url.Values, name string, errs fieldErrs) (time.Time, bool) {
	v, ok := q[name]
	if !ok || len(v) == 0 || v[0] == "" {
		return time.Time{}, false
	}
	if len(v) > 1 {
		errs.add(name, "must be sent once")
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, v[0])
	if err != nil {
		errs.add(name, "must be a date in the form YYYY-MM-DD")
		return time.Time{}, false
	}
	return t, true
}

// preset is one of the dashboard's ready-made ranges.
type preset struct {
	Label   string
	Range   dateRange
	Current bool
}

// presets are today, 7 days, 30 days, this month, last month, this year and all time (from the
// first day with data, or today when there is none).
func presets(today, first time.Time, current dateRange) []preset {
	monthStart := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	lastMonthStart := monthStart.AddDate(0, -1, 0)
	list := []preset{
		{Label: "Today", Range: dateRange{today, today}},
		{Label: "7 days", Range: dateRange{today.AddDate(0, 0, -6), today}},
		{Label: "30 days", Range: dateRange{today.AddDate(0, 0, -29), today}},
		{Label: "This month", Range: dateRange{monthStart, today}},
		{Label: "Last month", Range: dateRange{lastMonthStart, monthStart.AddDate(0, 0, -1)}},
		{Label: "This year", Range: dateRange{time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC), today}},
		{Label: "All time", Range: dateRange{earliest(first, today), today}},
	}
	for i := range list {
		if list[i].Range == current {
			list[i].Current = true
			break // "30 days" and "this month" can be the same days: mark one
		}
	}
	return list
}

// fieldErrs are a page's refusals of its parameters, by name.
type fieldErrs map[string][]string

func (f fieldErrs) add(field, message string) { f[field] = append(f[field], message) }

// lines is the refusals as sentences, sorted by field, for the error page.
func (f fieldErrs) lines() []string {
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
