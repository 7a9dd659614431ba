package stats_test

import (
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestTotalsDerivedNumbers(t *testing.T) {
	cases := []struct {
		name                string
		t                   stats.Totals
		bounce              float64
		duration            int64
		viewsPerVisit       float64
		bounceTenths, vpvHs int64
	}{
		{"nothing", stats.Totals{}, 0, 0, 0, 0, 0},
		{"contract example", stats.Totals{Visits: 140, Pageviews: 400, Bounces: 58, TimedVisits: 140, VisitSeconds: 10220}, 41.4, 73, 2.86, 414, 286},
		// 1/3 = 33.33..% -> 33.3; 2/3 -> 66.7; 1/8 = 12.5% exactly; 1/16 = 6.25% -> 6.3 (half up)
		{"thirds", stats.Totals{Visits: 3, Pageviews: 4, Bounces: 1, TimedVisits: 3, VisitSeconds: 4}, 33.3, 1, 1.33, 333, 133},
		{"two thirds", stats.Totals{Visits: 3, Pageviews: 5, Bounces: 2, TimedVisits: 3, VisitSeconds: 5}, 66.7, 2, 1.67, 667, 167},
		{"half up", stats.Totals{Visits: 16, Pageviews: 16, Bounces: 1, TimedVisits: 16, VisitSeconds: 8}, 6.3, 1, 1, 63, 100},
		{"no timed visits", stats.Totals{Visits: 10, Pageviews: 25}, 0, 0, 2.5, 0, 250},
		{"only timed ones count", stats.Totals{Visits: 10, Pageviews: 10, Bounces: 1, TimedVisits: 4, VisitSeconds: 30}, 25, 8, 1, 250, 100},
		{"pageviews, no visit", stats.Totals{Pageviews: 7}, 0, 0, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.t.BounceRate(); got != c.bounce {
				t.Errorf("bounce rate %v, want %v", got, c.bounce)
			}
			if got := c.t.BounceRateTenths(); got != c.bounceTenths {
				t.Errorf("bounce tenths %v, want %v", got, c.bounceTenths)
			}
			if got := c.t.VisitDuration(); got != c.duration {
				t.Errorf("duration %v, want %v", got, c.duration)
			}
			if got := c.t.ViewsPerVisit(); got != c.viewsPerVisit {
				t.Errorf("views per visit %v, want %v", got, c.viewsPerVisit)
			}
			if got := c.t.ViewsPerVisitHundredths(); got != c.vpvHs {
				t.Errorf("views per visit hundredths %v, want %v", got, c.vpvHs)
			}
		})
	}
}

func TestTotalsAdd(t *testing.T) {
	a := stats.Totals{1, 2, 3, 4, 5, 6, 7}
	if got := a.Add(a); got != (stats.Totals{2, 4, 6, 8, 10, 12, 14}) {
		t.Fatalf("%+v", got)
	}
}
