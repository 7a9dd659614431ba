package goatcounter

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/stats"
)

// header is the first line of GoatCounter's CSV export, format version 2 (exportcsv.go of
// GoatCounter 2.x, and its documentation, "Export"): the version is the first column's
// prefix. A row is one hit; the columns are read by position, as GoatCounter's own import
// reads them, and must be these.
var header = []string{"2Path", "Title", "Event", "UserAgent", "Browser", "System", "Session", "Bot",
	"Referrer", "Referrer scheme", "Screen size", "Location", "FirstVisit", "Date"}

// columnNames are the columns as messages name them.
var columnNames = append([]string{"Path"}, header[1:]...)

// The columns by position.
const (
	colPath = iota
	colTitle
	colEvent
	colUserAgent
	colBrowser
	colSystem
	colSession
	colBot
	colReferrer
	colScheme
	colSize
	colLocation
	colFirstVisit
	colDate
)

// checkHeader refuses a first line that is not version 2's header, saying which version it
// is when it names one.
func checkHeader(line []string) error {
	first := strings.TrimPrefix(line[0], "\uFEFF")
	version, rest := splitVersion(first)
	switch {
	case rest != "Path":
		return fmt.Errorf("the file is not a GoatCounter CSV export: its first line is %s, not GoatCounter's header (%s)",
			importer.Quote(strings.Join(line, ",")), strings.Join(header, ","))
	case version != "2":
		if version == "" {
			version = "none"
		}
		return fmt.Errorf("the file is a GoatCounter export of format version %s; only version 2 (GoatCounter 2.0 and later) is read: export it again from GoatCounter",
			importer.Quote(version))
	case len(line) != len(header):
		return fmt.Errorf("line 1: the header has %d columns, version 2 has %d (%s)", len(line), len(header), strings.Join(header, ","))
	}
	for i := 1; i < len(header); i++ {
		if line[i] != header[i] {
			return fmt.Errorf("line 1, column %d: %s where version 2 has %q", i+1, importer.Quote(line[i]), header[i])
		}
	}
	return nil
}

// splitVersion cuts the digits a first column starts with.
func splitVersion(s string) (version, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

// row is one hit of the export, checked.
type row struct {
	path    string // a page's path, or an event's name
	event   bool
	bot     bool // GoatCounter recorded it as a bot's: left out
	browser string
	system  string
	session string // "" when GoatCounter kept none (each hit is then a visit of its own)
	// referrer: the referrer as GoatCounter keeps it (a host and path, or a name it made
	// up), scheme how (h, g, c, o, or "").
	referrer, scheme string
	screen           string // "WIDTHxHEIGHT" as the collector writes it, "" unknown
	country          string // an ISO code GeoLite2 names, "" unknown
	location         string // as exported ("US-TX"), when not a country alone
	at               time.Time
}

// parse checks a record (as many fields as the header, the CSV reader saw to that) into r,
// or says what is wrong with which column.
func (r *row) parse(rec []string) (column, problem string) {
	*r = row{path: stats.Storable(rec[colPath])}
	if r.path == "" {
		return "Path", "is empty: every hit has a path (or an event's name)"
	}
	var ok bool
	if r.event, ok = boolean(rec[colEvent]); !ok {
		return "Event", importer.Quote(rec[colEvent]) + " is not true or false"
	}
	if _, ok = boolean(rec[colFirstVisit]); !ok {
		return "FirstVisit", importer.Quote(rec[colFirstVisit]) + " is not true or false"
	}
	bot, err := strconv.Atoi(rec[colBot])
	if err != nil || bot < 0 {
		return "Bot", importer.Quote(rec[colBot]) + " is not 0 or one of GoatCounter's bot numbers"
	}
	r.bot = bot > 0
	switch r.scheme = rec[colScheme]; r.scheme {
	case "", "h", "g", "c", "o":
	default:
		return "Referrer scheme", importer.Quote(r.scheme) + " is not one of h, g, c, o or empty"
	}
	if r.at, err = time.Parse(time.RFC3339, rec[colDate]); err != nil {
		return "Date", importer.Quote(rec[colDate]) + " is not a date and time (RFC 3339, 2026-02-10T08:00:05Z)"
	}
	if !stats.InBounds(stats.Day(r.at)) {
		return "Date", importer.Quote(rec[colDate]) + " is outside the years 1 to 9999"
	}
	if !sessionID(rec[colSession]) {
		return "Session", importer.Quote(rec[colSession]) + " is not a GoatCounter session id (hexadecimal, as 287fb97cbed4e4f-8e4f5c975b8fee06)"
	}
	r.session = rec[colSession]
	r.browser, r.system = browserName(rec[colBrowser]), systemName(rec[colSystem])
	r.referrer = stats.Truncate(stats.Storable(strings.TrimSpace(rec[colReferrer])), importer.MaxValueLength)
	r.screen = screenValue(rec[colSize])
	r.country, r.location = location(rec[colLocation])
	return "", ""
}

// boolean reads GoatCounter's booleans: 0 and 1 (SQLite, and its exports since), true and
// false (PostgreSQL's), t and f.
func boolean(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "1", "true", "t":
		return true, true
	case "0", "false", "f":
		return false, true
	}
	return false, false
}

// sessionID: GoatCounter writes a session as two hexadecimal numbers joined by "-" (its
// zint.Uint128), "" or "0-0" when it kept none.
func sessionID(s string) bool {
	if s == "" {
		return true
	}
	hi, lo, ok := strings.Cut(s, "-")
	return ok && hex(hi) && hex(lo)
}

func hex(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// browserName is GoatCounter's "name version" as the collector names a browser family: the
// version left out (versions are summed), "" for none (GoatCounter writes " ").
func browserName(s string) string {
	name := withoutVersion(s)
	switch name {
	case "Microsoft Edge":
		return "Edge"
	case "Samsung Browser":
		return "Samsung Internet"
	case "Internet Explorer":
		return "IE"
	}
	return name
}

// systemName is GoatCounter's "name version" of an operating system as the collector names
// its family ("Windows 10" is Windows, "macOS 10.15" macOS).
func systemName(s string) string {
	name := withoutVersion(s)
	switch {
	case strings.HasPrefix(name, "Windows"):
		return "Windows"
	case name == "Mac OS X" || name == "OS X":
		return "macOS"
	case name == "ChromeOS" || name == "Chrome OS":
		return "Chrome OS"
	}
	return name
}

// withoutVersion cuts the words from the first that starts with a digit on ("Chrome 120" is
// Chrome; "Linux " Linux), as text PostgreSQL keeps.
func withoutVersion(s string) string {
	words := strings.Fields(stats.Storable(s))
	for i, w := range words {
		if w[0] >= '0' && w[0] <= '9' {
			words = words[:i]
			break
		}
	}
	return stats.Truncate(strings.Join(words, " "), importer.MaxValueLength)
}

// screenValue is GoatCounter's "width,height,scaling" as the collector writes a screen
// resolution: "WIDTHxHEIGHT" when both are whole numbers from 1 to 20000, else "" (exports
// of newer versions hold the width alone, as "1920,0,1").
func screenValue(s string) string {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return ""
	}
	dims := [2]int{}
	for i := range dims {
		f, err := strconv.ParseFloat(parts[i], 64)
		if err != nil || f != float64(int(f)) || f < 1 || f > 20000 {
			return ""
		}
		dims[i] = int(f)
	}
	return strconv.Itoa(dims[0]) + "x" + strconv.Itoa(dims[1])
}

// location is GoatCounter's ISO 3166-2 location ("US" or "US-TX") as a country code the
// countries table names, and what was exported when it is more than that (or unknown).
func location(s string) (country, exported string) {
	if s == "" {
		return "", ""
	}
	code, _, _ := strings.Cut(s, "-")
	code = strings.ToUpper(code)
	if _, ok := stats.Countries[code]; !ok {
		return "", s
	}
	if code != s {
		return code, s
	}
	return code, ""
}

// referrerHost is the host of a referrer GoatCounter kept as "host/path" (it drops the
// scheme), lower case.
func referrerHost(ref string) string {
	u, err := url.Parse("http://" + ref)
	if err != nil {
		host, _, _ := strings.Cut(ref, "/")
		return strings.ToLower(host)
	}
	return strings.ToLower(u.Hostname())
}
