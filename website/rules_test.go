package website

import (
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestNormaliseDomain(t *testing.T) {
	for raw, want := range map[string]string{
		"https://www.Example.com:8080/blog?x#y": "example.com",
		"http://example.com":                    "example.com",
		"example.com/a?u=https://other.com":     "example.com",
		"[2001:DB8::1]:443":                     "2001:db8::1",
		"münchen.de":                            "xn--mnchen-3ya.de",
		"www.www.example.com":                   "www.example.com",
		"::":                                    "::",
		"2001:DB8::":                            "2001:db8::",
		"::0#0":                                 "::",
	} {
		if got, err := NormaliseDomain(raw); err != nil || got != want {
			t.Errorf("NormaliseDomain(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"https://https://x.com", "http://https://x.com", "https://http://x.com",
		"http://http://x.com/", "x.com:", "https://x.com:/", "", "http://", "exa mple.com",
		"0ℵ"} { // "0ℵ" becomes punycode that idna refuses when it comes back
		if got, err := NormaliseDomain(raw); err == nil {
			t.Errorf("NormaliseDomain(%q) = %q, want an error", raw, got)
		}
	}
}

// Every bad line of an exclusion list is named, by its line number as typed; a list with one
// bad line has no value.
func TestExclusionListMessages(t *testing.T) {
	out, bad := normaliseExcludeIPs(" 10.0.0.1 \r\n\r\nzzz\n10.0.0.0/33\n2001:db8::/32")
	want := []string{`line 3 ("zzz") is not an IP address or CIDR range`, `line 4 ("10.0.0.0/33") is not an IP address or CIDR range`}
	if out != "" || len(bad) != len(want) || bad[0] != want[0] || bad[1] != want[1] {
		t.Errorf("exclude_ips: %q, %q; want %q", out, bad, want)
	}
	out, bad = normaliseExcludeParams("a b\n\nref\n#x\n&")
	want = []string{`line 1 ("a b") is not a query parameter name`, `line 4 ("#x") is not a query parameter name`}
	if out != "" || len(bad) != len(want) || bad[0] != want[0] || bad[1] != want[1] {
		t.Errorf("exclude_params: %q, %q; want %q", out, bad, want)
	}
	if out, bad = normaliseExcludeIPs("10.0.0.1\r\n\r\n 192.0.2.0/24 "); out != "10.0.0.1\n192.0.2.0/24" || bad != nil {
		t.Errorf("valid exclude_ips: %q, %q", out, bad)
	}
}

// An address with a zone is refused: the zone is free text (here invalid UTF-8, which
// PostgreSQL refuses) that the list would store as typed, and no client address carries one.
func TestExcludeIPsRefuseZones(t *testing.T) {
	for _, line := range []string{"fe80::1%eth0", "::%\xff"} {
		if out, bad := normaliseExcludeIPs(line); out != "" || len(bad) != 1 {
			t.Errorf("%q: %q, %q; want one refusal", line, out, bad)
		}
	}
}

// Every zone the forms offer is one the rules accept.
func TestZonesLoad(t *testing.T) {
	if len(Zones) < 300 {
		t.Fatalf("%d zones", len(Zones))
	}
	for _, name := range Zones {
		if _, err := stats.LoadZone(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
