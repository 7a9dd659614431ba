package website

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/analytics-service/analytics/stats"
)

// The shields of a website (docs/shields.md): countries whose visitors count nowhere, page
// patterns whose hits count nowhere, and the hostnames hits may come from (none listed: any).
// Each is a list of one entry per line, checked here for the API and the pages alike, and held
// by the collector in memory with the exclusions. The bounds keep what a hit is compared with
// small: a longer list is refused whole, naming the bound.
const (
	MaxBlockedCountries = 250 // every country GeoLite2 names
	MaxBlockedPages     = 100
	MaxAllowedHostnames = 50
)

// normaliseBlockCountries checks that every line is a country code (ISO 3166-1 alpha-2, any
// case, that GeoLite2 names) and returns the codes in capitals, each once, in the order typed.
func normaliseBlockCountries(s string) (string, []string) {
	return normaliseShield(s, MaxBlockedCountries, func(line string) (string, string) {
		code := strings.ToUpper(line)
		if _, ok := stats.Countries[code]; !ok {
			return "", "is not a country code (ISO 3166-1 alpha-2, such as DE or US)"
		}
		return code, ""
	})
}

// normaliseBlockPages checks that every line is a page pattern as goals take them (starts with
// /, `*` any run of characters, `|` between alternatives, at most 255 characters).
func normaliseBlockPages(s string) (string, []string) {
	return normaliseShield(s, MaxBlockedPages, func(line string) (string, string) {
		if n := utf8.RuneCountInString(line); n > stats.MaxPagePattern {
			return "", fmt.Sprintf("is longer than %d characters", stats.MaxPagePattern)
		}
		if refusal := stats.PatternRefusal(line); refusal != "" {
			return "", refusal
		}
		return line, ""
	})
}

// normaliseAllowedHostnames checks that every line is a host name, an IP address, or a host
// name with `*` for any run of characters (`*.example.com`), and writes each as pages' hosts
// are compared: lower case, in punycode, without a leading www. and a trailing dot.
func normaliseAllowedHostnames(s string) (string, []string) {
	return normaliseShield(s, MaxAllowedHostnames, func(line string) (string, string) {
		host, ok := hostnamePattern(line)
		if !ok {
			return "", "is not a host name (letters, digits, hyphens and dots; * for any part, as in *.example.com)"
		}
		return host, ""
	})
}

// hostnamePattern normalises one allowed hostname; ok is false when it cannot be one.
func hostnamePattern(line string) (string, bool) {
	h := strings.TrimSuffix(strings.ToLower(line), ".")
	if inner, ok := strings.CutPrefix(h, "["); ok && strings.HasSuffix(inner, "]") {
		h = strings.TrimSuffix(inner, "]") // an IPv6 address as a URL writes it
	}
	if addr, err := netip.ParseAddr(h); err == nil && addr.Zone() == "" {
		return addr.Unmap().String(), true
	}
	if rest, ok := strings.CutPrefix(h, "www."); ok && rest != "" {
		h = rest
	}
	if len(h) > maxDomainLength {
		return "", false
	}
	if !strings.Contains(h, "*") {
		ascii, err := idna.Lookup.ToASCII(h)
		if err != nil || !validHostname(ascii) || !stableASCII(ascii) {
			return "", false
		}
		return ascii, true
	}
	// With stars: each star stands for letters (checked as one), the rest as typed in ASCII.
	if !validHostname(strings.ReplaceAll(h, "*", "x")) {
		return "", false
	}
	return h, true
}

// shortened is a refused line as its message quotes it: at most 80 characters, "…" when cut.
func shortened(line string) string {
	if cut := stats.Truncate(line, 80); cut != line {
		return cut + "…"
	}
	return line
}

// maxRefusals bounds the lines a refusal names one by one.
const maxRefusals = 20

// normaliseShield checks the lines of one shield's list (as Lines splits it) with check, which
// returns a line's normal form or why it is refused, and returns the normal forms joined by LF,
// each once, or one message for each refused line (`line N ("value") <refusal>`, N counting
// every line as typed) and one for a list of more than limit entries.
func normaliseShield(s string, limit int, check func(line string) (string, string)) (string, []string) {
	var bad, kept []string
	seen := map[string]bool{}
	entries := 0
	for i, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		entries++
		if !stats.ValidText(line) {
			bad = append(bad, fmt.Sprintf("line %d %s", i+1, stats.TextRule))
			continue
		}
		v, refusal := check(line)
		if refusal != "" {
			bad = append(bad, fmt.Sprintf("line %d (%q) %s", i+1, shortened(line), refusal))
			continue
		}
		if !seen[v] {
			seen[v] = true
			kept = append(kept, v)
		}
	}
	if len(bad) > maxRefusals {
		bad = append(bad[:maxRefusals], fmt.Sprintf("and %d more lines refused", len(bad)-maxRefusals))
	}
	if entries > limit {
		bad = append([]string{fmt.Sprintf("has %d entries: at most %d", entries, limit)}, bad...)
	}
	if len(bad) > 0 {
		return "", bad
	}
	return strings.Join(kept, "\n"), nil
}
