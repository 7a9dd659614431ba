// Package filterbar makes a stats page's links with its filters changed and the chips of its
// active filters (docs/filters.md): filter[NAME]=VALUE in the address, so that a filtered
// view can be bookmarked and shared; a view's locked filters (a shared link's segment's) are
// shown fixed and travel in no address.
package filterbar

import (
	"net/url"
	"slices"
	"strings"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/stats"
)

// With is q with the filters f added, for a link that keeps them.
func With(q url.Values, f stats.Filters) url.Values {
	for k, v := range f.Query() {
		q[k] = v
	}
	return q
}

// Links makes the addresses of one page with its filters changed. Each keeps the page's
// other parameters (the range; on a full list its search, order and page size) and drops the
// page number: another filter makes another list, whose page 1 is where to start.
type Links struct {
	path    string     // the page the links lead to, e.g. /stats/example.com
	query   url.Values // its parameters, filters and page number left out
	Filters stats.Filters
	label   func(stats.Name) string // a statistic as a chip names it
}

// New are the links of the page at path with query and filters; label names a statistic as
// a chip reads ("Landing page").
func New(path string, query url.Values, filters stats.Filters, label func(stats.Name) string) Links {
	kept := url.Values{}
	for k, v := range query {
		if !stats.IsFilterParam(k) && k != "page" {
			kept[k] = v
		}
	}
	return Links{path: path, query: kept, Filters: filters, label: label}
}

// Query is the page's parameters, its filters and page number left out.
func (l Links) Query() url.Values { return l.query }

// To is the page with the filters f instead of its own.
func (l Links) To(f stats.Filters) string {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	if q = With(q, f); len(q) == 0 {
		return l.path
	}
	return l.path + "?" + q.Encode()
}

// Add is the page with the filter name=value added, or "" when the value is not a filter
// (stats.Filterable: (other), and the days of pageview, visitor and visit).
func (l Links) Add(name stats.Name, value string) string {
	if !stats.Filterable(name, value) || l.Fixed(stats.Filter{Name: name}) {
		return ""
	}
	return l.To(l.Filters.With(name, value))
}

// Fixed tells whether a locked filter (a shared link's segment's) filters what x does: the
// page then offers no link that filters it, which the view would refuse.
func (l Links) Fixed(x stats.Filter) bool {
	return slices.ContainsFunc(l.Filters, func(f stats.Filter) bool { return f.Locked && f.SameField(x) })
}

// Chip is one active filter as the page shows it: "Country is Germany", with the
// address of the same page without it.
type Chip struct {
	Name   string // the statistic as the page calls it: "Country", "Landing page"
	Op     string // "is", "is any of", "is not", "contains"
	Value  string // the values as lists show them, shortened to ChipLength characters
	Raw    string // the values as stored and filtered on (the chip's title)
	Remove string
	// Switches are the same page with this filter's operator switched, each operator but its
	// own: the URL keeps the operator, so a view stays shareable.
	Switches []Switch
	// Edit opens the dashboard's Filter dialog on this filter ("" elsewhere).
	Edit string
	// Fixed: a shared link's segment's filter, which its viewer cannot remove, switch nor
	// edit (no Remove, no Switches, no Edit).
	Fixed bool
}

// Switch is one operator a chip can switch to.
type Switch struct {
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

// Bar is the data of the "filters" template: the chips and the link clearing them all.
type Bar struct {
	Base  string // where addresses begin (PUBLIC_URL)
	Chips []Chip
	Clear string // "" when every filter is fixed: there is none to clear
	// Segment is the name of the shared link's segment whose filters are the Fixed chips;
	// "" without one.
	Segment string
}

// Bar is the chips of l's filters, nil when there is none; base is where addresses begin.
func (l Links) Bar(base string) *Bar {
	if len(l.Filters) == 0 {
		return nil
	}
	out := &Bar{Base: base}
	if slices.ContainsFunc(l.Filters, func(f stats.Filter) bool { return !f.Locked }) {
		out.Clear = l.To(nil)
	}
	for i, f := range l.Filters {
		shown := make([]string, 0, len(f.List()))
		for _, v := range f.List() {
			shown = append(shown, display.Value(f.Name, v))
		}
		chip := Chip{
			Name: l.label(f.Name), Op: opLabel(f), Value: Shorten(strings.Join(shown, " or "), ChipLength),
			Raw: strings.Join(f.List(), " | "), Remove: l.To(l.Filters.Removed(i)),
		}
		if f.Name == stats.Property { // "Property plan is pro"
			chip.Name = "Property " + Shorten(f.Key, ChipLength)
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
				chip.Switches = append(chip.Switches, Switch{Label: c.label, Href: l.To(l.Filters.Replaced(i, f.Switched(c.op)))})
			}
		}
		out.Chips = append(out.Chips, chip)
	}
	return out
}

// ChipLength is the most characters of a value a chip shows: a 255-character page path
// would fill a phone's screen.
const ChipLength = 60

// Shorten is s cut to n characters, with an ellipsis when it was longer.
func Shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// RangeParams are the range parameters of a query as given (none, when the page shows the
// default range), for links to another page of the same range.
func RangeParams(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range []string{"from", "to"} {
		if v, ok := q[k]; ok {
			out[k] = v
		}
	}
	return out
}
