// Package website holds the rules of a website's settings (domain normalisation, exclusion
// lists, privacy and password) once, for every way of changing them: the API handlers and the
// pages both call it, and neither calls the other.
package website

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

const maxDomainLength = 255

// NormaliseDomain turns what a user typed ("https://www.Example.com:8080/blog") into the host
// the tracker will see ("example.com"), or says why it cannot be one.
func NormaliseDomain(raw string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(raw))
	// One scheme at most: "https://https://x.com" is a mistake, not the host "https".
	for _, scheme := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(d, scheme); ok {
			d = rest
			break
		}
	}
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	// One colon with no port after it: what is left of a second scheme ("https:"), or a typo.
	// (An IPv6 address such as "::" or "2001:db8::" ends with a colon too, among others.)
	if strings.HasSuffix(d, ":") && strings.Count(d, ":") == 1 {
		return "", fmt.Errorf("must be a host name or an IP address, after at most one http:// or https://")
	}
	d = stripPort(d)
	d = strings.TrimSuffix(d, ".")
	if rest, ok := strings.CutPrefix(d, "www."); ok && rest != "" {
		d = rest
	}
	if d == "" {
		return "", fmt.Errorf("must be a host name or an IP address")
	}
	if addr, err := netip.ParseAddr(d); err == nil {
		if addr.Zone() != "" {
			return "", fmt.Errorf("must be a host name or an IP address")
		}
		return addr.String(), nil
	}
	// Unicode labels become punycode, which is what browsers put in location.host.
	ascii, err := idna.Lookup.ToASCII(d)
	if err != nil || !validHostname(ascii) || !stableASCII(ascii) {
		return "", fmt.Errorf("must be a valid host name or IP address")
	}
	if len(ascii) > maxDomainLength {
		return "", fmt.Errorf("must be at most %d characters", maxDomainLength)
	}
	return ascii, nil
}

// stableASCII tells whether the punycode a domain became is accepted again as it is. x/net/idna
// maps some labels into ones it refuses when they come back as punycode ("0ℵ" maps to "0א",
// "xn--0-0hc", which breaks the bidi rule): such a domain would be refused the next time it is
// saved.
func stableASCII(ascii string) bool {
	again, err := idna.Lookup.ToASCII(ascii)
	return err == nil && again == ascii
}

// stripPort removes ":port" and the brackets of an IPv6 literal ("[::1]:8080" -> "::1");
// anything else after the brackets leaves the host as it is, to be refused.
func stripPort(host string) string {
	if strings.HasPrefix(host, "[") {
		if end := strings.Index(host, "]"); end > 0 && (end == len(host)-1 || host[end+1] == ':') {
			return host[1:end]
		}
		return host
	}
	if strings.Count(host, ":") == 1 {
		host, _, _ = strings.Cut(host, ":")
	}
	return host
}

func validHostname(h string) bool {
	if h == "" || len(h) > maxDomainLength {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Lines splits a one-entry-per-line field: CRLF or LF, each line trimmed, empty lines dropped.
func Lines(s string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// normaliseExcludeIPs checks that every line is an address or a CIDR range, and returns the
// lines joined by LF ("" when there are none, which stores NULL), or one message for each bad
// line.
func normaliseExcludeIPs(s string) (string, []string) {
	return normaliseList(s, "is not an IP address or CIDR range", func(line string) bool {
		_, err := ParsePrefix(line)
		return err == nil
	})
}

// normaliseExcludeParams checks that every line can be a query parameter name ("&" alone means
// the whole query string; no control character, which PostgreSQL may refuse, as it does NUL)
// and returns the lines joined by LF, or one message for each bad line.
func normaliseExcludeParams(s string) (string, []string) {
	return normaliseList(s, "is not a query parameter name", func(line string) bool {
		return line == "&" || !(strings.ContainsAny(line, "&=#? ") || !utf8.ValidString(line) || strings.ContainsFunc(line, unicode.IsControl))
	})
}

// normaliseList returns the entries of a one-entry-per-line field (as Lines splits it) joined
// by LF when valid accepts each; otherwise no value and one message for each line it refuses,
// `line N ("value") <refusal>`, N counting every line as typed (blank ones included).
func normaliseList(s, refusal string, valid func(string) bool) (string, []string) {
	var bad []string
	for i, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line != "" && !valid(line) {
			bad = append(bad, fmt.Sprintf("line %d (%q) %s", i+1, line, refusal))
		}
	}
	if len(bad) > 0 {
		return "", bad
	}
	return strings.Join(Lines(s), "\n"), nil
}

// ParsePrefix reads an address or a CIDR range as a range: "10.0.0.0/8", "192.0.2.7" (a /32),
// "2001:db8::/32". IPv4-mapped IPv6 addresses become IPv4, as client addresses are compared.
// An address with a zone ("fe80::1%eth0") is refused: a client address never carries one, and
// the zone is free text that the stored list would keep as typed.
func ParsePrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR range", s)
	}
	return p.Masked(), nil
}
