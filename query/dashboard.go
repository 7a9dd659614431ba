package query

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// The dashboard's filters (v1's filter, filter_any, filter_not, filter_contains and
// property_filter) as a segment's filters, and back (docs/segments.md). A segment saved on
// the dashboard holds the query-API filters that count what the dashboard counted: is
// (filter and filter_any), not of is (filter_not: no hit of the visit is one of the values,
// as engineFilter compiles it), contains ignoring case and not of that. The dashboard applies
// a segment by turning its filters back into its own, which is possible exactly for the
// filters written here; a segment made with the API that uses more (matches, or, case
// sensitive contains) is applied by the query API only.

var caseInsensitive = map[string]bool{"case_sensitive": false}

// dashboardDimension is the query dimension of a dashboard filter, "" when none counts the
// same (continent, language, city, search engine, social network and event have no such
// dimension; a country is its code, so contains, which reads the whole value, has none).
func dashboardDimension(f stats.Filter) string {
	switch f.Name {
	case stats.Page:
		return "event:page"
	case stats.GoalName:
		return "event:goal"
	case stats.Property:
		return propsPrefix + f.Key
	}
	for _, field := range fields {
		if field.Level != VisitLevel || field.Stat != f.Name {
			continue
		}
		if field.Part == Whole || (field.Part == Code && f.Op != stats.ContainsAny && f.Op != stats.ContainsNone) {
			return field.Name
		}
	}
	return ""
}

// DashboardSegment is the dashboard's filters as a segment's filters (JSON), or an error
// naming the filter that a segment cannot hold.
func DashboardSegment(filters stats.Filters) ([]byte, error) {
	if len(filters) == 0 {
		return nil, fmt.Errorf("there is no filter to save: filter the dashboard first")
	}
	out := make([]any, 0, len(filters))
	for _, f := range filters {
		dim := dashboardDimension(f)
		if dim == "" {
			return nil, fmt.Errorf("a %s filter cannot be saved in a segment", f.Field())
		}
		values := f.List()
		if fields[dim].Part == Code {
			values = codes(values)
		}
		switch f.Op {
		case stats.Is, stats.AnyOf:
			out = append(out, isLeaf(dim, values))
		case stats.NoneOf:
			out = append(out, []any{Not, isLeaf(dim, values)})
		case stats.ContainsAny:
			out = append(out, []any{Contains, dim, values, caseInsensitive})
		case stats.ContainsNone:
			out = append(out, []any{Not, []any{Contains, dim, values, caseInsensitive}})
		}
	}
	return json.Marshal(out)
}

// isLeaf is ["is", dim, values]; on a dimension with a second spelling, ignoring case, which
// compares the stored spelling only (Plausible's "Desktop" would also take tv, console and
// watch: the dashboard's desktop does not).
func isLeaf(dim string, values []string) []any {
	if len(fields[dim].Spell) > 0 {
		return []any{Is, dim, values, caseInsensitive}
	}
	return []any{Is, dim, values}
}

func codes(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i], _, _ = strings.Cut(v, ":")
	}
	return out
}

// SegmentDashboard is a segment's filters as the dashboard's, false when they are not the
// dashboard's kind (see above).
func SegmentDashboard(raw []byte) (stats.Filters, bool) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, false
	}
	var out stats.Filters
	for _, leaf := range list {
		f, ok := dashboardFilter(leaf)
		if !ok {
			return nil, false
		}
		out = append(out, f)
	}
	// Read back as the dashboard reads its address: the same checks, the same order.
	checked, err := stats.ParseFilters(out.Query())
	if err != nil || len(checked) != len(out) {
		return nil, false
	}
	return checked, true
}

// dashboardFilter is one leaf of DashboardSegment's forms as a dashboard filter.
func dashboardFilter(raw json.RawMessage) (stats.Filter, bool) {
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil || len(parts) < 2 {
		return stats.Filter{}, false
	}
	var op Op
	if json.Unmarshal(parts[0], &op) != nil {
		return stats.Filter{}, false
	}
	negated := op == Not
	if negated {
		if len(parts) != 2 || json.Unmarshal(parts[1], &parts) != nil || len(parts) < 3 || json.Unmarshal(parts[0], &op) != nil {
			return stats.Filter{}, false
		}
	}
	var dim string
	var values []string
	if len(parts) < 3 || json.Unmarshal(parts[1], &dim) != nil || json.Unmarshal(parts[2], &values) != nil || len(values) == 0 {
		return stats.Filter{}, false
	}
	ignoreCase := false
	if len(parts) == 4 {
		var mods map[string]bool
		if json.Unmarshal(parts[3], &mods) != nil || len(mods) != 1 || mods["case_sensitive"] {
			return stats.Filter{}, false
		}
		ignoreCase = true
	}
	f := stats.Filter{Values: values}
	if !dashboardName(dim, &f) {
		return stats.Filter{}, false
	}
	switch {
	case op == Is && ignoreCase == (len(fields[dim].Spell) > 0) && negated:
		f.Op = stats.NoneOf
	case op == Is && ignoreCase == (len(fields[dim].Spell) > 0):
		f.Op = stats.AnyOf
		if len(values) == 1 {
			f.Op, f.Value, f.Values = stats.Is, values[0], nil
		}
	case op == Contains && ignoreCase && negated:
		f.Op = stats.ContainsNone
	case op == Contains && ignoreCase:
		f.Op = stats.ContainsAny
	default:
		return stats.Filter{}, false
	}
	if f.Name == stats.Property && f.Op != stats.Is {
		return stats.Filter{}, false // the dashboard's property filter is one value
	}
	return f, dashboardDimension(f) == dim
}

// dashboardName sets the dashboard filter's name (and a property's key) of a dimension.
func dashboardName(dim string, f *stats.Filter) bool {
	switch dim {
	case "event:page":
		f.Name = stats.Page
		return true
	case "event:goal":
		f.Name = stats.GoalName
		return true
	}
	if key, ok := strings.CutPrefix(dim, propsPrefix); ok {
		f.Name, f.Key = stats.Property, key
		return key != ""
	}
	field, ok := fields[dim]
	if !ok || field.Level != VisitLevel {
		return false
	}
	f.Name = field.Stat
	return true
}
