package pages

import (
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/analytics-service/analytics/repository"
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

// statistics in dashboard order: pages, the visit-level names in the order and with the
// labels stats.Dimensions gives them, events. pageview and visitor (time series) are the
// chart; the others are the top lists.
var statistics = func() []statistic {
	out := []statistic{{stats.Page, "Pages", "Page", "Pageviews"}}
	for _, d := range stats.Dimensions {
		out = append(out, statistic{d.Name, d.Title, d.Label, "Visits"})
	}
	return append(out,
		statistic{stats.Event, "Events", "Event", "Events"},
		statistic{stats.Pageview, "Pageviews by day", "Day", "Pageviews"},
		statistic{stats.Visitor, "Visitors by day", "Day", "Visitors"},
		statistic{stats.Visit, "Visits by day", "Day", "Visits"},
		statistic{stats.UTMCampaign, "Campaigns", "Campaign", "Visits"}, // campaign's other name
	)
}()

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
		if name == stats.Referrer || name == stats.Source {
			return "Direct / none"
		}
		return "Unknown"
	}
	switch name {
	case stats.Continent, stats.Country:
		code, label, _ := strings.Cut(value, ":")
		if label != "" {
			return label
		}
		return placeName(name, code)
	case stats.City:
		if code, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label + " (" + code + ")"
		}
	case stats.Event:
		return eventLabel(value, nil)
	case stats.Device:
		return strings.ToUpper(value[:1]) + value[1:]
	case stats.Language:
		return languageName(value)
	}
	return value
}

// languageName is the English name of a language code ("de": "German"), or the code itself
// when it names no language known to x/text.
func languageName(code string) string {
	tag, err := language.Parse(code)
	if err != nil {
		return code
	}
	name := languageNames.Name(tag)
	if name == "" || name == "Unknown language" {
		return code
	}
	return name
}

var languageNames = display.English.Languages()

// continentNames are the continents of the GeoIP database by code.
var continentNames = map[string]string{
	"AF": "Africa", "AN": "Antarctica", "AS": "Asia", "EU": "Europe", "NA": "North America",
	"OC": "Oceania", "SA": "South America",
}

// placeName names a continent or country code stored without its name ("DE": "Germany"), or
// returns the code when it is none known.
func placeName(name stats.Name, code string) string {
	if name == stats.Continent {
		if n, ok := continentNames[code]; ok {
			return n
		}
		return code
	}
	region, err := language.ParseRegion(code)
	if err != nil || len(code) != 2 {
		return code
	}
	if n := display.English.Regions().Name(region); n != "" && n != "Unknown Region" {
		return n
	}
	return code
}

// eventValuesShown is how many value:unit parts the dashboard shows under each event name.
const eventValuesShown = 5

// eventGroup is one event name of the dashboard with its total and its values beneath.
type eventGroup struct {
	Name   string // the name as a person reads it (stats.EventNameSpelled)
	Total  int64
	Share  string // of the largest total, 0..100, for the bar
	Values []topRow
	// Filter filters by the event when it has no values beneath (a filter takes a whole
	// event, name:value:unit, not a name); "" otherwise.
	Filter string
}

// eventGroups are the dashboard's rows of grouped events. An event counted only without a
// value or unit has no rows beneath. link makes the address that filters by an event.
func eventGroups(found []repository.EventGroup, spellings map[string]string, link func(stats.Name, string) string) []eventGroup {
	var largest int64 = 1
	for _, g := range found {
		largest = max(largest, g.Total)
	}
	out := make([]eventGroup, len(found))
	for i, g := range found {
		out[i] = eventGroup{Name: stats.EventNameSpelled(g.Name, spellings), Total: g.Total, Share: num(float64(g.Total) / float64(largest) * 100)}
		if len(g.Values) == 1 && g.Values[0].Value == ":" {
			out[i].Filter = link(stats.Event, eventValue(g.Name, g.Values[0].Value))
			continue
		}
		for _, v := range g.Values {
			value := eventValue(g.Name, v.Value)
			out[i].Values = append(out[i].Values, topRow{Label: eventDetail(v.Value), Value: value, Count: v.Count, Filter: link(stats.Event, value)})
		}
	}
	return out
}

// eventValue is the stored event of a name and its `value:unit` detail. A value with no
// detail at all is not an event but stats.Other, which the collector stores without colons.
func eventValue(name, detail string) string {
	if detail == "" {
		return name
	}
	return name + ":" + detail
}

// eventDetail is the `value:unit` part of an event as it reads: "5 USD", "pdf", "no value".
func eventDetail(detail string) string {
	if s := eventAmount(stats.SplitEvent(":" + detail)); s != "" {
		return s
	}
	return "no value"
}

// eventAmount is an event's value and unit as they read ("5 USD", "pdf"), "" for none.
func eventAmount(e stats.EventParts) string { return strings.TrimSpace(e.Value + " " + e.Unit) }

// eventLabel is a value of the event statistic as a person reads it: the name as sent where
// spellings know it, then its value and unit ("Outbound Link: Click", "Purchase · 5 USD").
func eventLabel(value string, spellings map[string]string) string {
	e := stats.SplitEvent(value)
	name := stats.EventNameSpelled(e.Name, spellings)
	if amount := eventAmount(e); amount != "" {
		return name + " · " + amount
	}
	return name
}

// formatCount writes a count with thin groups of three digits: 1 234 567.
func formatCount(n int64) string { return web.GroupDigits(n, "\u202f") }

// countOf is a count with its noun as the pages write it: "1 visitor", "1\u202f234 visitors".
func countOf(n int64, one, many string) string { return web.Counted(n, "\u202f", one, many) }
