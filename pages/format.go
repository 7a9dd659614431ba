package pages

import (
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// statistic is one statistic name of the stats API as the pages show it.
type statistic struct {
	Name  stats.Name
	Title string // "Pages", "Operating systems"
	Value string // the column heading of its values
	Count string // what its counts are
}

// statistics in dashboard order. pageview and visitor (time series) are the chart; the others
// are the top lists.
var statistics = []statistic{
	{stats.Page, "Pages", "Page", "Pageviews"},
	{stats.LandingPage, "Landing pages", "Page", "Visits"},
	{stats.ExitPage, "Exit pages", "Page", "Visits"},
	{stats.Referrer, "Referrers", "Referrer", "Visitors"},
	{stats.SearchEngine, "Search engines", "Search engine", "Visits"},
	{stats.SocialNetwork, "Social networks", "Social network", "Visits"},
	{stats.Campaign, "Campaigns", "Campaign", "Visitors"},
	{stats.Continent, "Continents", "Continent", "Visitors"},
	{stats.Country, "Countries", "Country", "Visitors"},
	{stats.City, "Cities", "City", "Visitors"},
	{stats.Browser, "Browsers", "Browser", "Visitors"},
	{stats.OperatingSystem, "Operating systems", "Operating system", "Visitors"},
	{stats.Device, "Devices", "Device", "Visitors"},
	{stats.Language, "Languages", "Language", "Visitors"},
	{stats.ScreenResolution, "Screen resolutions", "Screen resolution", "Visitors"},
	{stats.Event, "Events", "Event", "Events"},
	{stats.Pageview, "Pageviews by day", "Day", "Pageviews"},
	{stats.Visitor, "Visitors by day", "Day", "Visitors"},
	{stats.Visit, "Visits by day", "Day", "Visits"},
}

func statisticNamed(name string) (statistic, bool) {
	for _, s := range statistics {
		if string(s.Name) == name {
			return s, true
		}
	}
	return statistic{}, false
}

// displayValue is how a stored value reads on a page; the value itself (in the CSV, in
// searches) is unchanged. The result is plain text: templates escape it.
func displayValue(name stats.Name, value string) string {
	if value == "" {
		if name == stats.Referrer {
			return "Direct / none"
		}
		return "Unknown"
	}
	switch name {
	case stats.Continent, stats.Country:
		if _, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label
		}
	case stats.City:
		if code, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label + " (" + code + ")"
		}
	case stats.Event:
		eventName, rest, _ := strings.Cut(value, ":")
		amount, unit, _ := strings.Cut(rest, ":")
		if amount = strings.TrimSpace(amount + " " + unit); amount != "" {
			return eventName + " · " + amount
		}
		return eventName
	case stats.Device:
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
