package stats_test

import (
	"slices"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// Every visit-level name is a name of the API, counted once per visit and a filter; each has a
// column of its own, labels for the pages and an input the collector knows.
func TestDimensionsAreWhole(t *testing.T) {
	if len(stats.Dimensions) > stats.MaxDimensions {
		t.Fatalf("%d dimensions, at most %d", len(stats.Dimensions), stats.MaxDimensions)
	}
	columns := map[string]bool{}
	for i, d := range stats.Dimensions {
		if !stats.Known(string(d.Name)) || !d.Name.PerVisit() || !slices.Contains(stats.FilterNames, d.Name) {
			t.Errorf("%s: not a per-visit name of the API and its filters", d.Name)
		}
		if d.Column == "" || columns[d.Column] {
			t.Errorf("%s: column %q empty or taken", d.Name, d.Column)
		}
		columns[d.Column] = true
		if d.Title == "" || d.Label == "" {
			t.Errorf("%s: no labels", d.Name)
		}
		if d.From >= stats.Inputs || (d.From == stats.FromQuery) != (d.Param != "") {
			t.Errorf("%s: input %d with parameter %q", d.Name, d.From, d.Param)
		}
		if got, at, ok := stats.DimensionOf(d.Name); !ok || at != i || got != d {
			t.Errorf("DimensionOf(%s) = %v, %d, %v", d.Name, got, at, ok)
		}
	}
	for _, n := range stats.Names {
		_, _, ok := stats.DimensionOf(n)
		if perVisit := n != stats.Visitor && n != stats.Visit && n.PerVisit(); perVisit != ok {
			t.Errorf("%s: a dimension %v, counted once per visit %v", n, ok, perVisit)
		}
	}
}

func TestValues(t *testing.T) {
	v := stats.ValuesOf(map[stats.Name]string{stats.Country: "DE:Germany", stats.ExitPage: "/b"})
	if v.Get(stats.Country) != "DE:Germany" || v.Get(stats.ExitPage) != "/b" || v.Get(stats.City) != "" || v.Get(stats.Page) != "" {
		t.Fatalf("values %q", v)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Set of a name that is not visit-level did not panic")
		}
	}()
	v.Set(stats.Page, "/a")
}
