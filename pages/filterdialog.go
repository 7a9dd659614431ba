package pages

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/analytics-service/analytics/pages/filterform"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The Filter dialog (pages/filterform): a disclosure under the chips holding a GET form on the
// dashboard's own address, so that a shared link's view keeps its token. Without JavaScript it
// is a disclosure and a form; with it, a button adds value fields.

// filterDialog is the data of the "filter_dialog" template.
type filterDialog struct {
	Open   bool   // opened on a chip (edit_filter)
	Edit   string // that chip's number
	Keep   map[string][]string
	Name   string // the dimension chosen, whose suggestions the value fields offer
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

// newFilterDialog is the dialog of a dashboard showing filters and lists, open on the filter
// edit (-1: a new one, closed); its form keeps the view addr shows.
func newFilterDialog(addr dashAddress, filters stats.Filters, edit int, lists []topList) filterDialog {
	d := filterDialog{Keep: cloneValues(addr.query), Values: []string{""}}
	// The names it offers: not those a shared link's segment fixes, which it would refuse.
	var names []stats.Name
	for _, n := range filterform.Names() {
		if !filterform.Locked(filters, n) {
			names = append(names, n)
		}
	}
	current := stats.Filter{Name: stats.Page}
	if len(names) > 0 && !slices.Contains(names, current.Name) {
		current.Name = names[0]
	}
	if edit >= 0 {
		d.Open, d.Edit, current = true, strconv.Itoa(edit), filters[edit]
		d.Values = current.List()
	}
	d.Name = string(current.Name)
	for _, n := range names {
		d.Names = append(d.Names, dialogChoice{Value: string(n), Label: filterLabel(n), Selected: n == current.Name})
	}
	for _, o := range filterform.Ops {
		d.Ops = append(d.Ops, dialogChoice{Value: o.Value, Label: o.Label, Selected: o == filterform.OpOf(current)})
	}
	for _, l := range lists {
		// Not events: their values are encoded (name:value:currency), their list shows groups.
		if len(l.Rows) == 0 || l.Stat.Name == stats.Event || !slices.Contains(filterform.Names(), l.Stat.Name) {
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

// applyFilterDialog answers the dialog's form: a redirect to the view with the filter sent,
// or the refusals on a readable page; nothing is applied then.
func (p *Pages) applyFilterDialog(w http.ResponseWriter, r *http.Request, site repository.Website) {
	q := r.URL.Query()
	errs := stats.FieldErrors{}
	v := viewOf(r, site)
	filters := v.parseFilters(q, errs)
	if len(errs) == 0 {
		filters = filterform.Apply(q, filters, errs)
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	addr := newDashAddress(v.path, q)
	p.redirect(w, r, newFilterLinks(v.path, addr.query, nil).To(filters), http.StatusSeeOther)
}
