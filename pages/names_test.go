package pages

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

func TestEventGroups(t *testing.T) {
	links := newFilterLinks("/stats/example.com", url.Values{"from": {"2026-03-01"}}, nil)
	got := eventGroups([]repository.EventGroup{
		{Name: "Purchase", Total: 10, Values: []repository.StatEntry{{Value: "5:USD", Count: 6}, {Value: ":", Count: 4}}},
		{Name: "Signup", Total: 5, Values: []repository.StatEntry{{Value: ":", Count: 5}}},
		{Name: "Download", Total: 2, Values: []repository.StatEntry{{Value: ":pdf", Count: 2}}},
		{Name: "Outbound Link  Click", Total: 1, Values: []repository.StatEntry{{Value: ":", Count: 1}}},
		{Name: stats.Other, Total: 1, Values: []repository.StatEntry{{Value: "", Count: 1}}},
	}, map[string]string{"Outbound Link  Click": "Outbound Link: Click"}, links.Add)
	const at = "/stats/example.com?filter%5Bevent%5D="
	want := []eventGroup{
		{Name: "Purchase", Total: 10, Share: "100", Values: []topRow{
			{Label: "5 USD", Value: "Purchase:5:USD", Count: 6, Filter: at + "Purchase%3A5%3AUSD&from=2026-03-01"},
			{Label: "no value", Value: "Purchase::", Count: 4, Filter: at + "Purchase%3A%3A&from=2026-03-01"}}},
		{Name: "Signup", Total: 5, Share: "50", Filter: at + "Signup%3A%3A&from=2026-03-01"},
		{Name: "Download", Total: 2, Share: "20", Values: []topRow{{Label: "pdf", Value: "Download::pdf", Count: 2, Filter: at + "Download%3A%3Apdf&from=2026-03-01"}}},
		// The name as sent, the filter by the statistic's value.
		{Name: "Outbound Link: Click", Total: 1, Share: "10", Filter: at + "Outbound+Link++Click%3A%3A&from=2026-03-01"},
		// (other) is no event a visit sent: it is shown, and links to no filter.
		{Name: stats.Other, Total: 1, Share: "10", Values: []topRow{{Label: "no value", Value: stats.Other, Count: 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
