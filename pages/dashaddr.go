package pages

import (
	"net/url"

	"github.com/analytics-service/analytics/pages/filterform"
)

// dashAddress is the dashboard's address as shown, for the links that change one part of the
// view: a card (the graph's metric), the interval switch, a period, a panel's tab, the
// comparison's switch. Each keeps every other parameter of the view (range, filters,
// comparison, graph, tabs, a shared link's token), so that a link or a reload shows what
// was on the screen with the one change.
type dashAddress struct {
	path  string     // the dashboard's path, e.g. /stats/example.com
	query url.Values // its parameters as checked, transient ones left out
}

func newDashAddress(path string, q url.Values) dashAddress {
	kept := cloneValues(q)
	for _, k := range filterform.Params { // the Filter dialog's: not part of the view
		delete(kept, k)
	}
	return dashAddress{path: path, query: kept}
}

// with is the address with the parameters of changes set; an empty value removes its
// parameter.
func (a dashAddress) with(changes url.Values) string {
	q := cloneValues(a.query)
	for k, vs := range changes {
		if len(vs) == 0 || vs[0] == "" {
			delete(q, k)
			continue
		}
		q[k] = vs
	}
	if len(q) == 0 {
		return a.path
	}
	return a.path + "?" + q.Encode()
}

// set is with of one parameter.
func (a dashAddress) set(name, value string) string {
	return a.with(url.Values{name: {value}})
}
