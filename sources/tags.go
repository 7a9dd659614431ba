package sources

import (
	"net/url"
	"strings"

	"github.com/analytics-service/analytics/stats"
)

// MaxLength is the most characters a tag keeps, as every statistic's value.
const MaxLength = 255

// Redacted replaces a tag that holds an e-mail address or a long run of digits (a phone or
// customer number): links in e-mails and ads often carry them, and no statistic should.
const Redacted = "(redacted)"

// Tags are the tags of a visit's first URL that name where it came from, each cleaned by Clean
// ("" when absent or empty).
type Tags struct {
	UTMSource, UTMMedium, UTMCampaign, UTMTerm, UTMContent string
	Source, Ref                                            string // "source" and "ref", read when utm_source is absent
	ClickID                                                string // "gclid" or "msclkid" when the URL has one
}

// ReadTags reads the tags from a URL's raw query, as sent (before any parameter is dropped).
// The first of a repeated tag counts; a pair that cannot be unescaped is ignored. It allocates
// only for values that are escaped, too long or not storable.
func ReadTags(rawQuery string) Tags {
	var t Tags
	for rawQuery != "" {
		var key, value string
		var ok bool
		key, value, rawQuery, ok = nextPair(rawQuery)
		if !ok {
			continue
		}
		field := t.field(key)
		if field == nil {
			continue
		}
		if key == "gclid" || key == "msclkid" {
			if t.ClickID == "" {
				t.ClickID = key
			}
			continue
		}
		if *field != "" || value == "" {
			continue
		}
		if value, ok = unescape(value); ok {
			*field = Clean(value)
		}
	}
	return t
}

// ReadTag is the first non-empty value of the tag name in a raw query, cleaned: the tags Tags
// has no field for.
func ReadTag(rawQuery, name string) string {
	for rawQuery != "" {
		var key, value string
		var ok bool
		key, value, rawQuery, ok = nextPair(rawQuery)
		if !ok || key != name || value == "" {
			continue
		}
		if value, ok = unescape(value); ok {
			return Clean(value)
		}
	}
	return ""
}

// nextPair is the first key=value pair of a raw query, its key unescaped, and the rest; ok is
// false when the key cannot be unescaped.
func nextPair(rawQuery string) (key, value, rest string, ok bool) {
	pair, rest, _ := strings.Cut(rawQuery, "&")
	key, value, _ = strings.Cut(pair, "=")
	key, ok = unescape(key)
	return key, value, rest, ok
}

// unescape is a query's text unescaped, copied only when it holds an escape.
func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	unescaped, err := url.QueryUnescape(s)
	return unescaped, err == nil
}

// field is where a tag goes; nil for other parameters.
func (t *Tags) field(key string) *string {
	switch key {
	case "utm_source":
		return &t.UTMSource
	case "utm_medium":
		return &t.UTMMedium
	case "utm_campaign":
		return &t.UTMCampaign
	case "utm_term":
		return &t.UTMTerm
	case "utm_content":
		return &t.UTMContent
	case "source":
		return &t.Source
	case "ref":
		return &t.Ref
	case "gclid", "msclkid":
		return &t.ClickID
	}
	return nil
}

// Clean makes a tag's value one the statistics keep: Redacted when it holds an e-mail address
// or 9 or more digits in a run (spaces, dots and dashes between them allowed), else storable
// text of at most MaxLength characters.
func Clean(value string) string {
	if hasEmail(value) || hasLongNumber(value) {
		return Redacted
	}
	return stats.Truncate(stats.Storable(value), MaxLength)
}

// Identifying tells whether a text holds what Clean redacts: an e-mail address or 9 or more
// digits in a run. Custom properties are redacted by the same rule.
func Identifying(value string) bool { return hasEmail(value) || hasLongNumber(value) }

// hasEmail finds local@domain.tld: a character of an address on each side of "@" and a dot in
// the domain after it.
func hasEmail(s string) bool {
	for i := strings.IndexByte(s, '@'); i >= 0; {
		if i > 0 && isAddressChar(s[i-1]) {
			domain := s[i+1:]
			end := 0
			for end < len(domain) && (isAddressChar(domain[end]) && domain[end] != '+') {
				end++
			}
			if dot := strings.IndexByte(domain[:end], '.'); dot > 0 && dot < end-1 {
				return true
			}
		}
		next := strings.IndexByte(s[i+1:], '@')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

func isAddressChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '+' || c == '%'
}

// hasLongNumber finds 9 or more digits in a run that at most two separators (space, dot, dash,
// and the parentheses and slash of phone numbers) at a time interrupt: "+49 170 1234567",
// "555-123-4567 89", "123.456.789", "+49 (170) 123-456-78", "030/12345678".
func hasLongNumber(s string) bool {
	digits, separators := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
			separators = 0
			if digits >= 9 {
				return true
			}
		case (c == ' ' || c == '.' || c == '-' || c == '(' || c == ')' || c == '/') && digits > 0 && separators < 2:
			separators++
		default:
			digits, separators = 0, 0
		}
	}
	return false
}
