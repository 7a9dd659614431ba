package web

import (
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestChangePercent(t *testing.T) {
	for _, c := range []struct {
		now, before int64
		want        string
		trend       int
	}{
		{0, 0, "–", 0}, {5, 0, "new", 1}, {0, 10, "−100%", -1}, {1253, 1100, "+14%", 1}, {100, 100, "±0%", 0},
		{1001, 1000, "±0%", 1}, {995, 1000, "−1%", -1}, {2, 1, "+100%", 1},
	} {
		ch := Change{Now: c.now, Before: c.before}
		if got := ch.Percent(); got != c.want || ch.Trend() != c.trend {
			t.Errorf("%d from %d: %q %d, want %q %d", c.now, c.before, got, ch.Trend(), c.want, c.trend)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := GroupDigits(n, ","); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

func TestCounted(t *testing.T) {
	for n, want := range map[int64]string{0: "0 visitors", 1: "1 visitor", 2: "2 visitors", 1001: "1,001 visitors", -1: "-1 visitors"} {
		if got := Counted(n, ",", "visitor", "visitors"); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// A rate or mean with nothing to divide is a dash, with no change, never "0%".
func TestFiguresWithNothingToDivide(t *testing.T) {
	none := stats.Totals{Visitors: 3, Pageviews: 7} // visitors counted, but no visit
	some := stats.Totals{Visitors: 4, Visits: 4, Pageviews: 8, Bounces: 1, TimedVisits: 4, VisitSeconds: 40}
	f := NewFigures(none, some, " ")
	for name, fig := range map[string]Figure{"views per visit": f.ViewsPerVisit, "bounce rate": f.BounceRate, "visit duration": f.VisitDuration} {
		if fig.Now != "–" || fig.Change.Percent() != "–" || fig.Trend() != 0 || fig.Before == "–" {
			t.Errorf("%s: now %q before %q change %q trend %d", name, fig.Now, fig.Before, fig.Change.Percent(), fig.Trend())
		}
	}
	f = NewFigures(some, none, " ")
	if f.BounceRate.Now != "25%" || f.BounceRate.Before != "–" || f.BounceRate.Change.Percent() != "–" {
		t.Errorf("bounce rate against nothing: %+v", f.BounceRate)
	}
	if f.Visitors.Change.Percent() != "+33%" {
		t.Errorf("counts still change: %+v", f.Visitors)
	}
}
