package stats

import "testing"

func TestPagePath(t *testing.T) {
	for in, want := range map[string]string{
		"/":                               "/",
		"/über-uns":                       "/über-uns",
		"/%C3%BCber-uns":                  "/über-uns",
		"/%c3%bcber-uns":                  "/über-uns",
		"/caf%C3%A9?q=%E6%97%A5%E6%9C%AC": "/café?q=日本",
		"/%F0%9F%98%80":                   "/😀",
		"/%7Euser/%41%2d":                 "/~user/A-",
		"/a%2Fb%3Fc%23d%25e":              "/a%2Fb%3Fc%23d%25e", // reserved: they mean something else decoded
		"/a%2fb%26c%3dd%2B":               "/a%2Fb%26c%3Dd%2B",
		"/a%20b%22%3C%00%7F%0A":           "/a%20b%22%3C%00%7F%0A",  // space, quotes, controls
		"/%C3":                            "/%C3",                   // a lone lead byte
		"/%C3%28":                         "/%C3%28",                // not a continuation
		"/%ff%fe":                         "/%FF%FE",                // not UTF-8
		"/%C0%AF":                         "/%C0%AF",                // overlong
		"/%ED%A0%80":                      "/%ED%A0%80",             // a surrogate
		"/%E2%80%AE":                      "/%E2%80%AE",             // right-to-left override
		"/%E2%80%8B%C2%A0%C2%AD":          "/%E2%80%8B%C2%A0%C2%AD", // zero-width space, no-break space, soft hyphen
		"/%EF%BF%BD%EF%BB%BF":             "/%EF%BF%BD%EF%BB%BF",    // U+FFFD, byte order mark
		"/100%":                           "/100%25",
		"/%zz%4":                          "/%25zz%254",
		"/%C3%BC%":                        "/ü%25",
		"/%%34%31":                        "/%2541", // not /%41, which would spell A
	} {
		if got := PagePath(in); got != want {
			t.Errorf("PagePath(%q) = %q, want %q", in, got, want)
		}
		if got := PagePath(PagePath(in)); got != PagePath(in) {
			t.Errorf("PagePath is not idempotent on %q: %q", in, got)
		}
	}
}
