package stats

import (
	"fmt"
	"slices"
)

// Name is a statistic's name, spelled as the API's `name` parameter, the stats tables' name
// column and the pages' addresses spell it; it converts to and from a plain string.
type Name string

// The statistics, one per value of the spec's StatName enum.
const (
	Pageview         Name = "pageview"
	Visitor          Name = "visitor"
	Visit            Name = "visit"
	Page             Name = "page"
	LandingPage      Name = "landing_page"
	ExitPage         Name = "exit_page"
	Referrer         Name = "referrer"
	SearchEngine     Name = "search_engine"
	SocialNetwork    Name = "social_network"
	Campaign         Name = "campaign"
	Source           Name = "source"       // where the visit came from, as marketers name it (package sources)
	Channel          Name = "channel"      // its channel: Organic Search, Paid Social, Email...
	UTMSource        Name = "utm_source"   // the tags of its first URL, as sent
	UTMMedium        Name = "utm_medium"   //
	UTMCampaign      Name = "utm_campaign" // another name for campaign: the same counters (Canonical)
	UTMTerm          Name = "utm_term"     //
	UTMContent       Name = "utm_content"  //
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
	Pageview, Visitor, Visit, Page, LandingPage, ExitPage, Referrer, SearchEngine, SocialNetwork,
	Campaign, Source, Channel, UTMSource, UTMMedium, UTMCampaign, UTMTerm, UTMContent, Browser,
	OperatingSystem, Device, Language, ScreenResolution, Continent, Country, City, Event,
}

// Listable are the names a stats list takes (the spec's StatName enum): Names, and Property,
// whose values are read from the visit rows only, never counted (docs/properties.md).
var Listable = append(slices.Clone(Names), Property)

// Canonical is the name a statistic is counted and filtered under: campaign for utm_campaign,
// which is only another name for it; every other name itself.
func (n Name) Canonical() Name {
	if n == UTMCampaign {
		return Campaign
	}
	return n
}

// The internal counters behind the summary and the time series (docs/visits.md). They
// live in the stats tables beside the public names, written by the same flush, but are not
// names of the API: Known is false for them. Daily ones take the day (DayValue) as value, like
// pageview; hourly ones take the hour of the day in TZ, "00" to "23" (HourValue), on that day.
// docs/visits.md says who writes and reads each.
const (
	Bounce           Name = "bounce"             // visits started that day with one pageview and no event
	VisitSeconds     Name = "visit_seconds"      // sum of the durations of the visits started that day
	TimedVisit       Name = "timed_visit"        // visits started that day whose bounce and duration are known
	PageviewHour     Name = "pageview_hour"      // pageviews in the hour
	VisitorHour      Name = "visitor_hour"       // distinct visitors with a hit in the hour
	VisitHour        Name = "visit_hour"         // visits started in the hour
	BounceHour       Name = "bounce_hour"        // bounced visits started in the hour
	VisitSecondsHour Name = "visit_seconds_hour" // durations of the visits started in the hour
	// Engagement (the trackers' engagement hits), per page: the value is the page as the page
	// statistic counts it, the day the visit's. Each visit counts once per page.
	EngagedVisit  Name = "engaged_visit" // visits that sent engaged time for the page
	EngagedMillis Name = "engaged_ms"    // the sum of their engaged milliseconds on it
	ScrollVisit   Name = "scroll_visit"  // visits that sent a scroll depth for the page
	ScrollSum     Name = "scroll_sum"    // the sum of each one's deepest scroll depth on it (0..100)
)

// Internal are the internal counters.
var Internal = []Name{
	Bounce, VisitSeconds, TimedVisit, PageviewHour, VisitorHour, VisitHour, BounceHour, VisitSecondsHour,
	EngagedVisit, EngagedMillis, ScrollVisit, ScrollSum,
}

// HourValue is the value under which the hourly counters count hour h (0..23) of a day.
func HourValue(h int) string { return fmt.Sprintf("%02d", h) }

// Known tells whether s is the name of a statistic.
func Known(s string) bool {
	return slices.Contains(Names, Name(s))
}

// PerVisit tells whether the statistic is counted once per visit (docs/visits.md),
// from the visit's first hit, rather than once per hit: every name but pageview, page and
// event: visitor, visit and the visit-level names (Dimensions). (Before section 8, a "visit"
// was a pageview whose referrer was empty or another host; days recorded then keep that
// meaning, see docs/visits.md.)
func (n Name) PerVisit() bool {
	if n == Visitor || n == Visit {
		return true
	}
	_, _, ok := DimensionOf(n)
	return ok
}

// Other is the value under which collection counts the new values of a website's statistic on
// a day that already holds MAX_VALUES_PER_DAY values, so that a client
// sending distinct paths or names cannot grow the stats without bound. It is a value like any
// other, read and shown as it is. A referrer or campaign sent literally as "(other)" is counted
// under it too (and not against the limit); no page (it starts with "/") or event
// ("name:value:unit") can be it.
const Other = "(other)"

// Country is a country's value of the country statistic ("DE:Germany") and its continent's
// ("EU:Europe").
type CountryValue struct{ Country, Continent string }
