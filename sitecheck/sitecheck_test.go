package sitecheck

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// service is the address the tests' pages must load the tracker from.
var testService, _ = url.Parse("https://stats.example.net")

const snippetHTML = `<!doctype html><html><head><script async defer src="https://stats.example.net/js/script.js" data-host="https://stats.example.net"></script></head><body>hi</body></html>`

// siteServer is a website on loopback with its own handler, and a checker that may reach it
// (and nothing else on loopback) through the tests' seam.
func siteServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *Checker) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	c := New()
	c.Timeout = 2 * time.Second
	c.Allow = func(a netip.AddrPort) bool { return a == addr }
	c.URLs = func(string) []string { return []string{srv.URL + "/"} }
	return srv, c
}

func TestSiteCheckFindsTheTracker(t *testing.T) {
	pages := map[string]struct {
		body  string
		found bool
		says  string
	}{
		"snippet":                {snippetHTML, true, "loads the tracker of this service"},
		"relative to protocol":   {`<script defer src="//stats.example.net/js/script.js"></script>`, true, "loads the tracker"},
		"plausible data-api":     {`<script defer data-domain="example.com" data-api="https://stats.example.net/api/event" src="/js/plausible.js"></script>`, true, "Plausible tracker that sends here"},
		"another service":        {`<script async src="https://other.example/js/script.js"></script>`, false, "loads a tracker from other.example, not from this service (stats.example.net)"},
		"no script":              {`<html><head><title>x</title></head></html>`, false, "no script on it loads this service's tracker"},
		"in a comment":           {`<!-- <script src="https://stats.example.net/js/script.js"></script> -->`, false, "no script on it"},
		"in text":                {`<p>&lt;script src="https://stats.example.net/js/script.js"&gt;</p>`, false, "no script on it"},
		"huge page":              {strings.Repeat("a", 2<<20) + snippetHTML, false, "is larger than 1 MiB: its first MiB has no script"},
		"huge page, found early": {snippetHTML + strings.Repeat("a", 2<<20), true, "loads the tracker"},
	}
	for name, tc := range pages {
		t.Run(name, func(t *testing.T) {
			_, c := siteServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) })
			got := c.Check(context.Background(), "example.com", testService)
			if got.Found != tc.found || !strings.Contains(got.Message, tc.says) {
				t.Fatalf("got %+v, want found=%v and %q", got, tc.found, tc.says)
			}
		})
	}
}

// Every address that is not the public internet is refused before a connection is made, with
// the production rule (no seam): the check cannot be used to reach the server's own network.
func TestSiteCheckRefusesInternalAddresses(t *testing.T) {
	// A live server on loopback, port 80's stand-in: refused all the same.
	for _, domain := range []string{
		"127.0.0.1", "localhost", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"0.0.0.0", "::1", "fd00::2", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
		"2002:a00:1::1", "224.0.0.1", "ff02::1",
	} {
		t.Run(domain, func(t *testing.T) {
			c := New()
			c.Timeout = 2 * time.Second
			got := c.Check(context.Background(), domain, testService)
			if got.Found || !strings.Contains(got.Message, "not on the public internet") {
				t.Fatalf("%s: %+v", domain, got)
			}
			if strings.Contains(got.Message, "127.0.0.1") && domain == "localhost" {
				t.Errorf("the answer names the address a name resolved to: %s", got.Message)
			}
		})
	}
}

func TestPublicWebAddress(t *testing.T) {
	for s, want := range map[string]bool{
		"93.184.215.14:443": true, "93.184.215.14:80": true, "[2606:4700::6810:84e5]:443": true,
		"93.184.215.14:22": false, "93.184.215.14:8080": false,
		"127.0.0.1:80": false, "10.1.2.3:443": false, "172.31.0.1:443": false, "192.168.0.1:80": false,
		"169.254.169.254:80": false, "100.100.100.200:80": false, "0.0.0.0:80": false, "255.255.255.255:80": false,
		"192.0.2.1:80": false, "198.18.0.1:80": false, "240.0.0.1:80": false, "224.0.0.251:80": false,
		"[::1]:443": false, "[::]:443": false, "[fd00::1]:443": false, "[fc00::1]:443": false, "[fe80::1]:443": false,
		"[::ffff:127.0.0.1]:80": false, "[::ffff:10.0.0.1]:80": false, "[::ffff:93.184.215.14]:80": true,
		"[64:ff9b::a00:1]:80": false, "[2002:a00:1::1]:80": false, "[2001::1]:80": false, "[2001:db8::1]:80": false,
		"[ff02::1]:80": false, "[::127.0.0.1]:80": false,
	} {
		if got := publicWebAddress(netip.MustParseAddrPort(s)); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

// A redirect is followed only to a public address, at most three times.
func TestSiteCheckRedirects(t *testing.T) {
	// An internal service with the snippet: reaching it would say "found".
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, snippetHTML) }))
	t.Cleanup(internal.Close)
	cases := map[string]struct {
		to   func(srv *httptest.Server, r *http.Request) string
		says string
	}{
		"to loopback":          {func(*httptest.Server, *http.Request) string { return internal.URL + "/" }, "not on the public internet"},
		"to a private address": {func(*httptest.Server, *http.Request) string { return "http://10.0.0.1/" }, "not on the public internet"},
		"to metadata":          {func(*httptest.Server, *http.Request) string { return "http://169.254.169.254/latest/meta-data/" }, "not on the public internet"},
		"to IPv6 ULA":          {func(*httptest.Server, *http.Request) string { return "http://[fd00::2]/" }, "not on the public internet"},
		"to another scheme":    {func(*httptest.Server, *http.Request) string { return "file:///etc/passwd" }, "neither http nor https"},
		"in a loop": {func(srv *httptest.Server, r *http.Request) string {
			n := len(r.URL.Query().Get("n"))
			return srv.URL + "/?n=" + strings.Repeat("x", n+1)
		}, "redirects more than 3 times"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var srv *httptest.Server
			srv, c := siteServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tc.to(srv, r), http.StatusFound)
			})
			got := c.Check(context.Background(), "example.com", testService)
			if got.Found || !strings.Contains(got.Message, tc.says) {
				t.Fatalf("got %+v, want %q", got, tc.says)
			}
		})
	}
	// Three redirects are followed.
	var srv *httptest.Server
	srv, c := siteServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n := len(r.URL.Query().Get("n")); n < 3 {
			http.Redirect(w, r, srv.URL+"/?n="+strings.Repeat("x", n+1), http.StatusFound)
			return
		}
		fmt.Fprint(w, snippetHTML)
	})
	if got := c.Check(context.Background(), "example.com", testService); !got.Found {
		t.Fatalf("three redirects: %+v", got)
	}
}

// A server that never answers, or sends its page a byte at a time, is given up at the timeout.
func TestSiteCheckSlowServers(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	handlers := map[string]http.HandlerFunc{
		"no answer": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
		"trickling body": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<html>")
			w.(http.Flusher).Flush()
			for {
				select {
				case <-release:
					return
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
					fmt.Fprint(w, "a")
					w.(http.Flusher).Flush()
				}
			}
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			_, c := siteServer(t, h)
			c.Timeout = 300 * time.Millisecond
			start := time.Now()
			got := c.Check(context.Background(), "example.com", testService)
			if got.Found || !strings.Contains(got.Message, "did not send its home page within 300ms") {
				t.Fatalf("got %+v", got)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("the check took %v with a timeout of 300ms", took)
			}
		})
	}
}

func TestSiteCheckStatus(t *testing.T) {
	_, c := siteServer(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	got := c.Check(context.Background(), "example.com", testService)
	if got.Found || !strings.Contains(got.Message, "answered 404 Not Found") {
		t.Fatalf("got %+v", got)
	}
}
