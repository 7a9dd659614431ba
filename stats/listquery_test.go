package stats_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/analytics-service/analytics/stats"
)

// The list's parameters are the spec's listStats parameters, with its enums, defaults and
// length: ParseListQuery reads every one of them and no other, so the pages (which have no
// validator) ask what the API asks.
func TestListParametersAreTheSpecs(t *testing.T) {
	op := spec(t).Paths.Find("/api/v1/stats/{website_id}").Get
	params := map[string]*openapi3.Schema{}
	for _, p := range op.Parameters {
		params[p.Value.Name] = p.Value.Schema.Value
	}
	var names []string
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	read := []string{"filter", "filter_any", "filter_contains", "filter_contains_not", "filter_not", "from", "name", "page", "per_page", "property", "property_filter", "search", "search_by", "sort", "sort_by", "to", "website_id"}
	if !slices.Equal(names, read) {
		t.Errorf("listStats takes %v; ParseListQuery (with name, from, to and website_id) reads %v", names, read)
	}
	for param, ours := range map[string][]string{
		"search_by": stats.SearchByValues, "sort_by": stats.SortByValues, "sort": stats.SortValues,
	} {
		schema := params[param]
		if schema == nil {
			continue
		}
		var enum []string
		for _, v := range schema.Enum {
			enum = append(enum, fmt.Sprint(v))
		}
		if !slices.Equal(enum, ours) || fmt.Sprint(schema.Default) != ours[0] {
			t.Errorf("%s: ours %v (default %s), the spec's %v (default %v)", param, ours, ours[0], enum, schema.Default)
		}
	}
	if s := params["search"]; s == nil || s.MaxLength == nil || *s.MaxLength != stats.SearchMaxLength {
		t.Errorf("search: ours at most %d characters, the spec's %v", stats.SearchMaxLength, params["search"])
	}
}

func TestParseListQuery(t *testing.T) {
	days := stats.Range{From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)}
	errs := stats.FieldErrors{}
	got := stats.ParseListQuery("page", days, url.Values{}, errs)
	want := stats.ListQuery{Name: stats.Page, Range: days, SortBy: "count", Sort: "desc", Paging: stats.Paging{Number: 1, Size: 50}}
	if len(errs) > 0 || !reflect.DeepEqual(got, want) || !got.Desc() {
		t.Fatalf("defaults: %+v %v, want %+v", got, errs, want)
	}
	q := url.Values{"search": {"Über"}, "search_by": {"value"}, "sort_by": {"value"}, "sort": {"asc"},
		"per_page": {"10"}, "page": {"3"}, "filter[country]": {"DE:Germany"}, "from": {"x"}, "other": {"y"}}
	got = stats.ParseListQuery("referrer", days, q, errs)
	want = stats.ListQuery{Name: stats.Referrer, Range: days, Search: "Über", SortBy: "value", Sort: "asc",
		Paging: stats.Paging{Number: 3, Size: 10}, Filters: stats.Filters{{Name: stats.Country, Value: "DE:Germany"}}}
	if len(errs) > 0 || !reflect.DeepEqual(got, want) || got.Desc() {
		t.Fatalf("every parameter: %+v %v, want %+v", got, errs, want)
	}

	for _, c := range []struct {
		name, query, field, message string
	}{
		{"page", "search=" + strings.Repeat("%C3%A9", 255), "", ""}, // characters, not bytes
		{"page", "search=" + strings.Repeat("%C3%A9", 256), "search", "must be at most 255 characters"},
		{"page", "search=a%00", "search", stats.TextRule},
		{"page", "search=a&search=b", "search", "must be sent once"},
		{"page", "search_by=name", "search_by", "must be one of value"},
		{"page", "sort_by=name", "sort_by", "must be one of count, value"},
		{"page", "sort=up", "sort", "must be one of desc, asc"},
		{"page", "per_page=7", "per_page", "must be one of 10, 25, 50, 100"},
		{"page", "per_page=x", "per_page", "must be one of 10, 25, 50, 100"},
		{"page", "page=0", "page", stats.PageRule},
		{"page", "page=1000000001", "page", stats.PageRule},
		{"page", "page=x", "page", stats.PageRule},
		{"page", "filter[visitor]=1", "filter", "filter[visitor]: unknown name; one of"},
		{"pages", "", "name", "must be one of pageview, visitor, visit, page, "},
		{"", "", "name", "must be one of pageview, "},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		errs := stats.FieldErrors{}
		stats.ParseListQuery(c.name, days, q, errs)
		if c.field == "" {
			if len(errs) > 0 {
				t.Errorf("%s: refused: %v", c.query, errs)
			}
			continue
		}
		if len(errs) != 1 || len(errs[c.field]) != 1 || !strings.HasPrefix(errs[c.field][0], c.message) {
			t.Errorf("%s %s: %v, want %s: %s", c.name, c.query, errs, c.field, c.message)
		}
	}
}
