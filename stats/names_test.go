package stats_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/stats"
)

// The names are the spec's StatName enum, in its order, so that they cannot drift apart.
func TestNamesAreTheSpecsEnum(t *testing.T) {
	spec, err := gen.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range spec.Components.Schemas["StatName"].Value.Enum {
		want = append(want, fmt.Sprint(v))
	}
	var got []string
	for _, n := range stats.Names {
		got = append(got, string(n))
		if !gen.StatName(n).Valid() {
			t.Errorf("%s is not a value of gen.StatName", n)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("stats.Names are %v, the spec's StatName enum is %v", got, want)
	}
}

func TestKnown(t *testing.T) {
	for _, n := range stats.Names {
		if !stats.Known(string(n)) {
			t.Errorf("%s is not known", n)
		}
	}
	for _, s := range []string{"", "Page", "pages", "visit", " page"} {
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
