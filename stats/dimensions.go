package stats

import "fmt"

// The visit-level names, declared once: each is one value per visit, counted once per visit
// (PerVisit), held in a column of visit_rows for filters (docs/filters.md). The collector takes
// each value from the visit's first hit (or, for landing and exit page, as the visit goes on),
// the row store and the row writer carry them by their index in Dimensions, the filtered reads
// compare and group their columns, and the pages show their lists under their labels: all of
// them loop over Dimensions. A new visit-level name is one entry here (its Name in names.go and
// the spec's enum when clients may ask for it) and a migration that adds its column.

// Dimension is one visit-level name.
type Dimension struct {
	Name    Name
	Column  string  // its column of visit_rows (text NOT NULL DEFAULT '')
	Compare Compare // how a filter on it matches a visit
	From    Input   // what the collector takes its value from
	Param   string  // FromQuery: the page URL's query parameter, a tag read and cleaned as package sources reads tags
	// OnlyGiven: a visit without a value ("") adds nothing to its counters, so its lists
	// (counted or filtered) have no "" entry; a filter on "" still matches those visits.
	OnlyGiven bool
	Title     string // the pages' heading of its list: "Screen resolutions"
	Label     string // the heading of its values: "Screen resolution"
}

// Compare is how a filter on a dimension matches a visit's value.
type Compare uint8

const (
	// WholeValue: the value equals the filter's.
	WholeValue Compare = iota
	// CodeBefore: the code before the first ':' equals the filter's ("DE" of "DE:Germany"):
	// place names change between GeoIP releases, their codes do not.
	CodeBefore
)

// Input is what the collector takes a dimension's value from on a visit's first hit. The
// values are stored as the collector makes them (bounded, stats.Storable).
type Input uint8

const (
	FromVisit           Input = iota // not the first hit: the visit sets it as it goes on, every write of its row replaces it
	FromReferrer                     // the referrer's host; "" when none or the website's own
	FromSearchEngine                 // the search engine the referrer's host belongs to
	FromSocialNetwork                // the social network the referrer's host belongs to
	FromQuery                        // the page URL's tag Param (utm_campaign...), read before exclusions
	FromSource                       // the visit's source (sources.SourceOf): its tags, else its referrer
	FromChannel                      // the visit's channel (sources.Channel)
	FromBrowser                      // of the user agent
	FromOperatingSystem              // of the user agent
	FromDevice                       // of the user agent
	FromLanguage                     // the first language of Accept-Language, its primary subtag
	FromScreen                       // the screen size sent, WIDTHxHEIGHT
	FromContinent                    // of the client's address (GeoIP), CODE:Name
	FromCountry                      // of the client's address (GeoIP), CODE:Name
	FromCity                         // of the client's address (GeoIP), COUNTRY:Name
	Inputs                           // how many inputs there are
)

// Dimensions are the visit-level names, in the order the dashboard shows their lists.
var Dimensions = []Dimension{
	{Name: LandingPage, Column: "landing_page", From: FromVisit, Title: "Landing pages", Label: "Page"},
	{Name: ExitPage, Column: "exit_page", From: FromVisit, Title: "Exit pages", Label: "Page"},
	{Name: Referrer, Column: "referrer", From: FromReferrer, Title: "Referrers", Label: "Referrer"},
	{Name: SearchEngine, Column: "search_engine", From: FromSearchEngine, OnlyGiven: true, Title: "Search engines", Label: "Search engine"},
	{Name: SocialNetwork, Column: "social_network", From: FromSocialNetwork, OnlyGiven: true, Title: "Social networks", Label: "Social network"},
	{Name: Campaign, Column: "campaign", From: FromQuery, Param: "utm_campaign", OnlyGiven: true, Title: "Campaigns", Label: "Campaign"},
	{Name: Channel, Column: "channel", From: FromChannel, Title: "Channels", Label: "Channel"},
	{Name: Source, Column: "source", From: FromSource, Title: "Sources", Label: "Source"},
	{Name: UTMMedium, Column: "utm_medium", From: FromQuery, Param: "utm_medium", OnlyGiven: true, Title: "UTM mediums", Label: "UTM medium"},
	{Name: UTMSource, Column: "utm_source", From: FromQuery, Param: "utm_source", OnlyGiven: true, Title: "UTM sources", Label: "UTM source"},
	{Name: UTMTerm, Column: "utm_term", From: FromQuery, Param: "utm_term", OnlyGiven: true, Title: "UTM terms", Label: "UTM term"},
	{Name: UTMContent, Column: "utm_content", From: FromQuery, Param: "utm_content", OnlyGiven: true, Title: "UTM contents", Label: "UTM content"},
	{Name: Continent, Column: "continent", Compare: CodeBefore, From: FromContinent, Title: "Continents", Label: "Continent"},
	{Name: Country, Column: "country", Compare: CodeBefore, From: FromCountry, Title: "Countries", Label: "Country"},
	{Name: City, Column: "city", From: FromCity, Title: "Cities", Label: "City"},
	{Name: Browser, Column: "browser", From: FromBrowser, Title: "Browsers", Label: "Browser"},
	{Name: OperatingSystem, Column: "operating_system", From: FromOperatingSystem, Title: "Operating systems", Label: "Operating system"},
	{Name: Device, Column: "device", From: FromDevice, Title: "Devices", Label: "Device"},
	{Name: Language, Column: "language", From: FromLanguage, Title: "Languages", Label: "Language"},
	{Name: ScreenResolution, Column: "screen_resolution", From: FromScreen, Title: "Screen resolutions", Label: "Screen resolution"},
}

// MaxDimensions bounds Dimensions, so that a visit's values are an array (Values) the hit path
// holds without an allocation.
const MaxDimensions = 32

// Values are a visit's visit-level values by the index of their dimension in Dimensions; ""
// is none.
type Values [MaxDimensions]string

// DimensionOf is the dimension of a name (utm_campaign's is campaign's) and its index in
// Dimensions; ok is false when the name is not visit-level.
func DimensionOf(name Name) (d Dimension, i int, ok bool) {
	name = name.Canonical()
	for i, d := range Dimensions {
		if d.Name == name {
			return d, i, true
		}
	}
	return Dimension{}, -1, false
}

// Set sets the value of the dimension name; it panics when name is not visit-level (a
// program's mistake).
func (v *Values) Set(name Name, value string) {
	_, i, ok := DimensionOf(name)
	if !ok {
		panic(fmt.Sprintf("stats: %q is not a visit-level name", name))
	}
	v[i] = value
}

// Get is the value of the dimension name, "" when name is not visit-level.
func (v *Values) Get(name Name) string {
	if _, i, ok := DimensionOf(name); ok {
		return v[i]
	}
	return ""
}

func init() {
	if len(Dimensions) > MaxDimensions {
		panic("stats: more Dimensions than MaxDimensions")
	}
}

// ValuesOf are the values given by name (fixtures and tests); it panics on a name that is not
// visit-level.
func ValuesOf(byName map[Name]string) Values {
	var v Values
	for name, value := range byName {
		v.Set(name, value)
	}
	return v
}
