package phpanalytics

import (
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// names maps phpAnalytics' statistic names (its stats.name enum) to ours (the names of
// stats.Names; docs/visits.md). visitors gives visits too: phpAnalytics counted a visitor on every
// pageview from another site, which is what our days before the changeover call a visit
// (docs/visits.md). The *_hours spellings are those of phpAnalytics before 3.7.
var names = map[string][]stats.Name{
	"pageviews":       {stats.Pageview},
	"visitors":        {stats.Visitor, stats.Visit},
	"pageviews_hour":  {stats.PageviewHour},
	"pageviews_hours": {stats.PageviewHour},
	"visitors_hour":   {stats.VisitorHour, stats.VisitHour},
	"visitors_hours":  {stats.VisitorHour, stats.VisitHour},
	"page":            {stats.Page},
	"landing_page":    {stats.LandingPage},
	"referrer":        {stats.Referrer},
	"campaign":        {stats.Campaign},
	"browser":         {stats.Browser},
	"os":              {stats.OperatingSystem},
	"device":          {stats.Device},
	"language":        {stats.Language},
	"resolution":      {stats.ScreenResolution},
	"continent":       {stats.Continent},
	"country":         {stats.Country},
	"city":            {stats.City},
	"event":           {stats.Event},
}

// browsers are WhichBrowser's browser names that our collector spells otherwise; every value
// of ourBrowsers is kept as it is.
var browsers = map[string]string{
	"Samsung Browser":          "Samsung Internet",
	"Internet Explorer":        "IE",
	"Mobile Internet Explorer": "IE",
	"Chromium":                 "Chrome",
	"Silk":                     "Amazon Silk",
}

// The values our collector writes (ingest/useragent.go), which need no mapping.
var (
	ourBrowsers = set("", "Android Browser", "Chrome", "Edge", "Firefox", "IE", "Opera", "Opera Mini",
		"Safari", "Vivaldi", "Amazon Silk", "Samsung Internet", "Falkon", "Nintendo Browser",
		"Yandex Browser", "Huawei Browser")
	ourSystems = set("", "Android", "Chrome OS", "iOS", "Linux", "FreeBSD", "OpenBSD", "macOS", "Windows")
	ourDevices = set("", "desktop", "mobile", "tablet", "tv", "console", "watch")
)

// systems are WhichBrowser's operating system names that our collector spells otherwise: the
// Mac's, and the Linux distributions it names where ours says Linux.
var systems = map[string]string{
	"OS X":          "macOS",
	"Mac OS X":      "macOS",
	"Ubuntu":        "Linux",
	"Kubuntu":       "Linux",
	"Xubuntu":       "Linux",
	"Debian":        "Linux",
	"Fedora":        "Linux",
	"Linux Mint":    "Linux",
	"Mint":          "Linux",
	"openSUSE":      "Linux",
	"Red Hat":       "Linux",
	"CentOS":        "Linux",
	"Gentoo":        "Linux",
	"Arch Linux":    "Linux",
	"Slackware":     "Linux",
	"Mandriva":      "Linux",
	"elementary OS": "Linux",
}

// devices are WhichBrowser's device types that our collector spells otherwise.
var devices = map[string]string{
	"television": "tv",
	"gaming":     "console",
}

func set(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// counter is one of our counters that a phpAnalytics row adds to.
type counter struct {
	name  string
	value string
}

// mapping is what becomes of one phpAnalytics row.
type mapping struct {
	counters [2]counter
	n        int
	// unmapped is "" when the row has a counterpart here, else why it is kept as it is (an
	// unknown name, or a value unknown for its name), and unmappedValue what is unknown.
	unmapped, unmappedValue string
}

// unknownNames is the reason of a statistic kept under its own name.
const unknownNames = "names (statistics kept under their own name)"

// mapRow maps a phpAnalytics statistic and value to ours. A name or a value with no
// counterpart is kept as it is and reported in unmapped.
func mapRow(name, value string) mapping {
	value = stats.Storable(value)
	ours, ok := names[name]
	if !ok {
		m := mapping{n: 1, unmapped: unknownNames, unmappedValue: name}
		m.counters[0] = counter{stats.Storable(name), value}
		return m
	}
	value, known := mapValue(ours[0], value)
	var m mapping
	for _, n := range ours {
		m.counters[m.n] = counter{string(n), value}
		m.n++
	}
	if !known {
		m.unmapped, m.unmappedValue = string(ours[0]), value
	}
	return m
}

// mapValue turns a phpAnalytics value into ours; known is false when it has no counterpart
// and is kept as it is.
func mapValue(name stats.Name, v string) (string, bool) {
	switch name {
	case stats.Browser:
		if b, ok := browsers[v]; ok {
			return b, true
		}
		return v, ourBrowsers[v]
	case stats.OperatingSystem:
		if o, ok := systems[v]; ok {
			return o, true
		}
		return v, ourSystems[v]
	case stats.Device:
		if d, ok := devices[v]; ok {
			return d, true
		}
		return v, ourDevices[v]
	case stats.Continent, stats.Country:
		// phpAnalytics wrote ":" or "XX:" when its GeoIP lookup knew only part; ours writes
		// "" unless both halves are known.
		code, place, ok := strings.Cut(v, ":")
		if v == "" || code == "" || place == "" {
			return "", true
		}
		return v, ok
	case stats.City:
		code, place, ok := strings.Cut(v, ":")
		city, _, _ := strings.Cut(place, ", ")
		if v == "" || code == "" || city == "" {
			return "", true
		}
		return v, ok
	case stats.Language:
		l := strings.ToLower(v)
		return l, l == "" || isLetters(l)
	case stats.ScreenResolution:
		return v, v == "" || validScreen(v)
	case stats.Page, stats.LandingPage:
		// phpAnalytics wrote "?query" for a URL with a query and no path; ours writes "/".
		// Its paths may be escaped (/%C3%BCber-uns) or not: both become the one spelling.
		v = stats.Truncate(stats.PagePath(v), 255) // a page keeps at most 255 characters
		if v == "" || strings.HasPrefix(v, "?") {
			return "/" + v, true
		}
		return v, strings.HasPrefix(v, "/")
	case stats.PageviewHour, stats.VisitorHour:
		h, err := strconv.Atoi(v)
		return v, err == nil && len(v) == 2 && h >= 0 && h <= 23
	case stats.Pageview, stats.Visitor:
		return v, len(v) == 10
	}
	return v, true
}

func isLetters(s string) bool {
	if len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// validScreen tells whether v is WIDTHxHEIGHT as our collector writes it: integers 1..20000
// without leading zeros.
func validScreen(v string) bool {
	w, h, ok := strings.Cut(v, "x")
	if !ok {
		return false
	}
	for _, side := range []string{w, h} {
		n, err := strconv.Atoi(side)
		if err != nil || n < 1 || n > 20000 || strconv.Itoa(n) != side {
			return false
		}
	}
	return true
}
