// Package display writes stored values as a person reads them on a page: country and
// language codes as names, events as "name · value unit". The stored value itself (in the
// CSV, the API and filters) is never changed; what is returned is plain text that templates
// escape.
package display

import (
	"strings"

	"golang.org/x/text/language"
	langs "golang.org/x/text/language/display"

	"github.com/analytics-service/analytics/stats"
)

// Value is how a stored value of the statistic reads on a page.
func Value(name stats.Name, value string) string {
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
		return Place(name, code)
	case stats.City:
		if code, label, ok := strings.Cut(value, ":"); ok && label != "" {
			return label + " (" + code + ")"
		}
	case stats.Event:
		return EventLabel(value, nil)
	case stats.Device:
		return strings.ToUpper(value[:1]) + value[1:]
	case stats.Language:
		return Language(value)
	}
	return value
}

// Language is the English name of a language code ("de": "German"), or the code itself
// when it names no language known to x/text.
func Language(code string) string {
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

var languageNames = langs.English.Languages()

// continentNames are the continents of the GeoIP database by code.
var continentNames = map[string]string{
	"AF": "Africa", "AN": "Antarctica", "AS": "Asia", "EU": "Europe", "NA": "North America",
	"OC": "Oceania", "SA": "South America",
}

// Place names a continent or country code stored without its name ("DE": "Germany"), or
// returns the code when it is none known.
func Place(name stats.Name, code string) string {
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
	if n := langs.English.Regions().Name(region); n != "" && n != "Unknown Region" {
		return n
	}
	return code
}

// EventValue is the stored event of a name and its `value:unit` detail. A value with no
// detail at all is not an event but stats.Other, which the collector stores without colons.
func EventValue(name, detail string) string {
	if detail == "" {
		return name
	}
	return name + ":" + detail
}

// EventDetail is the `value:unit` part of an event as it reads: "5 USD", "pdf", "no value".
func EventDetail(detail string) string {
	if s := EventAmount(stats.SplitEvent(":" + detail)); s != "" {
		return s
	}
	return "no value"
}

// EventAmount is an event's value and unit as they read ("5 USD", "pdf"), "" for none.
func EventAmount(e stats.EventParts) string { return strings.TrimSpace(e.Value + " " + e.Unit) }

// EventLabel is a value of the event statistic as a person reads it: the name as sent where
// spellings know it, then its value and unit ("Outbound Link: Click", "Purchase · 5 USD").
func EventLabel(value string, spellings map[string]string) string {
	e := stats.SplitEvent(value)
	name := stats.EventNameSpelled(e.Name, spellings)
	if amount := EventAmount(e); amount != "" {
		return name + " · " + amount
	}
	return name
}
