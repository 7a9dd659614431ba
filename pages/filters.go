package pages

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/stats"
)

// Filters on the stats pages (docs/filters.md): filter[NAME]=VALUE in the URL,
// read by stats.ParseFilters as the API reads them, so that a filtered view is an address that
// can be bookmarked and shared under the page's access rules.

// parseFilters reads a page's filters from its URL's query (never from a form body: a filter
// is part of the address, not something posted), with the view's locked ones added (locked):
// every stats page reads its filters here, so that every read of a shared link's view is
// narrowed by its segment. A refusal is a 422 on `filter`.
func (v statsView) parseFilters(q url.Values, errs stats.FieldErrors) stats.Filters {
	f, err := stats.ParseFilters(q)
	if err != nil {
		errs.Add(stats.FilterField(err), err.Error())
		return nil
	}
	return v.locked(f, errs)
}

// locked is the address's filters with the view's segment's added, each Locked. A filter of
// the address on a name (a property's key) the segment filters is refused rather than
// dropped or merged: the view cannot show what it asks for (the segment's filter holds
// whatever the viewer adds), and a page that quietly showed other numbers would mislead.
func (v statsView) locked(own stats.Filters, errs stats.FieldErrors) stats.Filters {
	if v.segment == nil {
		return own
	}
	for _, x := range own {
		if slices.ContainsFunc(v.segment.Filters, x.SameField) {
			errs.Add(stats.FilterField(nil), fmt.Sprintf("%s[%s]: %s is fixed by the shared link (its segment “%s”) and cannot be filtered further here",
				x.Param(), x.Field(), fieldLabel(x), v.segment.Name))
		}
	}
	return own.Joined(v.segment.Filters)
}

// fieldLabel is how a message names what a filter filters: "Country", "Property plan".
func fieldLabel(x stats.Filter) string {
	if x.Name == stats.Property {
		return "Property " + x.Key
	}
	return filterLabel(x.Name)
}

// withFilters is q with the filters f added, for a link that keeps them.
func withFilters(q url.Values, f stats.Filters) url.Values {
	for k, v := range f.Query() {
		q[k] = v
	}
	return q
}

// filterLinks makes the addresses of one page with its filters changed. Each keeps the page's
// other parameters (the range; on a full list its search, order and page size) and drops the
// page number: another filter makes another list, whose page 1 is where to start.
type filterLinks struct {
	path    string     // the page the links lead to, e.g. /stats/example.com
	query   url.Values // its parameters, filters and page number left out
	filters stats.Filters
}

func newFilterLinks(path string, query url.Values, filters stats.Filters) filterLinks {
	kept := url.Values{}
	for k, v := range query {
		if !stats.IsFilterParam(k) && k != "page" {
			kept[k] = v
		}
	}
	return filterLinks{path: path, query: kept, filters: filters}
}

// to is the page with the filters f instead of its own.
func (l filterLinks) to(f stats.Filters) string {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	if q = withFilters(q, f); len(q) == 0 {
		return l.path
	}
	return l.path + "?" + q.Encode()
}

// add is the page with the filter name=value added, or "" when the value is not a filter
// (stats.Filterable: (other), and the days of pageview, visitor and visit).
func (l filterLinks) add(name stats.Name, value string) string {
	if !stats.Filterable(name, value) || l.fixed(stats.Filter{Name: name}) {
		return ""
	}
	return l.to(l.filters.With(name, value))
}

// fixed tells whether a locked filter (a shared link's segment's) filters what x does: the
// page then offers no link that filters it, which the view would refuse.
func (l filterLinks) fixed(x stats.Filter) bool {
	return slices.ContainsFunc(l.filters, func(f stats.Filter) bool { return f.Locked && f.SameField(x) })
}

// filterChip is one active filter as the page shows it: "Country is Germany", with the
// address of the same page without it.
type filterChip struct {
	Name   string // the statistic as the page calls it: "Country", "Landing page"
	Op     string // "is", "is any of", "is not", "contains"
	Value  string // the values as lists show them, shortened to chipLength characters
	Raw    string // the values as stored and filtered on (the chip's title)
	Remove string
	// Switches are the same page with this filter's operator switched, each operator but its
	// own: the URL keeps the operator, so a view stays shareable.
	Switches []chipSwitch
	// Edit opens the dashboard's Filter dialog on this filter ("" elsewhere).
	Edit string
	// Fixed: a shared link's segment's filter, which its viewer cannot remove, switch nor
	// edit (no Remove, no Switches, no Edit).
	Fixed bool
}

// chipSwitch is one operator a chip can switch to.
type chipSwitch struct {
	Label string // "is", "is not", "contains"
	Href  string
}

// chipOps are the operators a chip switches between, with their labels.
var chipOps = []struct {
	op    stats.FilterOp
	label string
}{{stats.Is, "is"}, {stats.NoneOf, "is not"}, {stats.ContainsAny, "contains"}}

// opLabel is how a chip says a filter's operator.
func opLabel(f stats.Filter) string {
	switch f.Op {
	case stats.AnyOf:
		return "is any of"
	case stats.NoneOf:
		return "is not"
	case stats.ContainsAny:
		return "contains"
	}
	return "is"
}

// filterBar is the data of the "filters" template: the chips and the link clearing them all.
type filterBar struct {
	Base  string // where addresses begin (PUBLIC_URL)
	Chips []filterChip
	Clear string // "" when every filter is fixed: there is none to clear
	// Segment is the name of the shared link's segment whose filters are the Fixed chips;
	// "" without one.
	Segment string
}

// bar is the chips of l's filters, nil when there is none; base is where addresses begin.
func (l filterLinks) bar(base string) *filterBar {
	if len(l.filters) == 0 {
		return nil
	}
	out := &filterBar{Base: base}
	if slices.ContainsFunc(l.filters, func(f stats.Filter) bool { return !f.Locked }) {
		out.Clear = l.to(nil)
	}
	for i, f := range l.filters {
		shown := make([]string, 0, len(f.List()))
		for _, v := range f.List() {
			shown = append(shown, display.Value(f.Name, v))
		}
		chip := filterChip{
			Name: filterLabel(f.Name), Op: opLabel(f), Value: shorten(strings.Join(shown, " or "), chipLength),
			Raw: strings.Join(f.List(), " | "), Remove: l.to(l.filters.Removed(i)),
		}
		if f.Name == stats.Property { // "Property plan is pro"
			chip.Name = "Property " + shorten(f.Key, chipLength)
		}
		if f.Locked {
			chip.Fixed, chip.Remove = true, ""
			out.Chips = append(out.Chips, chip)
			continue
		}
		if f.Name == stats.Property || f.Name == stats.GoalName { // only "is" exists for these
			out.Chips = append(out.Chips, chip)
			continue
		}
		for _, c := range chipOps {
			if c.op != f.Op && !(c.op == stats.Is && f.Op == stats.AnyOf) {
				chip.Switches = append(chip.Switches, chipSwitch{Label: c.label, Href: l.to(l.filters.Replaced(i, f.Switched(c.op)))})
			}
		}
		out.Chips = append(out.Chips, chip)
	}
	return out
}

// bar is the chips of l's filters (filterLinks.bar) in the view, naming the shared link's
// segment whose filters are the fixed chips.
func (v statsView) bar(base string, l filterLinks) *filterBar {
	out := l.bar(base)
	if out != nil && v.segment != nil {
		out.Segment = v.segment.Name
	}
	return out
}

// chipLength is the most characters of a value a chip shows: a 255-character page path
// would fill a phone's screen.
const chipLength = 60

// shorten is s cut to n characters, with an ellipsis when it was longer.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// filterLabel names a filter's statistic in the singular, as a chip reads: "Landing page is
// /pricing".
func filterLabel(name stats.Name) string {
	switch name {
	case stats.LandingPage:
		return "Landing page"
	case stats.ExitPage:
		return "Exit page"
	case stats.GoalName:
		return "Goal"
	}
	stat, _ := statisticNamed(string(name))
	return stat.Value
}

// rangeParams are the range parameters of a query as given (none, when the page shows the
// default range), for links to another page of the same range.
func rangeParams(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range []string{"from", "to"} {
		if v, ok := q[k]; ok {
			out[k] = v
		}
	}
	return out
}
