package ratelimit

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	cases := []struct {
		remote, xff, want string
	}{
		{"198.51.100.7:1", "", "198.51.100.7"},
		{"198.51.100.7:1", "203.0.113.9", "198.51.100.7"},               // an untrusted peer's header is ignored
		{"10.0.0.1:1", "203.0.113.9", "203.0.113.9"},                    // behind a trusted proxy
		{"10.0.0.1:1", "6.6.6.6, 203.0.113.9, 10.0.0.2", "203.0.113.9"}, // the nearest untrusted hop, not the forged left one
		{"10.0.0.1:1", "garbage, 10.0.0.2", "invalid"},                  // garbage before the trusted hops: unknown
		{"10.0.0.1:1", "", "10.0.0.1"},                                  // a trusted peer without a header
		{"[fd00::1]:1", "2001:db8::5", "2001:db8::5"},
		{"[::ffff:198.51.100.7]:1", "", "198.51.100.7"},
		{"not an address", "", "invalid"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/api/event", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		got := ClientAddr(r, trusted)
		if (c.want == "invalid" && got.IsValid()) || (c.want != "invalid" && got != netip.MustParseAddr(c.want)) {
			t.Errorf("peer %s, X-Forwarded-For %q: %v, want %s", c.remote, c.xff, got, c.want)
		}
	}
}
