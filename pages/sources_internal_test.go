package pages

import (
	"slices"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// The dashboard reads the Sources panel's tab shown and no other: no tab has a top list of its
// own, and utm_campaign (campaign's other name) none either.
func TestSourcesTabsAreReadOnlyWhenShown(t *testing.T) {
	top := topNames()
	for _, tab := range sourceTabs {
		if slices.Contains(top, tab.Name) {
			t.Errorf("%s has a top list besides its tab", tab.Name)
		}
		if _, _, ok := stats.DimensionOf(tab.Name); !ok {
			t.Errorf("tab %s is not a visit-level name", tab.Name)
		}
	}
	if slices.Contains(top, stats.UTMCampaign) || len(sourceTabs) != 7 || sourceTabs[0].Name != stats.Channel {
		t.Errorf("top lists %v, tabs %v", top, sourceTabs)
	}
}
