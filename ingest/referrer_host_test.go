package ingest

import (
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// referrerHostByURL is referrerHost as it was before its in-place reading of plain referrers:
// url.Parse for every one.
func referrerHostByURL(referrer string) string {
	if referrer == "" {
		return ""
	}
	u, err := url.Parse(referrer)
	if err != nil {
		return ""
	}
	return stats.Truncate(u.Hostname(), maxPageLength)
}

// TestReferrerHostAsURLParse: reading a plain referrer in place gives what url.Parse gives, for
// the referrers trackers send and for strings made to sit at the edges of the plain form.
func TestReferrerHostAsURLParse(t *testing.T) {
	cases := []string{
		"", "https://www.google.com/", "http://news.example", "https://t.co", "https://Example.COM/a?b#c",
		"https://a.example?x=1", "https://a.example#top", "https://a_b~c.example/x", "https://user@host.example/",
		"https://host.example:8080/", "https://[::1]:80/", "https://ho%41st.example/", "https://host.example/%zz",
		"https://host.example/#%zz", "https://ho st.example/", "https://host.example/a b", "https://host.example/\x7f",
		"https://\x01host/", "HTTPS://host.example/", "ftp://host.example/", "//host.example/", "https:///path",
		"https://", "http://", "https://héllo.example/", "android-app://com.google.android.gm/", "www.example.com",
		"https://host.example/?q=%", "https://host.example/?q=a%zz", "https://a.example:/", "https://a.example\\b/",
	}
	alphabet := []string{"https://", "http://", "a", "Z", "9", ".", "-", "_", "~", "/", "?", "#", "%", "%4", "%41", ":", "@",
		"[", "]", " ", "\x00", "\x7f", "é", "\\", "&", "=", "+"}
	rng := rand.New(rand.NewPCG(29, 18))
	for range 20000 {
		s := alphabet[rng.IntN(2)]
		for n := rng.IntN(12); n > 0; n-- {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, s)
	}
	plain := 0
	for _, referrer := range cases {
		if _, ok := plainReferrerHost(referrer); ok {
			plain++
		}
		if got, want := referrerHost(referrer), referrerHostByURL(referrer); got != want {
			t.Errorf("referrerHost(%q) = %q, url.Parse gives %q", referrer, got, want)
		}
	}
	if plain < len(cases)/10 {
		t.Errorf("only %d of %d referrers read in place: the check is not testing that reading", plain, len(cases))
	}
}
