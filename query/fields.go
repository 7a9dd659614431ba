package query

import (
	"strings"
	"unicode/utf8"

	"github.com/analytics-service/analytics/stats"
)

// Level is what a dimension's values belong to: a visit, a hit of it, or its time.
type Level uint8

const (
	VisitLevel Level = iota // one value per visit: a column of the visit rows
	PageLevel               // one value per pageview: the visit's pages
	NameLevel               // one value per hit: the event names, "pageview" for pageviews
	GoalLevel               // the website's goals a visit converts on (event:goal)
	PropLevel               // the values of one custom property its hits carried (event:props:KEY)
	TimeLevel               // the visit's day and starting hour
	// EventLevel: one value per event, as stored (name:value:unit): v1's event statistic,
	// which its filters compile to (repository/filtered_conds.go); no dimension of the query.
	EventLevel
)

// Part is the part of a stored value a dimension answers: stored "DE:Germany" is the country
// "DE" and the country name "Germany".
type Part uint8

const (
	Whole Part = iota
	Code       // before the first ':'
	Label      // after the first ':'
)

// Field is one of Plausible's dimension names as this service answers it.
type Field struct {
	Name  string
	Level Level
	Stat  stats.Name // VisitLevel: the visit-level statistic (stats.Dimensions) it reads
	Part  Part
	// Spell maps our stored values to Plausible's spellings where they differ; answers use
	// Plausible's and filters take either.
	Spell map[string]string
	Time  TimeUnit // TimeLevel only
	Key   string   // PropLevel only: the property's key
}

// propsPrefix is the prefix of Plausible's custom property dimensions.
const propsPrefix = "event:props:"

// TimeUnit is the bucket of a time dimension.
type TimeUnit uint8

const (
	NoTime TimeUnit = iota
	Hour
	DayUnit
	Week
	Month
	AutoTime // "time": chosen from the range's length (Query.TimeUnit)
)

var deviceSpelling = map[string]string{"desktop": "Desktop", "mobile": "Mobile", "tablet": "Tablet",
	// Plausible has no such devices; their screens are desktop-like.
	"tv": "Desktop", "console": "Desktop", "watch": "Desktop"}

// fields are the dimensions this service answers, by Plausible's names. A new one (the
// sources' visit:source, the goals' event:goal) is one entry here once its column exists,
// and out of pending.
var fields = func() map[string]Field {
	visit := func(name string, stat stats.Name, part Part, spell map[string]string) Field {
		if _, _, ok := stats.DimensionOf(stat); !ok {
			panic("query: " + string(stat) + " is not a visit-level statistic")
		}
		return Field{Name: name, Level: VisitLevel, Stat: stat, Part: part, Spell: spell}
	}
	list := []Field{
		{Name: "event:page", Level: PageLevel},
		{Name: "event:name", Level: NameLevel},
		{Name: "event:goal", Level: GoalLevel},
		visit("visit:entry_page", stats.LandingPage, Whole, nil),
		visit("visit:exit_page", stats.ExitPage, Whole, nil),
		visit("visit:referrer", stats.Referrer, Whole, map[string]string{"": "Direct / None"}),
		visit("visit:utm_campaign", stats.Campaign, Whole, nil),
		visit("visit:source", stats.Source, Whole, map[string]string{"": "Direct / None"}),
		visit("visit:channel", stats.Channel, Whole, nil),
		visit("visit:utm_source", stats.UTMSource, Whole, nil),
		visit("visit:utm_medium", stats.UTMMedium, Whole, nil),
		visit("visit:utm_content", stats.UTMContent, Whole, nil),
		visit("visit:utm_term", stats.UTMTerm, Whole, nil),
		visit("visit:device", stats.Device, Whole, deviceSpelling),
		visit("visit:browser", stats.Browser, Whole, map[string]string{"Edge": "Microsoft Edge", "Samsung Internet": "Samsung Browser"}),
		visit("visit:os", stats.OperatingSystem, Whole, map[string]string{"macOS": "Mac", "Linux": "GNU/Linux"}),
		visit("visit:country", stats.Country, Code, nil),
		visit("visit:country_name", stats.Country, Label, nil),
		visit("visit:city_name", stats.City, Label, nil),
		visit("visit:screen", stats.ScreenResolution, Whole, nil),
		{Name: "time", Level: TimeLevel, Time: AutoTime},
		{Name: "time:hour", Level: TimeLevel, Time: Hour},
		{Name: "time:day", Level: TimeLevel, Time: DayUnit},
		{Name: "time:week", Level: TimeLevel, Time: Week},
		{Name: "time:month", Level: TimeLevel, Time: Month},
	}
	out := map[string]Field{}
	for _, f := range list {
		out[f.Name] = f
	}
	return out
}()

// pending are Plausible's dimensions that this service is gaining (custom properties):
// refused as not available yet rather than unknown.
var pending = []string{}

// unavailable are Plausible's dimensions that this service does not keep.
var unavailable = []string{"visit:region", "visit:region_name", "visit:city", "visit:browser_version",
	"visit:os_version", "event:hostname", "visit:entry_page_hostname", "visit:exit_page_hostname"}

// lookupField is the field of a dimension name, or the 400 that says why there is none.
func lookupField(name string) (Field, error) {
	if f, ok := fields[name]; ok {
		return f, nil
	}
	if key, ok := strings.CutPrefix(name, propsPrefix); ok {
		if key == "" || strings.Contains(key, stats.PropSep) || strings.ContainsRune(key, 0) || utf8.RuneCountInString(key) > MaxPatternLength {
			return Field{}, invalidf("%s is not a custom property (event:props: and the property's key)", quote(name))
		}
		return Field{Name: name, Level: PropLevel, Key: key}, nil
	}
	switch {
	case contains(pending, name):
		return Field{}, invalidf("%s is not available yet on this service", quote(name))
	case contains(unavailable, name):
		return Field{}, invalidf("%s is not available on this service (it keeps no such value)", quote(name))
	}
	return Field{}, invalidf("%s is not a dimension", quote(name))
}

// Answer is a stored value as the query answers it: its part, in Plausible's spelling.
func (f Field) Answer(stored string) string {
	v := stored
	switch f.Part {
	case Code:
		v, _, _ = strings.Cut(stored, ":")
	case Label:
		if _, after, ok := strings.Cut(stored, ":"); ok {
			v = after
		}
	}
	if s, ok := f.Spell[v]; ok {
		return s
	}
	return v
}

// Stored are the stored spellings whose answer is value's (both spellings of a filter value
// match): value itself, and every stored value Plausible spells as value or as value's
// spelling.
func (f Field) Stored(value string) []string {
	out := []string{value}
	want := value
	if s, ok := f.Spell[value]; ok {
		want = s
	}
	for ours, theirs := range f.Spell {
		if theirs == want && ours != value {
			out = append(out, ours)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
