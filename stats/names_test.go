package stats_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
)

// spec is openapi.yaml, as gen embeds it.
func spec(t *testing.T) *openapi3.T {
	t.Helper()
	s, err := gen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The names are the spec's StatName enum, in its order, so that they cannot drift apart.
func TestNamesAreTheSpecsEnum(t *testing.T) {
	var want []string
	for _, v := range spec(t).Components.Schemas["StatName"].Value.Enum {
		want = append(want, fmt.Sprint(v))
	}
	var got []string
	for _, n := range stats.Listable {
		got = append(got, string(n))
		if !gen.StatName(n).Valid() {
			t.Errorf("%s is not a value of gen.StatName", n)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("stats.Listable are %v, the spec's StatName enum is %v", got, want)
	}
}

func TestKnown(t *testing.T) {
	for _, n := range stats.Names {
		if !stats.Known(string(n)) {
			t.Errorf("%s is not known", n)
		}
	}
	for _, s := range []string{"", "Page", "pages", "visits", " page", "bounce", "pageview_hour"} {
		if stats.Known(s) {
			t.Errorf("%q is known", s)
		}
	}
}

func TestPerVisit(t *testing.T) {
	perHit := []stats.Name{stats.Pageview, stats.Page, stats.Event}
	for _, n := range stats.Names {
		if n.PerVisit() == slices.Contains(perHit, n) {
			t.Errorf("%s: PerVisit is %v", n, n.PerVisit())
		}
	}
}
