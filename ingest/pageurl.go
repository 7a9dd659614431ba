package ingest

import (
	"net/url"
	"strings"
)

// pageURL is what a hit needs of its page's URL: the parts the page statistic, the realtime
// view and the campaign tags are made of, escaped as url.URL's EscapedPath and
// EscapedFragment give them.
type pageURL struct {
	hostname string // url.URL.Hostname: no port, no brackets; the website is found by it
	// website is the host of the website the hit counts for when the body named it (Plausible's
	// domain list), else "" and the hostname decides; the allowed hostnames are compared with
	// hostname either way.
	website  string
	path     string // escaped; "" when the URL has none
	rawQuery string // as sent, without '?'
	fragment string // escaped, without '#'
}

// parsePage reads an absolute http(s) URL; ok is false for anything else, or a URL without a
// host. The URLs most hits carry are read in place (plainPage); any other through url.Parse,
// which allocates a url.URL: that was 5% of a hit's CPU and its largest allocation.
func parsePage(raw string) (pageURL, bool) {
	if p, ok := plainPage(raw); ok {
		return p, true
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return pageURL{}, false
	}
	return pageURL{hostname: u.Hostname(), path: u.EscapedPath(), rawQuery: u.RawQuery, fragment: u.EscapedFragment()}, true
}

// plainPage reads in place an http(s) URL of printable ASCII whose host is letters, digits,
// '.', '-', '_' and '~' (a port of digits after it), and whose path and fragment hold only
// bytes url.URL leaves as they are (no '%', which it would unescape and escape again). For
// such a URL the parts are exactly what url.Parse gives (TestPlainPageAsURLParse); ok is
// false for any other, which url.Parse reads.
func plainPage(raw string) (pageURL, bool) {
	rest, ok := strings.CutPrefix(raw, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "http://"); !ok {
			return pageURL{}, false
		}
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f {
			return pageURL{}, false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host, ok := plainHost(rest[:end])
	if !ok {
		return pageURL{}, false
	}
	p := pageURL{hostname: host}
	rest = rest[end:]
	rest, p.fragment, _ = strings.Cut(rest, "#")
	p.path, p.rawQuery, _ = strings.Cut(rest, "?")
	if !plainText(p.path, "/") || !plainText(p.fragment, "/?") {
		return pageURL{}, false
	}
	return p, true
}

// plainHost is a host of letters, digits, '.', '-', '_' and '~', without its port of digits.
func plainHost(authority string) (string, bool) {
	host, port, hasPort := strings.Cut(authority, ":")
	if host == "" || hasPort && port == "" {
		return "", false
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", false
		}
	}
	return host, plainHostName(host)
}

// plainHostName holds only letters, digits, '.', '-', '_' and '~': what url.Parse keeps of a
// host as it came (its Hostname), for the page and the referrer.
func plainHostName(host string) bool {
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

// plainText holds only bytes url.URL writes back as they came in a path (and, with "?", a
// fragment): letters, digits and -._~!$&'()*+,;=:@, and the extra ones given.
func plainText(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0, strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}
