package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// filteredPaths are the three operations that take filter[NAME]=VALUE, with a valid query
// without filters, for website id.
func filteredPaths(id int64) []string {
	return []string{
		fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-01-01&to=2026-01-31", id),
		fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-01-01&to=2026-01-31", id),
		fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2026-01-01&to=2026-01-31", id),
	}
}

// TestFilterRefusals: every filter that is not filter[NAME]=VALUE with a known NAME, given
// once, and a VALUE of at most 255 characters of text is the contract's 422 on `filter`, on
// each operation that takes filters, whichever of the validator, checkInput or the generated
// binder would meet it first. The message is stats.ParseFilters'.
func TestFilterRefusals(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	long := strings.Repeat("é", 256)
	cases := []struct {
		name, query, message string
	}{
		{"unknown name", "filter[colour]=red", "filter[colour]: unknown name"},
		{"unknown name beside a known one", "filter[country]=DE&filter[colour]=red", "filter[colour]: unknown name"},
		{"a name whose values are days", "filter[visit]=2026-01-01", "filter[visit]: unknown name"},
		{"repeated name", "filter[country]=DE&filter[country]=FR", "filter[country] is given 2 times"},
		{"repeated, the same value", "filter[page]=/&filter[page]=/", "filter[page] is given 2 times"},
		{"not deepObject", "filter=x", "must be given as filter[NAME]=VALUE"},
		{"not deepObject, empty", "filter=", "must be given as filter[NAME]=VALUE"},
		{"not deepObject beside a good one", "filter=x&filter[country]=DE", "must be given as filter[NAME]=VALUE"},
		{"nested brackets", "filter[country][code]=DE", "must be given as filter[NAME]=VALUE"},
		{"nested, escaped", "filter%5Bcountry%5D%5Bcode%5D=DE", "must be given as filter[NAME]=VALUE"},
		{"no name", "filter[]=x", "must be given as filter[NAME]=VALUE"},
		{"unclosed", "filter[country=DE", "must be given as filter[NAME]=VALUE"},
		{"256 characters", "filter[page]=" + strings.Repeat("%C3%A9", 256), "filter[page]: is 256 characters long; at most 255"},
		{"256 characters beside a good one", "filter[country]=DE&filter[referrer]=" + strings.Repeat("x", 256), "filter[referrer]: is 256 characters long"},
		{"NUL", "filter[page]=%2Fa%00", "filter[page]: must be UTF-8 text without NUL"},
		{"invalid UTF-8", "filter[browser]=%FF%FE", "filter[browser]: must be UTF-8 text without NUL"},
		{"invalid UTF-8 in the name", "filter[%FF]=x", "filter[...]: unknown name"},
	}
	for _, c := range cases {
		for _, path := range filteredPaths(id) {
			t.Run(c.name+" "+strings.SplitN(path, "?", 2)[0], func(t *testing.T) {
				res := e.in(t).Do(harness.Request{Path: path + "&" + c.query, Key: key})
				wantField(t, res, "filter")
				msg := res.JSON(t)["errors"].(map[string]any)["filter"].([]any)[0].(string)
				if !strings.Contains(msg, c.message) {
					t.Fatalf("message %q, want it to hold %q", msg, c.message)
				}
				if strings.Contains(msg, "\xff") || strings.Contains(msg, long) {
					t.Fatalf("the message repeats the stranger's text: %q", msg)
				}
			})
		}
	}

	// The limit is 255 characters, not bytes: 255 characters of four bytes each are a filter
	// like any other, for the validator (maxLength) and for ParseFilters alike.
	for _, path := range filteredPaths(id) {
		want(t, e.in(t).Do(harness.Request{Path: path + "&filter[page]=" + strings.Repeat("%F0%9F%98%80", 255), Key: key}), http.StatusOK)
	}

	// Authentication first: a bad filter without a key is a 401.
	for _, path := range filteredPaths(id) {
		want(t, e.Do(harness.Request{Path: path + "&filter[colour]=red"}), http.StatusUnauthorized)
	}
	// A website that is not the caller's is a 404 whatever the filters, as an unknown id.
	other := e.User("b@example.com").Key
	for _, path := range filteredPaths(id) {
		want(t, e.Do(harness.Request{Path: path + "&filter[country]=DE", Key: other}), http.StatusNotFound)
	}
	// filter[...] on an operation that takes no filters is left alone, as any other parameter
	// it does not declare.
	want(t, e.Do(harness.Request{Path: "/api/v1/websites?filter[colour]=red", Key: key}), http.StatusOK)
}

// TestUnfilteredAnswersUnchanged: without filters, no answer says `sampled` or
// `filtered_from`, and the summary has no `meta`, on a range long enough to be sampled if
// it were filtered.
func TestUnfilteredAnswersUnchanged(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	id := int64(e.store(key, "domain", "example.com")["id"].(float64))
	for _, path := range []string{
		fmt.Sprintf("/api/v1/stats/%d?name=page&from=2025-01-01&to=2026-01-31", id),
		fmt.Sprintf("/api/v1/stats/%d/summary?from=2025-01-01&to=2026-01-31", id),
		fmt.Sprintf("/api/v1/stats/%d/timeseries?from=2025-01-01&to=2026-01-31", id),
	} {
		res := e.Do(harness.Request{Path: path, Key: key})
		want(t, res, http.StatusOK)
		for _, word := range []string{"sampled", "filtered_from", `"meta":{}`} {
			if strings.Contains(string(res.Body), word) {
				t.Errorf("%s: %s in %s", path, word, res.Body)
			}
		}
		if strings.Contains(path, "summary") && strings.Contains(string(res.Body), `"meta"`) {
			t.Errorf("summary with meta: %s", res.Body)
		}
	}
}

// TestFilterSchemaNamesFilterNames: the spec's `filter` object has one property for each of
// stats.FilterNames, each a string of at most stats.MaxFilterValueLength, and no other; so the
// generated clients can send every filter the server takes, and nothing else.
func TestFilterSchemaNamesFilterNames(t *testing.T) {
	spec, err := gen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	schema := spec.Components.Schemas["StatsFilter"].Value
	if len(schema.Properties) != len(stats.FilterNames) {
		t.Fatalf("StatsFilter has %d properties, stats.FilterNames %d", len(schema.Properties), len(stats.FilterNames))
	}
	for _, name := range stats.FilterNames {
		p := schema.Properties[string(name)]
		if p == nil || !p.Value.Type.Is(openapi3.TypeString) || p.Value.MaxLength == nil || *p.Value.MaxLength != stats.MaxFilterValueLength {
			t.Errorf("StatsFilter.%s: %+v", name, p)
		}
	}
	for _, op := range []string{"listStats", "getSummary", "getTimeseries"} {
		found := false
		for _, item := range spec.Paths.Map() {
			for _, o := range item.Operations() {
				if !strings.EqualFold(o.OperationID, op) { // the embedded spec capitalises ids
					continue
				}
				for _, p := range o.Parameters {
					if p.Value.Name == stats.FilterParam && p.Value.In == "query" && p.Value.Style == "deepObject" && p.Value.Explode != nil && *p.Value.Explode {
						found = true
					}
				}
			}
		}
		if !found {
			t.Errorf("%s has no deepObject parameter %q", op, stats.FilterParam)
		}
	}
}
