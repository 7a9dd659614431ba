package pages

import (
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// Every statistic has its page, and the pages show no other.
func TestStatisticsAreTheNames(t *testing.T) {
	if len(statistics) != len(stats.Names) {
		t.Fatalf("%d statistics, %d names", len(statistics), len(stats.Names))
	}
	for _, n := range stats.Names {
		if s, ok := statisticNamed(string(n)); !ok || s.Name != n {
			t.Errorf("no statistic %s", n)
		}
	}
}
