package pages

import (
	"slices"
	"time"

	"github.com/analytics-service/analytics/pages/dashparts"
	"github.com/analytics-service/analytics/stats"
)

// The dashboard's boxes, as Plausible lays them out: Sources, Pages, Locations and Devices,
// each one card with a tab per statistic, reading only the list of the tab shown. The tab
// travels in the address (?sources=NAME, ?pages=, ?locations=, ?devices=), so that a link
// or a reload keeps it; with JavaScript a tab changes without reloading the page
// (data-swap).

// tabBox is one box: its parameter (also its element's id) and its tabs, the first shown
// when the address names none.
type tabBox struct {
	Param string
	Title string
	Tabs  []boxTab
}

// boxTab is one tab: the statistic it lists and its label.
type boxTab struct {
	Name  stats.Name
	Label string
}

// sourcesParam is the query parameter that names the Sources box's tab.
const sourcesParam = "sources"

// sourceTabs are the Sources box's tabs, in order.
var sourceTabs = []boxTab{
	{stats.Channel, "Channels"}, {stats.Source, "Sources"}, {stats.UTMMedium, "UTM medium"},
	{stats.UTMSource, "UTM source"}, {stats.Campaign, "UTM campaign"}, {stats.UTMTerm, "UTM term"},
	{stats.UTMContent, "UTM content"},
}

// tabBoxes are the boxes, in the dashboard's order.
var tabBoxes = []tabBox{
	{Param: sourcesParam, Title: "Sources", Tabs: sourceTabs},
	{Param: "pages", Title: "Pages", Tabs: []boxTab{{stats.Page, "Top pages"}, {stats.LandingPage, "Entry pages"}, {stats.ExitPage, "Exit pages"}}},
	{Param: "locations", Title: "Locations", Tabs: []boxTab{{stats.Country, "Countries"}, {stats.City, "Cities"}, {stats.Continent, "Continents"}}},
	{Param: "devices", Title: "Devices", Tabs: []boxTab{{stats.Browser, "Browsers"}, {stats.OperatingSystem, "Operating systems"},
		{stats.ScreenResolution, "Screen sizes"}, {stats.Device, "Devices"}}},
}

// boxPanel is the data of the "tab_box" template (_boxes.html).
type boxPanel struct {
	ID     string // the box's parameter
	Title  string
	Tabs   []tabLink
	List   topList        // the tab shown
	Label  string         // its label
	Notice string         // of the Sources box: what its days before the upgrade lack; "" when none of the range's
	Map    *dashparts.Map // of the Locations box showing Countries: their map (map.go); nil otherwise
}

type tabLink struct {
	Label   string
	URL     string
	Current bool
	Swap    string // the link's name for the page's script (data-swap), "" for none
}

// inTabBox tells whether a statistic is listed by a box's tab rather than a card of its own.
func inTabBox(n stats.Name) bool {
	return slices.ContainsFunc(tabBoxes, func(b tabBox) bool {
		return slices.ContainsFunc(b.Tabs, func(t boxTab) bool { return t.Name == n })
	})
}

// parseTabs are the tabs the address asks for, one per box in the order of tabBoxes (the
// first tab of a box it names none of); an unknown one is refused as other parameters are.
func parseTabs(q map[string][]string, errs stats.FieldErrors) []stats.Name {
	out := make([]stats.Name, len(tabBoxes))
	for i, box := range tabBoxes {
		out[i] = box.Tabs[0].Name
		asked := q[box.Param]
		if len(asked) == 0 || asked[0] == "" {
			continue
		}
		if len(asked) > 1 {
			errs.Add(box.Param, "must be sent once")
			continue
		}
		j := slices.IndexFunc(box.Tabs, func(t boxTab) bool { return stats.Name(asked[0]).Canonical() == t.Name }) // utm_campaign is campaign
		if j < 0 {
			names := make([]stats.Name, len(box.Tabs))
			for k, t := range box.Tabs {
				names[k] = t.Name
			}
			errs.Add(box.Param, stats.OneOf(names))
			continue
		}
		out[i] = box.Tabs[j].Name
	}
	return out
}

// newBoxPanel lays out a box showing the tab shown with its list; base+addr make the tabs'
// links, which keep the rest of the view.
func newBoxPanel(box tabBox, base string, addr dashAddress, shown stats.Name, list topList) boxPanel {
	panel := boxPanel{ID: box.Param, Title: box.Title, List: list}
	for _, t := range box.Tabs {
		value := string(t.Name)
		if t.Name == box.Tabs[0].Name {
			value = "" // the default: the address without it
		}
		panel.Tabs = append(panel.Tabs, tabLink{Label: t.Label, URL: base + addr.set(box.Param, value) + "#" + box.Param,
			Current: t.Name == shown, Swap: "tab-" + box.Param + "-" + string(t.Name)})
		if t.Name == shown {
			panel.Label = t.Label
		}
	}
	return panel
}

// sourcesNotice is what the Sources box says of a range with days before the website counted
// the new names (sourcesFrom; lacking: a counted day of the range is before it). The campaign
// was counted before the upgrade: only the other tabs start at it.
func sourcesNotice(shown stats.Name, sourcesFrom time.Time, lacking bool) string {
	if shown == stats.Campaign || !lacking {
		return ""
	}
	return "Sources, channels and UTM tags other than the campaign are counted from " +
		sourcesFrom.Format("2 Jan 2006") + ": the days of this range before it have them only where imported from Plausible."
}
