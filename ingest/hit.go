package ingest

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/analytics-service/analytics/sources"
	"github.com/analytics-service/analytics/stats"
)

// Limits of the contract's statistic values.
const (
	maxPageLength      = 255
	maxEventNameLength = 64
	maxEventValueLen   = 10
	maxEventUnitLength = 32
	maxScreenSide      = 20000
)

// pageValue is the page statistic: path plus the query left after the website's excluded
// parameters, "/" for an empty path, in its one spelling (stats.PagePath: /über-uns however the
// browser escaped it), at most 255 characters; the fragment only when hash says it is part of
// the page (a hash-routed site's tracker says so). Credentials and identifying text are
// redacted from each part (redact.go).
func pageValue(u pageURL, site *Website, hash bool) string {
	path := u.path
	if path == "" {
		path = "/"
	}
	path = redactPath(path)
	if query := filterQuery(u.rawQuery, site); query != "" {
		path += "?" + query
	}
	if hash && u.fragment != "" {
		if fragment := redactFragment(u.fragment); fragment != "" {
			path += "#" + fragment
		}
	}
	return stats.Truncate(stats.PagePath(path), maxPageLength)
}

// filterQuery drops the excluded parameters from a raw query, keeping the others exactly as
// sent and in their order, but for what redactQuery drops or redacts.
func filterQuery(raw string, site *Website) string {
	if raw == "" || site.DropQuery {
		return ""
	}
	if len(site.ExcludeParams) == 0 {
		return redactQuery(raw, nil)
	}
	return redactQuery(raw, func(name string) bool {
		if decoded, err := url.QueryUnescape(name); err == nil {
			name = decoded
		}
		return site.excludesParam(name)
	})
}

// referrerHost is the referrer statistic: the host as sent, "" for direct or unreadable,
// sources.Redacted for one that holds identifying text (redact.go).
func referrerHost(referrer string) string {
	if referrer == "" {
		return ""
	}
	host, ok := plainReferrerHost(referrer)
	if !ok {
		u, err := url.Parse(referrer)
		if err != nil {
			return ""
		}
		host = u.Hostname()
	}
	if sources.Identifying(host) {
		return sources.Redacted
	}
	return stats.Truncate(host, maxPageLength)
}

// plainReferrerHost is the host of the referrers most hits carry, read in place: an http(s)
// URL whose host is letters, digits, '.', '-', '_' and '~' only, and nothing of which url.Parse
// would refuse or unescape (no control byte, no '%'). It is what url.Parse's Hostname gives
// for them without the URL it allocates; ok is false for any other referrer, which url.Parse
// reads.
func plainReferrerHost(referrer string) (string, bool) {
	rest, ok := strings.CutPrefix(referrer, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(referrer, "http://"); !ok {
			return "", false
		}
	}
	for i := 0; i < len(referrer); i++ {
		if c := referrer[i]; c < 0x20 || c == 0x7f || c == '%' {
			return "", false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	return host, plainHostName(host)
}

// siteReferrer is the referrer statistic's value of a hit from refHost: the host, or ""
// (direct) when it is the website's own (a leading www. ignored), an internal navigation.
// One rule for the visit's values and the realtime view's latest pageviews.
func siteReferrer(refHost string, site *Website) string {
	if refHost != "" && bareHost(refHost) == site.Domain {
		return ""
	}
	return refHost
}

// bareHost lower-cases a host and drops a leading "www.", as website domains are stored.
func bareHost(host string) string {
	host = strings.ToLower(host)
	if rest, ok := strings.CutPrefix(host, "www."); ok && rest != "" {
		return rest
	}
	return host
}

// languageValue is the primary subtag of the first Accept-Language entry, lower case; "" when
// there is none or it is "*".
func languageValue(header string) string {
	first, _, _ := strings.Cut(header, ",")
	first, _, _ = strings.Cut(first, ";")
	first = strings.TrimSpace(first)
	primary, _, _ := strings.Cut(first, "-")
	primary, _, _ = strings.Cut(primary, "_")
	if primary == "" || len(primary) > 8 {
		return ""
	}
	for i := 0; i < len(primary); i++ {
		c := primary[i] | 0x20
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return strings.ToLower(primary)
}

// screenValue is "WIDTHxHEIGHT" when both are integers 1..20000, else "".
func screenValue(s string) string {
	w, h, ok := strings.Cut(s, "x")
	if !ok {
		return ""
	}
	width, err1 := strconv.Atoi(w)
	height, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || width < 1 || height < 1 || width > maxScreenSide || height > maxScreenSide {
		return ""
	}
	if plainNumber(w) && plainNumber(h) {
		return s // as Itoa would write it: no allocation for what browsers send
	}
	return strconv.Itoa(width) + "x" + strconv.Itoa(height)
}

// plainNumber: digits only, the first not 0.
func plainNumber(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// eventValue is "name:value:unit". The name is required (1..64 characters) and its colons
// become spaces, as do the unit's, so the three parts stay apart; value is kept only when it is
// a positive number of at most 10 characters, unit only when at most 32 characters.
func eventValue(e *eventBody) (string, bool) {
	n := utf8.RuneCountInString(e.Name)
	if n < 1 || n > maxEventNameLength {
		return "", false
	}
	value := ""
	if e.Value != "" && len(e.Value) <= maxEventValueLen { // ParseFloat's error for "" is an allocation
		if f, err := strconv.ParseFloat(e.Value, 64); err == nil && f > 0 && !strings.ContainsAny(e.Value, "xXpPnN_") {
			value = e.Value
		}
	}
	unit := ""
	if utf8.RuneCountInString(e.Unit) <= maxEventUnitLength {
		unit = stats.EventField(e.Unit)
	}
	return stats.EventField(e.Name) + ":" + value + ":" + unit, true
}
