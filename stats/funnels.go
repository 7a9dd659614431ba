package stats

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Funnels: 2 to 8 of a website's goals in order (docs/funnels.md). These are the rules of a
// new funnel, shared by the API and the settings page, and its numbers once counted.

// Limits of a funnel.
const (
	MaxFunnels       = 50
	MinFunnelSteps   = 2
	MaxFunnelSteps   = 8
	MaxFunnelNameLen = 120
)

// Funnel is a funnel's definition: its steps in order.
type Funnel struct {
	ID    int64
	Name  string
	Steps []FunnelStep
}

// FunnelStep is a step: one of the website's goals.
type FunnelStep struct {
	GoalID      int64
	DisplayName string
}

// StepsRule is the refusal of a funnel with too few or too many steps.
var StepsRule = fmt.Sprintf("must be %d to %d goals", MinFunnelSteps, MaxFunnelSteps)

// CheckFunnel applies the rules of a new funnel that need no store: a name of 1 to 120
// characters, 2 to 8 steps, none twice. Whether each step is one of the website's goals, the
// name's uniqueness and the number of funnels are the store's to check.
func CheckFunnel(name string, steps []int64) FieldErrors {
	errs := FieldErrors{}
	switch {
	case !ValidText(name):
		errs.Add("name", TextRule)
	case name == "" || utf8.RuneCountInString(name) > MaxFunnelNameLen:
		errs.Add("name", "must be 1 to "+strconv.Itoa(MaxFunnelNameLen)+" characters")
	}
	if len(steps) < MinFunnelSteps || len(steps) > MaxFunnelSteps {
		errs.Add("steps", StepsRule)
	}
	seen := map[int64]bool{}
	for _, id := range steps {
		if seen[id] {
			errs.Add("steps", fmt.Sprintf("goal %d is given twice", id))
			break
		}
		seen[id] = true
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// FunnelNumbers are a funnel's numbers over a range: the visitors who reached each step
// (distinct per day, summed over the days), and all visitors of the range.
type FunnelNumbers struct {
	Steps    []int64 // by step
	Visitors int64   // every visitor of the range and filters
	// Fraction is the fraction of the visitors counted: 1, or past MaxExactPageviews a
	// sample's (SampleFraction), whose counts are scaled estimates.
	Fraction float64
}

// FunnelStepNumbers are a step's numbers as the API and the dashboard show them.
type FunnelStepNumbers struct {
	Visitors           int64
	Dropoff            int64
	DropoffRate        float64
	ConversionRate     float64 // of step 1's visitors
	ConversionRateStep float64 // of the step before's
}

// StepNumbers derives each step's drop-off and rates: step 1 has no drop-off and rates of 100;
// a rate that would divide by 0 is 0.
func (n FunnelNumbers) StepNumbers() []FunnelStepNumbers {
	out := make([]FunnelStepNumbers, len(n.Steps))
	for i, v := range n.Steps {
		out[i].Visitors = v
		if i == 0 {
			out[i].ConversionRate, out[i].ConversionRateStep = 100, 100
			continue
		}
		before := n.Steps[i-1]
		out[i].Dropoff = max(before-v, 0)
		out[i].DropoffRate = ConversionRate(out[i].Dropoff, before)
		out[i].ConversionRate = ConversionRate(v, n.Steps[0])
		out[i].ConversionRateStep = ConversionRate(v, before)
	}
	return out
}

// Entering are the visitors of step 1; NeverEntering every other visitor of the range.
func (n FunnelNumbers) Entering() int64 {
	if len(n.Steps) == 0 {
		return 0
	}
	return n.Steps[0]
}

func (n FunnelNumbers) NeverEntering() int64 { return max(n.Visitors-n.Entering(), 0) }
