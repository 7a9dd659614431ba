package web

import (
	"crypto/tls"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
)

// The base of each kind of link, with and without PUBLIC_URL, from a client and from a trusted
// proxy: forwarded headers count only from TRUSTED_PROXIES, HTML links are paths under
// PUBLIC_URL's prefix, and absolute without PUBLIC_URL only for a host in ALLOWED_HOSTS.
func TestLinkBases(t *testing.T) {
	public, _ := url.Parse("https://example.com/analytics")
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	forwarded := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "stats.example.org"}
	type bases struct{ absolute, page, redirect string }
	cases := []struct {
		name    string
		links   Links
		remote  string
		host    string
		tls     bool
		headers map[string]string
		want    bases
	}{
		{"PUBLIC_URL, whatever the request says; HTML links are paths under its prefix", Links{Public: public, TrustedProxies: trusted}, "10.0.0.1:1", "evil.example", false, forwarded,
			bases{"https://example.com/analytics", "/analytics", "https://example.com/analytics"}},
		{"PUBLIC_URL without a prefix: HTML links are paths", Links{Public: &url.URL{Scheme: "https", Host: "stats.example.com"}}, "192.0.2.1:1", "10.1.2.3:8080", false, nil,
			bases{"https://stats.example.com", "", "https://stats.example.com"}},
		{"no PUBLIC_URL: the request's Host; HTML and Location are paths", Links{}, "192.0.2.1:1", "svc.example:8080", false, nil,
			bases{"http://svc.example:8080", "", ""}},
		{"over TLS", Links{}, "192.0.2.1:1", "svc.example", true, nil,
			bases{"https://svc.example", "", ""}},
		{"an untrusted client's X-Forwarded-* changes nothing", Links{TrustedProxies: trusted, AllowedHosts: []string{"stats.example.org"}},
			"192.0.2.1:1", "svc.example", false, forwarded, bases{"http://svc.example", "", ""}},
		{"a trusted proxy's X-Forwarded-* count", Links{TrustedProxies: trusted}, "10.0.0.1:1", "127.0.0.1:8080", false, forwarded,
			bases{"https://stats.example.org", "", ""}},
		{"an allowed host gets absolute HTML links", Links{AllowedHosts: []string{"svc.example"}}, "192.0.2.1:1", "SVC.example:8080", false, nil,
			bases{"http://SVC.example:8080", "http://SVC.example:8080", ""}},
		{"an allowed host with a port allows that port only", Links{AllowedHosts: []string{"svc.example:8080"}}, "192.0.2.1:1", "svc.example:9090", false, nil,
			bases{"http://svc.example:9090", "", ""}},
		{"a trusted proxy's allowed host", Links{TrustedProxies: trusted, AllowedHosts: []string{"stats.example.org"}}, "10.0.0.1:1", "127.0.0.1:8080", false, forwarded,
			bases{"https://stats.example.org", "https://stats.example.org", ""}},
		{"a trusted proxy's garbage is ignored", Links{TrustedProxies: trusted}, "10.0.0.1:1", "svc.example", true,
			map[string]string{"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil.example/path"}, bases{"https://svc.example", "", ""}},
		{"the first of a list, as the proxy nearest the client set it", Links{TrustedProxies: trusted}, "10.0.0.1:1", "svc.example", false,
			map[string]string{"X-Forwarded-Proto": "HTTPS, http", "X-Forwarded-Host": "stats.example.org, svc.internal"}, bases{"https://stats.example.org", "", ""}},
		{"IPv6", Links{AllowedHosts: []string{"[2001:db8::1]"}}, "192.0.2.1:1", "[2001:db8::1]:8080", false, nil,
			bases{"http://[2001:db8::1]:8080", "http://[2001:db8::1]:8080", ""}},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr, r.Host = c.remote, c.host
		if !c.tls {
			r.TLS = nil
		} else {
			r.TLS = &tls.ConnectionState{}
		}
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		got := bases{c.links.Base(r, Absolute), c.links.Base(r, Page), c.links.Base(r, Redirect)}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestLinkPaths(t *testing.T) {
	public, _ := url.Parse("https://example.com/analytics")
	if got := (Links{Public: public}).Path("/stats/a.example"); got != "/analytics/stats/a.example" {
		t.Errorf("under PUBLIC_URL: %q", got)
	}
	if got := (Links{}).Path("/"); got != "/" {
		t.Errorf("without PUBLIC_URL: %q", got)
	}
}

func TestParseAllowedHosts(t *testing.T) {
	got, err := ParseAllowedHosts(" Stats.Example.com, ,localhost:8080,[::1]")
	if err != nil || len(got) != 3 || got[0] != "stats.example.com" || got[1] != "localhost:8080" || got[2] != "[::1]" {
		t.Fatalf("%q, %v", got, err)
	}
	for _, bad := range []string{"https://stats.example.com", "stats.example.com/x", "a b", "user@host", "host:port"} {
		if _, err := ParseAllowedHosts(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
