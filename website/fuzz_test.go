package website

import (
	"net/netip"
	"strings"
	"testing"
	"unicode"

	"github.com/analytics-service/analytics/stats"
)

// FuzzNormaliseDomain: a domain that is accepted is a host the tracker can see (a valid host
// name in ASCII or an IP address, at most 255 characters), and normalising it again changes
// nothing but one more leading "www." (the contract strips one, as the tracker does with the
// page's host: "www.www.example.com" is stored as "www.example.com", which pages at
// www.www.example.com match).
func FuzzNormaliseDomain(f *testing.F) {
	for _, s := range []string{"https://www.Example.com:8080/blog?x#y", "[2001:DB8::1]:443", "münchen.de", "www",
		"xn--mnchen-3ya.de", "a..b", "-a.com", "192.0.2.1", "fe80::1%eth0", "http://", "www.www.", "www.www.example.com", "[::1]x", "[::1]:8080", strings.Repeat("a.", 130)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := NormaliseDomain(raw)
		if err != nil {
			if d != "" {
				t.Fatalf("%q: refused but returned %q", raw, d)
			}
			return
		}
		if len(d) == 0 || len(d) > maxDomainLength || !stats.ValidText(d) {
			t.Fatalf("%q -> %q", raw, d)
		}
		if a, err := netip.ParseAddr(d); err == nil {
			if a.String() != d || a.Zone() != "" {
				t.Fatalf("%q -> address %q not in its canonical form", raw, d)
			}
		} else if !validHostname(d) {
			t.Fatalf("%q -> %q is not a host name", raw, d)
		}
		want := d
		if rest, ok := strings.CutPrefix(d, "www."); ok && rest != "" {
			want = rest
		}
		if again, err := NormaliseDomain(d); err != nil || again != want {
			t.Fatalf("%q -> %q -> %q, %v: want %q", raw, d, again, err, want)
		}
	})
}

// FuzzParsePrefix: an accepted range is valid and masked, prints as something that parses
// back to it, and holds its own address.
func FuzzParsePrefix(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "192.0.2.7", "2001:db8::/32", "::ffff:192.0.2.1", "10.0.0.1/33",
		"1.2.3.4/0", "fe80::1%eth0", "::/0", "01.2.3.4", "1.2.3.4/08"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrefix(s)
		if err != nil {
			return
		}
		if !p.IsValid() || p != p.Masked() || !p.Contains(p.Addr()) || p.Addr().Is4In6() {
			t.Fatalf("%q -> %v", s, p)
		}
		back, err := ParsePrefix(p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %v -> %v, %v", s, p, back, err)
		}
	})
}

// FuzzExclusionLists: an accepted list is storable, one trimmed non-empty entry per LF line,
// each entry valid (an address or range; a parameter name or "&"), and normalising it again
// changes nothing.
func FuzzExclusionLists(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8\r\n\r\n 2001:db8::1 \n", "utm_source\nref\n&", "a=b", "a b", "\x00",
		"\xff", "p\tq", "1.2.3.4\n1.2.3.4/33", "&\n&", strings.Repeat("x\n", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ips, bad := normaliseExcludeIPs(s); bad == nil {
			checkList(t, "exclude_ips", s, ips, normaliseExcludeIPs, func(line string) bool {
				_, err := ParsePrefix(line)
				return err == nil
			})
		}
		if params, bad := normaliseExcludeParams(s); bad == nil {
			checkList(t, "exclude_params", s, params, normaliseExcludeParams, func(line string) bool {
				return line == "&" || (!strings.ContainsAny(line, "&=#? ") && !strings.ContainsFunc(line, unicode.IsControl))
			})
		}
	})
}

func checkList(t *testing.T, field, in, out string, normalise func(string) (string, []string), valid func(string) bool) {
	t.Helper()
	if !stats.ValidText(out) {
		t.Fatalf("%s %q -> %q cannot be stored", field, in, out)
	}
	if out != "" {
		for _, line := range strings.Split(out, "\n") {
			if line == "" || line != strings.TrimSpace(line) || !valid(line) {
				t.Fatalf("%s %q -> line %q", field, in, line)
			}
		}
	}
	again, bad := normalise(out)
	if bad != nil || again != out {
		t.Fatalf("%s %q -> %q -> %q, %v: not idempotent", field, in, out, again, bad)
	}
}
