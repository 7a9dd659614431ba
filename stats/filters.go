package stats

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Filter narrows every number down to the visits that match it (docs/filters.md):
// filter[Name]=Value.
type Filter struct {
	Name  Name
	Value string
}

// Filters are the filters of one read, all of which must hold, in the order of FilterNames (so
// that two spellings of one query compare equal and build the same SQL). Nil or empty: no
// filter, the daily counters answer.
type Filters []Filter

// FilterNames are the names a filter may take: every statistic but pageview, visitor and
// visit, whose values are days.
var FilterNames = func() []Name {
	var out []Name
	for _, n := range Names {
		if n != Pageview && n != Visitor && n != Visit {
			out = append(out, n)
		}
	}
	return append(out, GoalName)
}()

// MaxFilterValueLength is the longest value a filter takes, in characters.
const MaxFilterValueLength = 255

// FilterParam is the query parameter the filters travel in: filter[NAME]=VALUE (OpenAPI
// deepObject).
const FilterParam = "filter"

// ParseFilters reads the filter[NAME]=VALUE parameters of a query. It refuses, with a message
// for the 422 on `filter`, a name that is not a filter name, a name given twice, a `filter`
// parameter not in deepObject form (filter=x, filter[a][b]=x), and a value that is over
// MaxFilterValueLength characters, invalid UTF-8 or holds NUL. Other parameters are left
// alone. A value that matches nothing is not an error (MatchesNothing).
func ParseFilters(query url.Values) (Filters, error) {
	var out Filters
	// In key order, so that a query with several wrong parameters gets the same message on
	// every call.
	for _, key := range slices.Sorted(maps.Keys(query)) {
		values := query[key]
		if !IsFilterParam(key) {
			continue
		}
		name, ok := filterName(key)
		if !ok {
			return nil, fmt.Errorf("must be given as filter[NAME]=VALUE, one parameter for each name")
		}
		if !slices.Contains(FilterNames, Name(name)) {
			return nil, fmt.Errorf("filter[%s]: unknown name; one of %s", truncateName(name), filterNameList())
		}
		if len(values) != 1 {
			return nil, fmt.Errorf("filter[%s] is given %d times; give each name once", name, len(values))
		}
		if err := checkFilterValue(values[0]); err != nil {
			return nil, fmt.Errorf("filter[%s]: %w", name, err)
		}
		canonical := Name(name).Canonical()
		if _, twice := out.Get(canonical); twice {
			return nil, fmt.Errorf("filter[%s] and filter[%s] are one name; give it once", canonical, UTMCampaign)
		}
		out = append(out, Filter{Name: canonical, Value: values[0]})
	}
	out.sort()
	return out, nil
}

// IsFilterParam tells whether a query parameter is one of the filters, in any spelling
// ParseFilters reads (and refuses): filter, filter[...].
func IsFilterParam(key string) bool {
	return key == FilterParam || strings.HasPrefix(key, FilterParam+"[")
}

// sort puts f in the order of FilterNames.
func (f Filters) sort() {
	slices.SortFunc(f, func(a, b Filter) int {
		return slices.Index(FilterNames, a.Name) - slices.Index(FilterNames, b.Name)
	})
}

// filterName is NAME of a parameter spelled filter[NAME], NAME holding no bracket.
func filterName(key string) (string, bool) {
	inner, ok := strings.CutPrefix(key, FilterParam+"[")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "]")
	if !ok || inner == "" || strings.ContainsAny(inner, "[]") {
		return "", false
	}
	return inner, true
}

func checkFilterValue(v string) error {
	if !ValidText(v) {
		return fmt.Errorf("must be UTF-8 text without NUL")
	}
	if n := utf8.RuneCountInString(v); n > MaxFilterValueLength {
		return fmt.Errorf("is %d characters long; at most %d", n, MaxFilterValueLength)
	}
	return nil
}

func truncateName(s string) string {
	if len(s) > 40 || !ValidText(s) {
		return "..."
	}
	return s
}

func filterNameList() string {
	parts := make([]string, len(FilterNames))
	for i, n := range FilterNames {
		parts[i] = string(n)
	}
	return strings.Join(parts, ", ")
}

// Canonical are the filters under their canonical names (Name.Canonical), in order: f itself
// when every name is already (as ParseFilters makes them).
func (f Filters) Canonical() Filters {
	if !slices.ContainsFunc(f, func(x Filter) bool { return x.Name != x.Name.Canonical() }) {
		return f
	}
	out := slices.Clone(f)
	for i := range out {
		out[i].Name = out[i].Name.Canonical()
	}
	out.sort()
	return out
}

// Get is the value of the filter on name, if there is one.
func (f Filters) Get(name Name) (string, bool) {
	for _, x := range f {
		if x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// With is f with the filter name=value added (or replacing the one on name), in order.
func (f Filters) With(name Name, value string) Filters {
	out := append(f.Without(name), Filter{Name: name, Value: value})
	out.sort()
	return out
}

// Without is f without its filter on name.
func (f Filters) Without(name Name) Filters {
	out := make(Filters, 0, len(f))
	for _, x := range f {
		if x.Name != name {
			out = append(out, x)
		}
	}
	return out
}

// Query is f as query parameters (filter[NAME]=VALUE), to add to a link.
func (f Filters) Query() url.Values {
	q := url.Values{}
	for _, x := range f {
		q.Set(FilterParam+"["+string(x.Name)+"]", x.Value)
	}
	return q
}

// MatchesNothing tells whether no visit can match f: a filter on stats.Other, the value the
// counters keep for values past the daily limit (section 12), which no visit has.
func (f Filters) MatchesNothing() bool {
	for _, x := range f {
		if x.Value == Other {
			return true
		}
	}
	return false
}

// Filterable tells whether a value of the statistic name links to a filter: every value of a
// filter name but stats.Other.
func Filterable(name Name, value string) bool {
	return value != Other && slices.Contains(FilterNames, name)
}

// ExactFilterDays is the longest range, in days, whose filtered numbers are exact; past it
// they may be sampled (docs/filters.md).
const ExactFilterDays = 31

// SampleFraction is the fraction of the visits that filtered reads of the range read: 1 (exact)
// up to ExactFilterDays days; past it about ExactFilterDays days' worth, rounded down to one of
// 1/2, 1/5, 1/10, 1/20, 1/50 and 1/100, so that the answer says a plain fraction.
func SampleFraction(days Range) float64 {
	n := days.Days()
	if n <= ExactFilterDays {
		return 1
	}
	want := float64(ExactFilterDays) / float64(n)
	for _, f := range []float64{0.5, 0.2, 0.1, 0.05, 0.02} {
		if f <= want {
			return f
		}
	}
	return 0.01
}
