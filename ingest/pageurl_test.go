package ingest

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// pageOfURLParse is what parsePage answered when it was url.Parse alone: the reference.
func pageOfURLParse(raw string) (pageURL, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return pageURL{}, false
	}
	return pageURL{hostname: u.Hostname(), path: u.EscapedPath(), rawQuery: u.RawQuery, fragment: u.EscapedFragment()}, true
}

// TestPlainPageAsURLParse holds the in-place reading to url.Parse on 300,000 URLs made of the
// bytes at its edges: where plainPage takes a URL its parts are url.Parse's, and parsePage
// answers every URL as url.Parse does.
func TestPlainPageAsURLParse(t *testing.T) {
	schemes := []string{"https://", "http://", "HTTP://", "ftp://", "https:/", "//", ""}
	hosts := []string{"example.com", "WWW.Example.COM", "a_b~c.test", "x.test:8080", "x.test:", "x.test:8o", ":80", "",
		"user@x.test", "[::1]:80", "[::1]", "ex%41mple.com", "ex ample.com", "bücher.de", "xn--bcher-kva.de", "a..b", "1.2.3.4"}
	pieces := []string{"/", "a", "Z9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@",
		"?", "#", "%", "%20", "%2F", "%zz", "%C3%BC", " ", "\"", "<", ">", "[", "]", "{", "|", "\\", "^", "`", "ü", "\x7f", "\x01", "\t", "/..", "//"}
	r := rand.New(rand.NewPCG(5, 8))
	plain := 0
	for range 300_000 {
		var b strings.Builder
		b.WriteString(schemes[r.IntN(len(schemes))])
		b.WriteString(hosts[r.IntN(len(hosts))])
		for range r.IntN(8) {
			if r.IntN(3) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteString(pieces[r.IntN(21)]) // the plain ones, more often
			}
		}
		raw := b.String()
		want, wantOK := pageOfURLParse(raw)
		if p, ok := plainPage(raw); ok {
			plain++
			if !wantOK || p != want {
				t.Fatalf("%q: in place %+v, url.Parse %+v (ok %v)", raw, p, want, wantOK)
			}
		}
		if got, ok := parsePage(raw); ok != wantOK || got != want {
			t.Fatalf("%q: parsePage %+v (ok %v), url.Parse %+v (ok %v)", raw, got, ok, want, wantOK)
		}
	}
	if plain < 5_000 { // most schemes and hosts of the pools are left to url.Parse
		t.Fatalf("only %d of 300,000 URLs were read in place", plain)
	}
	t.Logf("%d of 300,000 read in place", plain)
}
