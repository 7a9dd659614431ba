package importer

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/analytics-service/analytics/stats"
)

// The collector's limits on values (section 3 of the statistics): what imported values are cut
// to, so that they count under the values collection writes.
const (
	MaxValueLength     = 255
	MaxEventNameLength = 64
)

// PageValue is a page's pathname (unescaped, as the exports hold it) as the collector writes a
// page: escaped as in a URL, then in the one spelling of pages (stats.PagePath), at most 255
// characters, "/" when empty.
func PageValue(pathname string) string {
	if pathname == "" {
		return "/"
	}
	return stats.Truncate(stats.PagePath((&url.URL{Path: pathname}).EscapedPath()), MaxValueLength)
}

// EventValue is an event name as the event statistic counts it: "Name::" (no value, no unit),
// its colons written as spaces, at most 64 characters; cut tells whether it was longer.
func EventValue(name string) (value string, cut bool) {
	if utf8.RuneCountInString(name) > MaxEventNameLength {
		name, cut = stats.Truncate(name, MaxEventNameLength), true
	}
	return strings.ReplaceAll(name, ":", " ") + "::", cut
}
