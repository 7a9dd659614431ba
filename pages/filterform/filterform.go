// Package filterform reads the dashboard's Filter dialog: a dimension, an operator (is, is
// not, contains, does not contain) and typed values, sent as a GET form on the dashboard's own
// address, checked as the address's filters are (stats.ParseFilters, the one place that says
// which filters can be) and turned into the view's new filters.
package filterform

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// The dialog's parameters. Edit is set when a chip's Edit link (EditParam=N on the dashboard)
// opened the dialog: the filter sent replaces that chip's.
const (
	NameParam  = "dialog_name"
	OpParam    = "dialog_op"
	ValueParam = "dialog_value"
	EditParam  = "dialog_edit"
	// OpenParam opens the dialog on the chip N's filter.
	OpenParam = "edit_filter"
)

// Params are the dialog's parameters, none of which is part of a view.
var Params = []string{NameParam, OpParam, ValueParam, EditParam, OpenParam}

// Sent tells whether a dashboard's address is the dialog's form sent.
func Sent(q url.Values) bool {
	return q.Has(NameParam) || q.Has(OpParam) || q.Has(ValueParam) || q.Has(EditParam)
}

// Op is one of the dialog's operators: as its form sends it, its label, its filter.
type Op struct {
	Value, Label string
	Filter       stats.FilterOp
}

// Ops are the dialog's operators, in its order.
var Ops = []Op{{"is", "is", stats.Is}, {"is_not", "is not", stats.NoneOf}, {"contains", "contains", stats.ContainsAny},
	{"contains_not", "does not contain", stats.ContainsNone}}

// OpOf is the dialog's operator of a filter (is for is-any-of).
func OpOf(f stats.Filter) Op {
	for _, o := range Ops {
		if o.Filter == f.Op || (o.Filter == stats.Is && f.Op == stats.AnyOf) {
			return o
		}
	}
	return Ops[0]
}

// Names are the dimensions the dialog filters by: every filter name but the property, whose
// key the dialog has no field for.
func Names() []stats.Name {
	var out []stats.Name
	for _, n := range stats.FilterNames {
		if n != stats.Property {
			out = append(out, n)
		}
	}
	return out
}

// ParseOpen reads edit_filter, the chip whose filter the dialog opens on; -1 without one.
func ParseOpen(q url.Values, filters stats.Filters, errs stats.FieldErrors) int {
	v, ok := q[OpenParam]
	if !ok {
		return -1
	}
	i := index(strings.Join(v, ","), filters, OpenParam, errs)
	if i >= 0 && filters[i].Name == stats.Property {
		errs.Add(OpenParam, "names a property filter, which the Filter dialog does not edit")
		return -1
	}
	if i >= 0 && filters[i].Locked {
		errs.Add(OpenParam, lockedRefusal)
		return -1
	}
	return i
}

// lockedRefusal is the refusal of a change to a locked filter (stats.Filter.Locked).
const lockedRefusal = "names a filter fixed by the shared link, which cannot be changed here"

// Locked tells whether filters hold a locked filter on name: the dialog does not offer it.
func Locked(filters stats.Filters, name stats.Name) bool {
	return slices.ContainsFunc(filters, func(f stats.Filter) bool { return f.Locked && f.Name == name })
}

// index reads the number of one of filters, refused on param.
func index(s string, filters stats.Filters, param string, errs stats.FieldErrors) int {
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i >= len(filters) {
		errs.Add(param, "must be the number of one of the filters shown, 0 to "+strconv.Itoa(len(filters)-1))
		return -1
	}
	return i
}

// Apply is the view's filters with the one the dialog sent: among filters, the chip's it
// edits replaced, and any other on its dimension. Empty values are dropped, repeated ones
// kept once; several mean any of them (none of them, for the negations).
func Apply(q url.Values, filters stats.Filters, errs stats.FieldErrors) stats.Filters {
	for _, p := range []string{NameParam, OpParam, EditParam} {
		if len(q[p]) > 1 {
			errs.Add(p, "must be sent once")
		}
	}
	name := stats.Name(q.Get(NameParam))
	if !slices.Contains(Names(), name) {
		errs.Add(NameParam, stats.OneOf(Names()))
	}
	i := slices.IndexFunc(Ops, func(o Op) bool { return o.Value == q.Get(OpParam) })
	if i < 0 {
		errs.Add(OpParam, "must be one of is, is_not, contains, contains_not")
	}
	var values []string
	for _, v := range q[ValueParam] {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		errs.Add(ValueParam, "must hold at least one value")
	}
	if Locked(filters, name) {
		// Replacing it would drop the locked one (rest.Without below): refused, never dropped.
		errs.Add(NameParam, string(name)+" is fixed by the shared link, which cannot be changed here")
	}
	rest := filters
	if q.Has(EditParam) {
		if edit := index(q.Get(EditParam), filters, EditParam, errs); edit >= 0 && filters[edit].Locked {
			errs.Add(EditParam, lockedRefusal)
		} else if edit >= 0 {
			rest = filters.Removed(edit)
		}
	}
	if len(errs) > 0 {
		return nil
	}
	f := stats.Filter{Name: name, Op: stats.AnyOf, Values: values}.Switched(Ops[i].Filter)
	checked, err := stats.ParseFilters(append(rest.Without(name), f).Query())
	if err != nil {
		errs.Add(ValueParam, err.Error())
		return nil
	}
	return checked
}
