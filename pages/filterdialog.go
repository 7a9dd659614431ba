package pages

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The Filter dialog: a GET form on the dashboard's own address (so that a shared link's view
// keeps its token) picking a dimension, an operator and one or more typed values. Sent, the
// dashboard checks it as it checks filters in the address (stats.ParseFilters), and redirects
// to the view with the filter added, or with the chip's filter replaced when the dialog was
// opened from a chip (edit_filter=N, then dialog_edit=N). Without JavaScript it is a
// disclosure and a form; with it, a button adds value fields.
const (
	dialogName      = "dialog_name"
	dialogOp        = "dialog_op"
	dialogValue     = "dialog_value"
	dialogEdit      = "dialog_edit"
	editFilterParam = "edit_filter"
)

// dialogOps are the dialog's operators, as its form sends them, with their labels.
var dialogOps = []dialogOperator{{"is", "is", stats.Is}, {"is_not", "is not", stats.NoneOf}, {"contains", "contains", stats.ContainsAny},
	{"contains_not", "does not contain", stats.ContainsNone}}

type dialogOperator struct {
	value, label string
	op           stats.FilterOp
}

// filterDialog is the data of the "filter_dialog" template.
type filterDialog struct {
	Open   bool // opened on a chip (edit_filter), or sent with refusals
	Edit   string
	Keep   url.Values // the view's parameters, filters included, as hidden inputs
	Name   string     // the dimension chosen, whose suggestions the value fields offer
	Names  []dialogChoice
	Ops    []dialogChoice
	Values []string // at least one field, empty for a new filter
	// Suggest are the values of the lists shown, by dimension, for the value fields' list.
	Suggest []dialogSuggest
}

type dialogChoice struct {
	Value, Label string
	Selected     bool
}

type dialogSuggest struct {
	Name    string
	Options []dialogChoice // Value as filtered on, Label as shown
}

// dialogNames are the dimensions the dialog filters by: every filter name but the property,
// whose key the dialog has no field for.
func dialogNames() []stats.Name {
	var out []stats.Name
	for _, n := range stats.FilterNames {
		if n != stats.Property {
			out = append(out, n)
		}
	}
	return out
}

// newFilterDialog is the dialog of a dashboard showing filters, open on the filter edit
// (-1: a new one, closed).
func newFilterDialog(addr dashAddress, filters stats.Filters, edit int, lists []topList) filterDialog {
	d := filterDialog{Keep: cloneValues(addr.query), Values: []string{""}}
	current := stats.Filter{Name: stats.Page}
	if edit >= 0 {
		d.Open, d.Edit, current = true, strconv.Itoa(edit), filters[edit]
		d.Values = current.List()
	}
	d.Name = string(current.Name)
	for _, n := range dialogNames() {
		d.Names = append(d.Names, dialogChoice{Value: string(n), Label: filterLabel(n), Selected: n == current.Name})
	}
	for _, o := range dialogOps {
		selected := o.op == current.Op || (o.op == stats.Is && current.Op == stats.AnyOf)
		d.Ops = append(d.Ops, dialogChoice{Value: o.value, Label: o.label, Selected: selected})
	}
	for _, l := range lists {
		// Not events: their values are encoded (name:value:currency), their list shows groups.
		if len(l.Rows) == 0 || l.Stat.Name == stats.Event || !slices.Contains(dialogNames(), l.Stat.Name) {
			continue
		}
		s := dialogSuggest{Name: string(l.Stat.Name)}
		for _, r := range l.Rows {
			if r.Filter != "" {
				s.Options = append(s.Options, dialogChoice{Value: r.Value, Label: r.Label})
			}
		}
		d.Suggest = append(d.Suggest, s)
	}
	if !slices.ContainsFunc(d.Suggest, func(s dialogSuggest) bool { return s.Name == d.Name }) {
		d.Suggest = append(d.Suggest, dialogSuggest{Name: d.Name}) // the fields' list exists, empty
	}
	return d
}

// parseEditFilter reads edit_filter, the index of the chip whose filter the dialog edits; -1
// without one.
func parseEditFilter(q url.Values, filters stats.Filters, errs stats.FieldErrors) int {
	v, ok := q[editFilterParam]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(strings.Join(v, ","))
	switch {
	case err != nil || i < 0 || i >= len(filters):
		errs.Add(editFilterParam, "must be the number of one of the filters shown, 0 to "+strconv.Itoa(len(filters)-1))
	case filters[i].Name == stats.Property:
		errs.Add(editFilterParam, "names a property filter, which the Filter dialog does not edit")
	default:
		return i
	}
	return -1
}

// sentFilter is the filter the dialog sent, checked as the address's filters are, with the
// filters it goes among (the chip's replaced, and any other on its dimension).
func sentFilter(q url.Values, filters stats.Filters, errs stats.FieldErrors) stats.Filters {
	for _, p := range []string{dialogName, dialogOp, dialogEdit} {
		if len(q[p]) > 1 {
			errs.Add(p, "must be sent once")
		}
	}
	name := stats.Name(q.Get(dialogName))
	if !slices.Contains(dialogNames(), name) {
		errs.Add(dialogName, stats.OneOf(dialogNames()))
	}
	i := slices.IndexFunc(dialogOps, func(o dialogOperator) bool { return o.value == q.Get(dialogOp) })
	if i < 0 {
		errs.Add(dialogOp, "must be one of is, is_not, contains, contains_not")
	}
	var values []string
	for _, v := range q[dialogValue] {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		errs.Add(dialogValue, "must hold at least one value")
	}
	rest := filters
	if _, ok := q[dialogEdit]; ok {
		edit, err := strconv.Atoi(q.Get(dialogEdit))
		if err != nil || edit < 0 || edit >= len(filters) {
			errs.Add(dialogEdit, "must be the number of one of the filters shown, 0 to "+strconv.Itoa(len(filters)-1))
		} else {
			rest = filters.Removed(edit)
		}
	}
	if len(errs) > 0 {
		return nil
	}
	f := stats.Filter{Name: name, Op: stats.AnyOf, Values: values}.Switched(dialogOps[i].op)
	out := append(rest.Without(name), f)
	// Through the address and back: the one place that says which filters can be.
	checked, err := stats.ParseFilters(out.Query())
	if err != nil {
		errs.Add(dialogValue, err.Error())
		return nil
	}
	return checked
}

// applyFilterDialog answers the dialog's form: a redirect to the view with the filter sent,
// or the refusals on a readable page.
func (p *Pages) applyFilterDialog(w http.ResponseWriter, r *http.Request, site repository.Website) {
	q := r.URL.Query()
	errs := stats.FieldErrors{}
	filters := parseFilters(q, errs)
	if len(errs) == 0 {
		filters = sentFilter(q, filters, errs)
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	v := viewOf(r, site)
	addr := newDashAddress(v.path, q)
	p.redirect(w, r, newFilterLinks(v.path, addr.query, nil).to(filters), http.StatusSeeOther)
}
