package stats

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The values the list of one statistic's values takes (the stats API's listStats, and the
// pages' full lists with the same parameters), as the spec's enums declare them; a test checks
// them against the spec, so the pages cannot drift from the API.
var (
	SearchByValues = []string{"value"}
	SortByValues   = []string{"count", "value"}
	SortValues     = []string{"desc", "asc"}
)

// SearchMaxLength is the longest search a list takes, in characters as the spec's maxLength
// counts them (not bytes).
const SearchMaxLength = 255

// PageRule is the refusal of a page number. The API names the one rule of the spec's (integer,
// minimum 1, maximum MaxPage) that a value breaks; this says them at once, in words a reader
// of a page can act on. Every other refusal of ParseListQuery is worded as the API words it.
const PageRule = "must be a whole number from 1"

// OneOf is the refusal of a value that is not one of an enum's values, as the API words it.
func OneOf[T any](values []T) string {
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = fmt.Sprint(v)
	}
	return "must be one of " + strings.Join(words, ", ")
}

// ListQuery is one page of one statistic's values over a range: what the stats API and the
// pages' full lists ask the repository for, from the same parameters (ParseListQuery).
type ListQuery struct {
	Name    Name
	Range   Range
	Filters Filters
	Search  string // a literal, case-insensitive substring of value; "" for all
	SortBy  string // one of SortByValues
	Sort    string // one of SortValues
	Paging  Paging
	// Property is the key whose values a list of name=property lists; "" for other names.
	Property string
}

// Desc tells whether the list is in descending order of its sort key.
func (q ListQuery) Desc() bool { return q.Sort == "desc" }

// ParseListQuery reads and checks the parameters of a list of the values of the statistic
// name over days: search, search_by, sort_by, sort, per_page, page and the filters, each with
// the spec's default when absent. Every refusal goes to errs, named by its parameter; the
// query holds what could be read. The API's validator has refused what the spec refuses before
// the API calls this, so for the API it only builds the query; the pages have no validator,
// and answer errs as a readable page.
func ParseListQuery(name string, days Range, q url.Values, errs FieldErrors) ListQuery {
	out := ListQuery{Name: Name(name).Canonical(), Range: days, SortBy: SortByValues[0], Sort: SortValues[0],
		Paging: Paging{Number: 1, Size: DefaultPerPage}}
	if !slices.Contains(Listable, Name(name)) {
		errs.Add("name", OneOf(Listable))
	}
	one := func(param string) (string, bool) {
		v, ok := q[param]
		if !ok {
			return "", false
		}
		if len(v) > 1 {
			errs.Add(param, "must be sent once")
			return "", false
		}
		return v[0], true
	}
	if v, ok := one("search"); ok {
		switch {
		case !ValidText(v):
			errs.Add("search", TextRule)
		case utf8.RuneCountInString(v) > SearchMaxLength:
			errs.Add("search", fmt.Sprintf("must be at most %d characters", SearchMaxLength))
		}
		out.Search = v
	}
	if v, ok := one("search_by"); ok && !slices.Contains(SearchByValues, v) {
		errs.Add("search_by", OneOf(SearchByValues))
	}
	if v, ok := one("sort_by"); ok {
		if !slices.Contains(SortByValues, v) {
			errs.Add("sort_by", OneOf(SortByValues))
		}
		out.SortBy = v
	}
	if v, ok := one("sort"); ok {
		if !slices.Contains(SortValues, v) {
			errs.Add("sort", OneOf(SortValues))
		}
		out.Sort = v
	}
	if v, ok := one("per_page"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || !ValidPerPage(n) {
			errs.Add("per_page", OneOf(PerPageValues))
		}
		out.Paging.Size = n
	}
	if v, ok := one("page"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || !ValidPage(n) {
			errs.Add("page", PageRule)
		}
		out.Paging.Number = n
	}
	filters, err := ParseFilters(q)
	if err != nil {
		errs.Add(FilterField(err), err.Error())
	}
	out.Filters = filters
	out.Property = propertyKey(out.Name, q, errs)
	return out
}

// propertyKey is the property parameter: required with name=property (1 to 255 characters of
// text), refused with any other name.
func propertyKey(name Name, q url.Values, errs FieldErrors) string {
	v, given := q["property"]
	switch {
	case name != Property && given:
		errs.Add("property", "is allowed only with name=property")
	case name != Property:
	case !given:
		errs.Add("property", "is required with name=property")
	case len(v) > 1:
		errs.Add("property", "must be sent once")
	case v[0] == "":
		errs.Add("property", "is required with name=property")
	case !ValidText(v[0]):
		errs.Add("property", TextRule)
	case utf8.RuneCountInString(v[0]) > MaxFilterValueLength:
		errs.Add("property", fmt.Sprintf("must be at most %d characters", MaxFilterValueLength))
	default:
		return v[0]
	}
	return ""
}
