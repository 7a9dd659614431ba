package pages

import (
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/web"
)

// statistic is one statistic name of the stats API as the pages show it.
type statistic struct {
	Name  string // as in the API: "page", "operating_system"
	Title string // "Pages", "Operating systems"
	Value string // the column heading of its values
	Count string // what its counts are
}

// statistics in dashboard order. pageview and visitor (time series) are the chart; the others
// are the top lists.
var statistics = []statistic{
	{"page", "Pages", "Page", "Pageviews"},
	{"referrer", "Referrers", "Referrer", "Visitors"},
	{"campaign", "Campaigns", "Campaign", "Visitors"},
	{"continent", "Continents", "Continent", "Visitors"},
	{"country", "Countries", "Country", "Visitors"},
	{"city", "Cities", "City", "Visitors"},
	{"browser", "Browsers", "Browser", "Visitors"},
	{"operating_system", "Operating systems", "Operating system", "Visitors"},
	{"device", "Devices", "Device", "Visitors"},
	{"language", "Languages", "Language", "Visitors"},
	{"screen_resolution", "Screen resolutions", "Screen resolution", "Visitors"},
	{"event", "Events", "Event", "Events"},
	{"pageview", "Pageviews by day", "Day", "Pageviews"},
	{"visitor", "Visitors by day", "Day", "Visitors"},
}

func statisticNamed(name string) (statistic, bool) {
	for _, s := range statistics {
		if s.Name == name {
			return s, true
		}
	}
	return statistic{}, false
}

// displayValue is how a stored value reads on a page; the value itself (in the CSV, in
// searches) is unchanged. The result is plain text: templates escape it.
func displayValue(name, value string) string {
	if value == "" {
		if name == "referrer" {
			return "Direct / none"
		}
		return "Unknown"
	}
	switch name {
	case "continent", "country":
		if _, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label
		}
	case "city":
		if code, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label + " (" + code + ")"
		}
	case "event":
		eventName, rest, _ := strings.Cut(value, ":")
		amount, unit, _ := strings.Cut(rest, ":")
		if amount = strings.TrimSpace(amount + " " + unit); amount != "" {
			return eventName + " · " + amount
		}
		return eventName
	case "device":
		return strings.ToUpper(value[:1]) + value[1:]
	}
	return value
}

// formatCount writes a count with thin groups of three digits: 1 234 567.
func formatCount(n int64) string { return web.GroupDigits(n, "\u202f") }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
