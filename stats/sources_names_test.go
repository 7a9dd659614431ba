package stats_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// utm_campaign is only another name for campaign: lists, filters and dimensions read campaign.
func TestUTMCampaignIsCampaign(t *testing.T) {
	if stats.UTMCampaign.Canonical() != stats.Campaign || stats.Source.Canonical() != stats.Source {
		t.Fatal("Canonical does not map utm_campaign alone to campaign")
	}
	d, i, ok := stats.DimensionOf(stats.UTMCampaign)
	if _, j, _ := stats.DimensionOf(stats.Campaign); !ok || d.Name != stats.Campaign || i != j {
		t.Errorf("DimensionOf(utm_campaign) = %v, %d, %v", d, i, ok)
	}
	q := stats.ParseListQuery("utm_campaign", stats.Range{}, url.Values{}, stats.FieldErrors{})
	if q.Name != stats.Campaign {
		t.Errorf("the list of utm_campaign reads %q", q.Name)
	}
	f, err := stats.ParseFilters(url.Values{"filter[utm_campaign]": {"spring"}})
	if err != nil || len(f) != 1 || !reflect.DeepEqual(f[0], stats.Filter{Name: stats.Campaign, Value: "spring"}) {
		t.Errorf("filter[utm_campaign] = %v, %v", f, err)
	}
	_, err = stats.ParseFilters(url.Values{"filter[utm_campaign]": {"a"}, "filter[campaign]": {"b"}})
	if err == nil || !strings.Contains(err.Error(), "give it once") {
		t.Errorf("campaign and utm_campaign together: %v", err)
	}
}

// The new names are visit-level, filterable, and counted as the contract says: source and
// channel for every visit (direct visits under ""), the tags only when given.
func TestSourceDimensions(t *testing.T) {
	for name, onlyGiven := range map[stats.Name]bool{
		stats.Source: false, stats.Channel: false, stats.UTMSource: true, stats.UTMMedium: true,
		stats.UTMTerm: true, stats.UTMContent: true, stats.Campaign: true,
	} {
		d, _, ok := stats.DimensionOf(name)
		if !ok || d.OnlyGiven != onlyGiven || !stats.Filterable(name, "x") {
			t.Errorf("%s: dimension %v (%v), want OnlyGiven %v and filterable", name, d, ok, onlyGiven)
		}
	}
	if _, err := stats.ParseFilters(url.Values{"filter[source]": {""}, "filter[channel]": {"Paid Search"}}); err != nil {
		t.Errorf("filters on source and channel refused: %v", err)
	}
}
