package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/analytics-service/analytics/ratelimit"
)

// Links is the one rule for where the links the service writes begin: the API's paging links
// and Location, the pages' links, assets, form actions, redirects and cookie paths, the tracker
// snippet and the unsubscribe page. With PUBLIC_URL every one is under it, path prefix included,
// so the service can run behind a proxy that strips a prefix; but only what is read away from
// the page (the API's paging links and Location, the tracker snippet, e-mail) names its host:
// the pages' links, assets and redirects are paths under its prefix, so that a page opened by
// another name (the service's address, an internal name) loads its stylesheet and scripts from
// where it was opened, as its Content-Security-Policy ('self') requires. Without PUBLIC_URL the
// request's own address is used only where a link must be absolute (the API's paging links,
// the snippet) or where its host is one the operator listed (ALLOWED_HOSTS); elsewhere links
// are paths. E-mail has no request: it needs PUBLIC_URL (package reports).
type Links struct {
	// Public is PUBLIC_URL without a trailing slash; nil when it is unset.
	Public *url.URL
	// AllowedHosts are the hosts (ALLOWED_HOSTS, lower case; with a port, that port only) whose
	// address the pages may write absolute links to when Public is nil.
	AllowedHosts []string
	// TrustedProxies are the peers whose X-Forwarded-Proto and X-Forwarded-Host are believed
	// (the rule of ratelimit.ClientAddr); anyone else's are ignored.
	TrustedProxies []netip.Prefix
}

// LinkKind is what a link is for, which decides its base when PUBLIC_URL is unset.
type LinkKind int

const (
	// Absolute links are read away from the page: the API's paging links and the tracker
	// snippet. Without PUBLIC_URL they take the request's address.
	Absolute LinkKind = iota
	// Page links are the hrefs, srcs and form actions of HTML: paths under PUBLIC_URL's prefix;
	// without PUBLIC_URL, at the request's address when its host is in ALLOWED_HOSTS, and paths
	// otherwise. (The pages' redirects are Path: always a path.)
	Page
	// Redirect is the API's Location header: under PUBLIC_URL, else a path.
	Redirect
)

// Base is what a link of that kind, written in answer to r, starts with; the service's own
// path ("/stats/example.com") follows it. "" means the link is that path alone. There is never
// a trailing slash.
func (l Links) Base(r *http.Request, kind LinkKind) string {
	if l.Public != nil {
		if kind == Page {
			return l.Public.EscapedPath()
		}
		return l.Public.String()
	}
	switch kind {
	case Absolute:
		return l.Origin(r).String()
	case Page:
		if o := l.Origin(r); l.allowed(o.Host) {
			return o.String()
		}
	}
	return ""
}

// Path is a path of the service as browsers see it: under PUBLIC_URL's path prefix, for cookie
// paths ("/" becomes "/analytics/").
func (l Links) Path(p string) string {
	if l.Public == nil {
		return p
	}
	return l.Public.EscapedPath() + p
}

// Origin is the scheme and host r reached the service at: https over TLS, and the Host header;
// a trusted proxy's X-Forwarded-Proto and X-Forwarded-Host replace them (the first value of
// each, as the proxy nearest the client set it; a value that is not a scheme or a host is
// ignored).
func (l Links) Origin(r *http.Request) *url.URL {
	u := &url.URL{Scheme: "http", Host: r.Host}
	if r.TLS != nil {
		u.Scheme = "https"
	}
	if !ratelimit.FromTrustedProxy(r, l.TrustedProxies) {
		return u
	}
	if p := strings.ToLower(firstValue(r.Header.Get("X-Forwarded-Proto"))); p == "http" || p == "https" {
		u.Scheme = p
	}
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); validHost(h) {
		u.Host = h
	}
	return u
}

// allowed tells whether host is in AllowedHosts: an entry without a port matches the host on
// any port.
func (l Links) allowed(host string) bool {
	name, port := splitHost(host)
	for _, a := range l.AllowedHosts {
		if n, p := splitHost(a); n == name && (p == "" || p == port) {
			return true
		}
	}
	return false
}

// splitHost is a host's name, lower case and without IPv6 brackets, and its port if any.
func splitHost(host string) (name, port string) {
	host = strings.ToLower(host)
	if h, p, err := net.SplitHostPort(host); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ""
}

// ParseAllowedHosts reads ALLOWED_HOSTS: host names or addresses, with or without a port,
// separated by commas.
func ParseAllowedHosts(v string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(v, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if !validHost(h) {
			return nil, fmt.Errorf("%q is not a host such as stats.example.com or stats.example.com:8080", h)
		}
		out = append(out, strings.ToLower(h))
	}
	return out, nil
}

func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// validHost accepts a host or host:port as a URL's authority, and nothing else (no user, path,
// space or control character).
func validHost(h string) bool {
	if h == "" || strings.ContainsAny(h, "/\\?#@ \t\r\n") {
		return false
	}
	u, err := url.Parse("http://" + h)
	return err == nil && u.Host == h
}
