package stats

import "slices"

// Name is a statistic's name, spelled as the API's `name` parameter, the stats tables' name
// column and the pages' addresses spell it; it converts to and from a plain string.
type Name string

// The statistics, one per value of the spec's StatName enum.
const (
	Pageview         Name = "pageview"
	Visitor          Name = "visitor"
	Page             Name = "page"
	Referrer         Name = "referrer"
	Campaign         Name = "campaign"
	Browser          Name = "browser"
	OperatingSystem  Name = "operating_system"
	Device           Name = "device"
	Language         Name = "language"
	ScreenResolution Name = "screen_resolution"
	Continent        Name = "continent"
	Country          Name = "country"
	City             Name = "city"
	Event            Name = "event"
)

// Names are all the statistics, in the order of the spec's StatName enum.
var Names = []Name{
	Pageview, Visitor, Page, Referrer, Campaign, Browser, OperatingSystem, Device, Language,
	ScreenResolution, Continent, Country, City, Event,
}

// Known tells whether s is the name of a statistic.
func Known(s string) bool {
	return slices.Contains(Names, Name(s))
}

// PerVisit tells whether the statistic is counted once per visit rather than once per hit.
//
// There are no sessions: a visit is a pageview hit whose referrer is empty or another host than
// the website's own, so a visitor who comes back from another site counts again. Such a hit
// counts every statistic but event; a pageview hit from the website itself (a navigation inside
// it) counts only pageview and page, and an event hit only event. So pageview, page and event
// are per hit, and the others are per visit.
func (n Name) PerVisit() bool {
	switch n {
	case Visitor, Referrer, Campaign, Browser, OperatingSystem, Device, Language, ScreenResolution,
		Continent, Country, City:
		return true
	}
	return false
}

// Other is the value under which collection counts the new values of a website's statistic on
// a day that already holds MAX_VALUES_PER_DAY values (CONTRACT.md section 12), so that a client
// sending distinct paths or names cannot grow the stats without bound. It is a value like any
// other, read and shown as it is. A referrer or campaign sent literally as "(other)" is counted
// under it too (and not against the limit); no page (it starts with "/") or event
// ("name:value:unit") can be it.
const Other = "(other)"
