package stats

import (
	"fmt"
	"net/url"
	"time"
)

// Comparison is what a range's numbers are compared with (docs/visits.md, "Comparison"): the period
// before, the same days a year before, or a range of the caller's; the API's summary and
// time series and the dashboard take it as comparison=, compare_from=, compare_to= and
// match_day_of_week=. The comparison is read as the range is, by the same reads over its
// own days.
type Comparison struct {
	Mode CompareMode
	// MatchDayOfWeek moves the start of a previous_period or year_over_year comparison back
	// to the same day of the week as the range's first (0 to 6 days), so that weekdays line
	// up with weekdays bucket by bucket. Default true; a custom range is taken as given.
	MatchDayOfWeek bool
	Custom         Range // of CompareCustom
}

// CompareMode is the comparison= parameter; CompareOff is none.
type CompareMode string

const (
	CompareOff            CompareMode = ""
	ComparePreviousPeriod CompareMode = "previous_period"
	CompareYearOverYear   CompareMode = "year_over_year"
	CompareCustom         CompareMode = "custom"
)

// CompareModes are the values comparison= takes.
var CompareModes = []CompareMode{ComparePreviousPeriod, CompareYearOverYear, CompareCustom}

// On tells whether there is a comparison.
func (c Comparison) On() bool { return c.Mode != CompareOff }

// Range is the days compared with r: of as many days as r, but a custom one.
func (c Comparison) Range(r Range) Range {
	var out Range
	switch c.Mode {
	case CompareCustom:
		return c.Custom
	case CompareYearOverYear:
		from := r.From.AddDate(-1, 0, 0)
		out = Range{From: from, To: from.AddDate(0, 0, r.Days()-1)}
	case ComparePreviousPeriod:
		out = r.Previous()
	default: // off: the cards' change is against the period before, as it is
		return r.Previous()
	}
	if c.MatchDayOfWeek && !r.Hours.Set { // hours are compared with the same hours, whatever the day
		// Back, never forward: the period compared with stays before the range.
		shift := (int(out.From.Weekday()) - int(r.From.Weekday()) + 7) % 7
		out = Range{From: out.From.AddDate(0, 0, -shift), To: out.To.AddDate(0, 0, -shift)}
	}
	out.Hours = r.Hours // the same hours of the days compared
	return out
}

// CompareParams are the query parameters of a comparison, for IsCompareParam.
var CompareParams = []string{"comparison", "compare_from", "compare_to", "match_day_of_week"}

// ParseComparison reads comparison, compare_from, compare_to and match_day_of_week of a query
// compared with the range r, refusing (each on its parameter) a mode that is not one, a
// custom comparison without both dates or with to before from, dates without a comparison to
// use them, a flag that is not true or false, and a comparison whose days leave years 1 to
// 9999. Without comparison= the comparison is off (its Range the period before, which the
// dashboard's cards still compare with).
func ParseComparison(q url.Values, r Range) (Comparison, FieldErrors) {
	errs := FieldErrors{}
	c := Comparison{MatchDayOfWeek: true}
	for _, name := range CompareParams {
		if len(q[name]) > 1 {
			errs.Add(name, "must be sent once")
		}
	}
	if len(errs) > 0 {
		return c, errs
	}
	switch v := q.Get("comparison"); v {
	case "", "off":
	case string(ComparePreviousPeriod), string(CompareYearOverYear), string(CompareCustom):
		c.Mode = CompareMode(v)
	default:
		errs.Add("comparison", "must be one of previous_period, year_over_year, custom")
	}
	switch q.Get("match_day_of_week") {
	case "", "true":
	case "false":
		c.MatchDayOfWeek = false
	default:
		errs.Add("match_day_of_week", "must be true or false")
	}
	from, hasFrom := compareDate(q, "compare_from", errs)
	to, hasTo := compareDate(q, "compare_to", errs)
	if c.Mode == CompareCustom {
		c.MatchDayOfWeek = false
		switch {
		case !hasFrom && errs["compare_from"] == nil:
			errs.Add("compare_from", "is required with comparison=custom")
		case !hasTo && errs["compare_to"] == nil:
			errs.Add("compare_to", "is required with comparison=custom")
		case hasFrom && hasTo && from.After(to):
			errs.Add("compare_to", "must be a date after or equal to compare_from")
		case hasFrom && hasTo:
			c.Custom = Range{From: from, To: to}
		}
	} else if hasFrom || hasTo {
		errs.Add("comparison", "must be custom when compare_from or compare_to is sent")
	}
	if len(errs) > 0 {
		return c, errs
	}
	if got := c.Range(r); !InBounds(got.From) || !InBounds(got.To) {
		errs.Add("comparison", fmt.Sprintf("compares with %s to %s, outside the dates 0001-01-01 to 9999-12-31",
			got.From.Format(time.DateOnly), got.To.Format(time.DateOnly)))
	}
	return c, errs
}

func compareDate(q url.Values, name string, errs FieldErrors) (time.Time, bool) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		errs.Add(name, "must be a date in the form YYYY-MM-DD")
		return time.Time{}, false
	}
	if !InBounds(t) {
		errs.Add(name, DayBoundsMessage)
		return time.Time{}, false
	}
	return t, true
}

// Query is the comparison as the parameters that ParseComparison reads (none when off, and
// match_day_of_week only when false, its default being true).
func (c Comparison) Query() url.Values {
	q := url.Values{}
	if !c.On() {
		return q
	}
	q.Set("comparison", string(c.Mode))
	if c.Mode == CompareCustom {
		q.Set("compare_from", c.Custom.From.Format(time.DateOnly))
		q.Set("compare_to", c.Custom.To.Format(time.DateOnly))
	} else if !c.MatchDayOfWeek {
		q.Set("match_day_of_week", "false")
	}
	return q
}
