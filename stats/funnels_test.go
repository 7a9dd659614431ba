package stats_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestCheckFunnel(t *testing.T) {
	cases := []struct {
		name   string
		steps  []int64
		errors string
	}{
		{"Signup", []int64{1, 2}, "map[]"},
		{"Signup", []int64{1, 2, 3, 4, 5, 6, 7, 8}, "map[]"},
		{"Signup", []int64{1}, "map[steps:[must be 2 to 8 goals]]"},
		{"Signup", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, "map[steps:[must be 2 to 8 goals]]"},
		{"Signup", []int64{1, 2, 1}, "map[steps:[goal 1 is given twice]]"},
		{"", []int64{1, 2}, "map[name:[must be 1 to 120 characters]]"},
		{strings.Repeat("é", 121), []int64{1, 2}, "map[name:[must be 1 to 120 characters]]"},
		{"a\x00", []int64{1, 2}, "map[name:[" + stats.TextRule + "]]"},
	}
	for _, c := range cases {
		errs := stats.CheckFunnel(c.name, c.steps)
		if got := fmt.Sprint(map[string][]string(errs)); got != c.errors {
			t.Errorf("%.20q %v: %s, want %s", c.name, c.steps, got, c.errors)
		}
	}
}

// Drop-off and rates of each step, from the steps' visitors; a rate that would divide by 0 is
// 0, and step 1's conversion rates are 100.
func TestFunnelStepNumbers(t *testing.T) {
	n := stats.FunnelNumbers{Steps: []int64{3, 2, 0, 0}, Visitors: 10}
	got := fmt.Sprint(n.StepNumbers(), n.Entering(), n.NeverEntering())
	if want := "[{3 0 0 100 100} {2 1 33.3 66.7 66.7} {0 2 100 0 0} {0 0 0 0 0}] 3 7"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
