package pages

import (
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/analytics-service/analytics/pages/period"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// maxRangeDays bounds a range (about ten years): a dashboard's work grows with its days.
const maxRangeDays = 3660

// defaultRangeDays is the range of a dashboard opened without one: the last 30 days.
const defaultRangeDays = 30

// today is a website's current calendar day, in its own zone.
func (p *Pages) today(site repository.Website) time.Time {
	return p.zone(site).Today(p.base.Now())
}

// zone is a website's time zone; the service's TZ when it has none of its own.
func (p *Pages) zone(site repository.Website) stats.Zone { return site.Zone(p.base.Location) }

// last24 is a website's last 24 hours now (period=24h), in its zone.
func (p *Pages) last24(site repository.Website) stats.Range {
	now := p.base.Now()
	return period.Last24Hours(now, p.zone(site).At(now))
}

// parseRange reads from and to (YYYY-MM-DD), or period=24h, the range last24 (the last 24
// hours, with neither). Without them the range is the last 30 days ending today; with only
// one, the other is today (from given) or 30 days before (to given). Errors name the
// parameter, as the API's do.
func parseRange(q url.Values, today time.Time, last24 stats.Range) (stats.Range, stats.FieldErrors) {
	errs := stats.FieldErrors{}
	if _, ok := q["period"]; ok {
		switch {
		case len(q["period"]) > 1:
			errs.Add("period", "must be sent once")
		case q.Get("period") != stats.Last24Hours:
			errs.Add("period", "must be 24h (the last 24 hours); other periods are from and to")
		case q.Has("from") || q.Has("to"):
			errs.Add("period", "takes no from or to: 24h is the last 24 hours")
		}
		return last24, errs
	}
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
