package website

import "testing"

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
		"http://http://x.com/", "x.com:", "https://x.com:/", "", "http://", "exa mple.com"} {
		if got, err := NormaliseDomain(raw); err == nil {
			t.Errorf("NormaliseDomain(%q) = %q, want an error", raw, got)
		}
	}
}
