package pages

import (
	"fmt"
	"net/url"
	"time"

	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The dashboard's comparison (docs/visits.md, "Comparison"): the cards' changes, the chart's
// dashed lines and the table's columns compare the range with the days stats.Comparison
// names. Without one, the cards compare with the days before, as they always did.

// parseComparison reads the comparison of a dashboard's address, each refusal on its
// parameter. The comparison form sends its two dates whatever the mode: they count only
// with comparison=custom, as the form's own label says.
func parseComparison(q url.Values, rng stats.Range, errs stats.FieldErrors) stats.Comparison {
	if q.Get("comparison") != string(stats.CompareCustom) {
		q = cloneValues(q)
		for _, name := range []string{"compare_from", "compare_to"} {
			if len(q[name]) == 1 && q[name][0] == "" {
				delete(q, name)
			}
		}
	}
	cmp, cerrs := stats.ParseComparison(q, rng)
	for field, messages := range cerrs {
		for _, m := range messages {
			errs.Add(field, m)
		}
	}
	return cmp
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = v
	}
	return out
}

// compareLabel is what the cards say they compare with: "the 30 days before", "the same
// days a year before", "2 Oct 2026 – 31 Oct 2026".
func compareLabel(rng stats.Range, cmp stats.Comparison) string {
	switch cmp.Mode {
	case stats.CompareYearOverYear:
		return "the same days a year before" // of the last 24 hours: the same hours
	case stats.CompareCustom:
		return "the chosen days"
	}
	if rng.Hours.Set {
		return "the 24 hours before"
	}
	if rng.Days() == 1 {
		return "the day before"
	}
	return fmt.Sprintf("the %d days before", rng.Days())
}

// comparer is the data of the "comparer" template: the comparison's form, which keeps the
// range, the filters and the view's other parameters as hidden inputs.
type comparer struct {
	Mode           string
	From, To       string // the custom days, YYYY-MM-DD
	MatchDayOfWeek bool
	Modes          []compareOption
	Keep           url.Values
	// Toggle turns the comparison on (with the period before) or off: the keyboard's X.
	Toggle, ToggleLabel string
}

// compareToggle is the address turning the comparison of addr off, or on with the period
// before, and what its link says.
func compareToggle(base string, addr dashAddress, cmp stats.Comparison) (string, string) {
	off := url.Values{}
	for _, name := range stats.CompareParams {
		off[name] = nil
	}
	if cmp.On() {
		return base + addr.with(off), "Stop comparing"
	}
	off.Set("comparison", string(stats.ComparePreviousPeriod))
	return base + addr.with(off), "Compare with the period before"
}

type compareOption struct {
	Value, Label string
	Selected     bool
}

func newComparer(v statsView, rng stats.Range, filters stats.Filters, query url.Values, cmp stats.Comparison) comparer {
	keep := v.with(filterbar.With(cloneValues(query), filters))
	for _, name := range stats.CompareParams {
		delete(keep, name)
	}
	for k, vs := range rng.Query() {
		keep[k] = vs
	}
	c := comparer{Mode: string(cmp.Mode), MatchDayOfWeek: cmp.MatchDayOfWeek || !cmp.On(), Keep: keep}
	if cmp.Mode == stats.CompareCustom {
		c.From, c.To = cmp.Custom.From.Format(time.DateOnly), cmp.Custom.To.Format(time.DateOnly)
	}
	for _, o := range []compareOption{{"", "No comparison", false}, {string(stats.ComparePreviousPeriod), "Previous period", false},
		{string(stats.CompareYearOverYear), "Year over year", false}, {string(stats.CompareCustom), "Custom days", false}} {
		o.Selected = o.Value == c.Mode
		c.Modes = append(c.Modes, o)
	}
	return c
}

// compareRows writes each row's count on the compared days, from their top list: found, the
// count and the change; not found in a list cut at comparedTopSize values, at most its last
// count; not found in a whole list, none.
func compareRows(rows []topRow, list repository.StatList) {
	counts := make(map[string]int64, len(list.Entries))
	for _, e := range list.Entries {
		counts[e.Value] = e.Count
	}
	cut := int64(len(list.Entries)) < list.Distinct
	for i := range rows {
		n, ok := counts[rows[i].Value]
		switch {
		case ok || !cut:
			rows[i].Compared = fmt.Sprintf("was %s, %s", formatCount(n), changeText(rows[i].Count, n))
		default:
			rows[i].Compared = fmt.Sprintf("was at most %s", formatCount(list.Entries[len(list.Entries)-1].Count))
		}
	}
}
