package stats

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Filter narrows every number down to the visits that match it (docs/filters.md):
// filter[Name]=Value.
type Filter struct {
	Name  Name
	Key   string // of a property filter (Name Property): the property's key
	Value string // Is: the one value
	Op    FilterOp
	// Values are those of AnyOf, NoneOf and ContainsAny.
	Values []string
	// Locked: the filter is fixed by the view that reads it (a shared link's segment,
	// docs/teams.md). It narrows every read like any other, but travels in no address (Query
	// leaves it out), so that a view's links and forms cannot carry it, and so never remove it.
	Locked bool
}

// FilterOp is a filter's operator: Is, filter[NAME]=VALUE, or one of the three that take
// values separated by '|' (filter_any, filter_not, filter_contains).
type FilterOp uint8

const (
	Is           FilterOp = iota // the value is Value
	AnyOf                        // the value is one of Values
	NoneOf                       // the value is none of Values; page and event: no hit is
	ContainsAny                  // the value contains one of Values, ignoring case
	ContainsNone                 // the value contains none of Values, ignoring case; page and event: no hit does
)

// FilterParams are the query parameters of the operators, by FilterOp.
var FilterParams = [...]string{Is: FilterParam, AnyOf: "filter_any", NoneOf: "filter_not", ContainsAny: "filter_contains",
	ContainsNone: "filter_contains_not"}

// MaxFilterValues is the most values one filter_any, filter_not or filter_contains takes.
const MaxFilterValues = 20

// Filters are the filters of one read, all of which must hold, in the order of FilterNames (so
// that two spellings of one query compare equal and build the same SQL). Nil or empty: no
// filter, the daily counters answer.
type Filters []Filter

// FilterNames are the names a filter may take: every statistic but pageview, visitor and
// visit, whose values are days. Property filters are property_filter[KEY] (Filter.Key).
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

// ParseFilters reads the filter[NAME]=VALUE parameters of a query, and filter_any,
// filter_not and filter_contains (NAME=V1|V2). It refuses, with a message for the 422 on
// `filter`, a name that is not a filter name, a name given twice in one parameter, a parameter
// not in deepObject form (filter=x, filter[a][b]=x), and a value that is over
// MaxFilterValueLength characters, invalid UTF-8 or holds NUL (or more than MaxFilterValues
// values). Other parameters are left alone. A value that matches nothing is not an error
// (MatchesNothing).
func ParseFilters(query url.Values) (Filters, error) {
	var out Filters
	// In key order, so that a query with several wrong parameters gets the same message on
	// every call.
	for _, key := range slices.Sorted(maps.Keys(query)) {
		values := query[key]
		if key == PropertyFilterParam || strings.HasPrefix(key, PropertyFilterParam+"[") {
			f, err := parsePropertyFilter(key, values)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		op, ok := filterOp(key)
		if !ok {
			continue
		}
		param := FilterParams[op]
		name, ok := filterName(key, param)
		if !ok {
			return nil, fmt.Errorf("must be given as %s[NAME]=VALUE, one parameter for each name", param)
		}
		if !slices.Contains(FilterNames, Name(name)) {
			return nil, fmt.Errorf("%s[%s]: unknown name; one of %s", param, truncateName(name), filterNameList())
		}
		if len(values) != 1 {
			return nil, fmt.Errorf("%s[%s] is given %d times; give each name once", param, name, len(values))
		}
		if Name(name) == GoalName && op != Is {
			// Goal reads resolve one goal (its pattern against the range's pages); a list or a
			// negation of goals has no reading yet, and must not answer zeros as if it had.
			return nil, fmt.Errorf("%s[%s]: a goal is filtered with filter[goal]=NAME only", param, name)
		}
		f := Filter{Name: Name(name), Op: op}
		if op == Is {
			if err := checkFilterValue(values[0]); err != nil {
				return nil, fmt.Errorf("%s[%s]: %w", param, name, err)
			}
			f.Value = values[0]
		} else {
			list, err := splitFilterValues(values[0])
			if err != nil {
				return nil, fmt.Errorf("%s[%s]: %w", param, name, err)
			}
			f.Values = list
		}
		canonical := Name(name).Canonical()
		if _, twice := out.Get(canonical); twice && op == Is {
			return nil, fmt.Errorf("filter[%s] and filter[%s] are one name; give it once", canonical, UTMCampaign)
		}
		f.Name = canonical
		out = append(out, f)
	}
	out.sort()
	return out, nil
}

// splitFilterValues splits V1|V2 at each '|' that is not escaped: \| is a literal '|' and
// \\ a literal '\'; any other '\' is refused, so that every list has one spelling.
func splitFilterValues(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) || (s[i+1] != '|' && s[i+1] != '\\') {
				return nil, fmt.Errorf(`a '\' must escape '|' or '\'`)
			}
			i++
			cur.WriteByte(s[i])
		case c == '|':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	out = append(out, cur.String())
	if len(out) > MaxFilterValues {
		return nil, fmt.Errorf("has %d values; at most %d", len(out), MaxFilterValues)
	}
	for _, v := range out {
		if err := checkFilterValue(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// joinFilterValues is splitFilterValues' inverse.
func joinFilterValues(values []string) string {
	escaped := make([]string, len(values))
	for i, v := range values {
		escaped[i] = strings.NewReplacer(`\`, `\\`, `|`, `\|`).Replace(v)
	}
	return strings.Join(escaped, "|")
}

// PropertyFilterError is ParseFilters' refusal of a property_filter parameter (a 422 on
// property_filter, not on filter).
type PropertyFilterError struct{ Message string }

func (e *PropertyFilterError) Error() string { return e.Message }

// FilterField is the parameter a refusal of ParseFilters names: property_filter or filter.
func FilterField(err error) string {
	var p *PropertyFilterError
	if errors.As(err, &p) {
		return PropertyFilterParam
	}
	return FilterParam
}

// parsePropertyFilter reads property_filter[KEY]=VALUE: KEY 1 to 255 characters without a
// bracket, given once, VALUE as filter's.
func parsePropertyFilter(param string, values []string) (Filter, error) {
	key, ok := filterName(param, PropertyFilterParam)
	if !ok {
		return Filter{}, &PropertyFilterError{"must be given as property_filter[KEY]=VALUE, one parameter for each key; a key holding [ or ] cannot be filtered here"}
	}
	if !ValidText(key) || utf8.RuneCountInString(key) > MaxFilterValueLength {
		return Filter{}, &PropertyFilterError{fmt.Sprintf("a key must be UTF-8 text without NUL of at most %d characters", MaxFilterValueLength)}
	}
	if len(values) != 1 {
		return Filter{}, &PropertyFilterError{fmt.Sprintf("property_filter[%s] is given %d times; give each key once", truncateName(key), len(values))}
	}
	if err := checkFilterValue(values[0]); err != nil {
		return Filter{}, &PropertyFilterError{fmt.Sprintf("property_filter[%s]: %s", truncateName(key), err)}
	}
	return Filter{Name: Property, Key: key, Value: values[0]}, nil
}

// IsFilterParam tells whether a query parameter is one of the filters, in any spelling
// ParseFilters reads (and refuses): filter, filter[...], and the same of filter_any,
// filter_not and filter_contains.
func IsFilterParam(key string) bool {
	_, ok := filterOp(key)
	return ok || key == PropertyFilterParam || strings.HasPrefix(key, PropertyFilterParam+"[")
}

// filterOp is the operator of a filter parameter's key.
func filterOp(key string) (FilterOp, bool) {
	for op, param := range FilterParams {
		if key == param || strings.HasPrefix(key, param+"[") {
			return FilterOp(op), true
		}
	}
	return 0, false
}

// sort puts f in the order of FilterNames, then of the operators; property filters last, in
// order of key.
func (f Filters) sort() {
	slices.SortStableFunc(f, func(a, b Filter) int {
		if d := filterRank(a.Name) - filterRank(b.Name); d != 0 {
			return d
		}
		if d := strings.Compare(a.Key, b.Key); d != 0 {
			return d
		}
		return int(a.Op) - int(b.Op)
	})
}

func filterRank(n Name) int {
	if n == Property {
		return len(FilterNames)
	}
	return slices.Index(FilterNames, n)
}

// filterName is NAME of a parameter spelled param[NAME], NAME holding no bracket.
func filterName(key, param string) (string, bool) {
	inner, ok := strings.CutPrefix(key, param+"[")
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

// Get is the value of the is-filter on name, if there is one.
func (f Filters) Get(name Name) (string, bool) {
	for _, x := range f {
		if x.Name == name && x.Op == Is {
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

// Param is the query parameter of the filter: filter, filter_any, filter_not or
// filter_contains.
func (x Filter) Param() string {
	if x.Name == Property {
		return PropertyFilterParam
	}
	return FilterParams[x.Op]
}

// Field is the name a link's query gives the filter: NAME, or KEY of a property filter.
func (x Filter) Field() string {
	if x.Name == Property {
		return x.Key
	}
	return string(x.Name)
}

// Encoded is the filter's value as its parameter carries it: Value, or Values joined by '|'.
func (x Filter) Encoded() string {
	if x.Op == Is {
		return x.Value
	}
	return joinFilterValues(x.Values)
}

// List are the filter's values: [Value], or Values.
func (x Filter) List() []string {
	if x.Op == Is {
		return []string{x.Value}
	}
	return x.Values
}

// Switched is the filter with the operator op over the same values: Is of one value, AnyOf of
// several.
func (x Filter) Switched(op FilterOp) Filter {
	values := x.List()
	if op == Is || op == AnyOf {
		if len(values) == 1 {
			return Filter{Name: x.Name, Value: values[0]}
		}
		return Filter{Name: x.Name, Op: AnyOf, Values: values}
	}
	return Filter{Name: x.Name, Op: op, Values: values}
}

// Replaced is f with its i-th filter replaced by x, in order.
func (f Filters) Replaced(i int, x Filter) Filters {
	out := slices.Clone(f)
	out[i] = x
	out.sort()
	return out
}

// Removed is f without its i-th filter.
func (f Filters) Removed(i int) Filters {
	return slices.Delete(slices.Clone(f), i, i+1)
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

// Query is f as query parameters (filter[NAME]=VALUE), to add to a link; locked filters are
// left out: the view that fixed them adds them again, and an address must not say them.
func (f Filters) Query() url.Values {
	q := url.Values{}
	for _, x := range f {
		if !x.Locked {
			q.Set(x.Param()+"["+x.Field()+"]", x.Encoded())
		}
	}
	return q
}

// Joined is f and g together, in order (the filters of two sources that filter different
// names, such as an address's and a view's locked ones).
func (f Filters) Joined(g Filters) Filters {
	out := append(slices.Clone(f), g...)
	out.sort()
	return out
}

// SameField tells whether two filters filter the same thing: the name, and for property
// filters the key.
func (x Filter) SameField(y Filter) bool {
	return x.Name == y.Name && (x.Name != Property || x.Key == y.Key)
}

// WithProperty is f with the property filter key=value added (or replacing the one on key).
func (f Filters) WithProperty(key, value string) Filters {
	out := make(Filters, 0, len(f)+1)
	for _, x := range f {
		if x.Name != Property || x.Key != key {
			out = append(out, x)
		}
	}
	out = append(out, Filter{Name: Property, Key: key, Value: value})
	out.sort()
	return out
}

// MatchesNothing tells whether no visit can match f: a filter on stats.Other, the value the
// counters keep for values past the daily limit (section 12), which no visit has.
func (f Filters) MatchesNothing() bool {
	for _, x := range f {
		if x.Op == Is && x.Value == Other {
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

// MaxExactPageviews is the most pageviews a view (a website's range) may hold for reads of its
// visit rows to be exact, Plausible's line for sampling; past it they read a sample of the
// visitors (docs/big-sites.md). By volume, not by the range's length: a small website's year
// is exact, a very big website's week may be sampled.
const MaxExactPageviews = 10_000_000

// SampleFraction is the fraction of the visitors that reads of the visit rows of a view
// holding these pageviews read: 1 (exact) up to MaxExactPageviews; past it about
// MaxExactPageviews' worth, rounded down to one of 1/2, 1/5, 1/10, 1/20, 1/50 and 1/100, so
// that the answer says a plain fraction. Every read of one view gets the same fraction, and a
// fraction keeps whole visitors (the same ones in every read), so the panels of a view add up.
func SampleFraction(pageviews int64) float64 {
	if pageviews <= MaxExactPageviews {
		return 1
	}
	want := float64(MaxExactPageviews) / float64(pageviews)
	for _, f := range []float64{0.5, 0.2, 0.1, 0.05, 0.02} {
		if f <= want {
			return f
		}
	}
	return 0.01
}

// SampleCut maps a fraction onto the visitor numbers of a day (signed 32 bits, as every store
// keeps them): the visits whose visitor is below it are that fraction of the visitors, whole
// visitors each, the same ones in every store and every read of a view.
func SampleCut(fraction float64) int64 {
	return math.MinInt32 + int64(math.Round(fraction*(1<<32)))
}
