// Package sitecheck is the installation check: it fetches a website's home page from the
// server and tells whether the tracker there sends its hits to this service, without letting
// the fetch reach the server's own network.
package sitecheck

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The limits of the installation check: it fetches a page of the owner's choosing from the
// server, so it must not become a way to reach the server's own network or to tie it up.
const (
	siteCheckTimeout   = 5 * time.Second
	siteCheckMaxBody   = 1 << 20 // bytes read of the page
	siteCheckRedirects = 3
)

// Checker fetches a website's home page from the server and says whether a script there
// sends its hits to this service. Every connection it makes, the first and each redirect's,
// goes only to a public unicast address on port 80 or 443: the check runs on the address the
// dialer actually connects to, after DNS resolution (net.Dialer.Control), so a name that
// resolves to an internal address, or resolves differently a moment later (DNS rebinding),
// cannot pass.
type Checker struct {
	Timeout   time.Duration
	MaxBody   int64
	Redirects int
	// Seams for the tests only (nothing in production sets them): Allow replaces the
	// public-address rule, URLs the addresses tried for a domain.
	Allow func(netip.AddrPort) bool
	URLs  func(domain string) []string
}

// New is the checker of the installation check's limits.
func New() *Checker {
	return &Checker{Timeout: siteCheckTimeout, MaxBody: siteCheckMaxBody, Redirects: siteCheckRedirects}
}

// Outcome is what the check found, in one or two sentences for the owner.
type Outcome struct {
	Found   bool
	Message string
	// CheckedAt is when, as the pages write a minute; "" before it is kept.
	CheckedAt string
}

// errNotPublic is the refusal of an address that is not public (or a port other than 80/443).
var errNotPublic = errors.New("not a public address")

var (
	errTooManyRedirects = errors.New("too many redirects")
	errNotWeb           = errors.New("redirect to neither http nor https")
)

// Check fetches https://domain/ (then http://domain/ when https cannot be reached) and looks
// for a script that loads service's tracker, or a Plausible tracker whose data-api points at
// service. service is this service's absolute base address (PUBLIC_URL or the request's).
func (c *Checker) Check(ctx context.Context, domain string, service *url.URL) Outcome {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	client := c.client()
	urls := []string{"https://" + hostForURL(domain) + "/", "http://" + hostForURL(domain) + "/"}
	if c.URLs != nil {
		urls = c.URLs(domain)
	}
	var firstErr error
	for _, u := range urls {
		page, final, truncated, err := c.fetch(ctx, client, u)
		if err == nil {
			return judgePage(page, final, truncated, service)
		}
		if firstErr == nil {
			firstErr = err
		}
		// An address refused, a deadline passed or a redirect loop is the same over http:
		// say so rather than try again.
		if errors.Is(err, errNotPublic) || errors.Is(err, errTooManyRedirects) || errors.Is(err, errNotWeb) || ctx.Err() != nil {
			return failedOutcome(ctx, domain, err, c.Timeout)
		}
		var status statusError
		if errors.As(err, &status) {
			return failedOutcome(ctx, domain, err, c.Timeout)
		}
	}
	return failedOutcome(ctx, domain, firstErr, c.Timeout)
}

// hostForURL brackets an IPv6 address for use in a URL.
func hostForURL(domain string) string {
	if a, err := netip.ParseAddr(domain); err == nil && a.Is6() {
		return "[" + domain + "]"
	}
	return domain
}

func (c *Checker) client() *http.Client {
	allow := c.Allow
	if allow == nil {
		allow = publicWebAddress
	}
	dialer := &net.Dialer{
		Timeout: c.Timeout,
		// Called with the resolved address of every connection about to be made.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !allow(netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())) {
				return errNotPublic
			}
			return nil
		},
	}
	transport := &http.Transport{
		// No proxy: a proxy's address would be the one checked, not the website's.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    c.Timeout,
		ResponseHeaderTimeout:  c.Timeout,
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   c.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > c.Redirects {
				return errTooManyRedirects
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errNotWeb
			}
			return nil
		},
	}
}

// statusError is a page that answered something other than 2xx.
type statusError struct {
	url    string
	status string
}

func (e statusError) Error() string { return e.url + " answered " + e.status }

// fetch reads at most maxBody bytes of the page at u, following redirects, and returns them
// with the address finally read and whether the page was longer.
func (c *Checker) fetch(ctx context.Context, client *http.Client, u string) ([]byte, *url.URL, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, false, fmt.Errorf("site check: %w", err)
	}
	req.Header.Set("User-Agent", "analytics-installation-check/1 (fetches the home page once, on its owner's request)")
	req.Header.Set("Accept", "text/html")
	res, err := client.Do(req)
	if err != nil {
		return nil, nil, false, fmt.Errorf("site check: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, nil, false, statusError{url: res.Request.URL.String(), status: res.Status}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, c.MaxBody+1))
	if err != nil {
		return nil, nil, false, fmt.Errorf("site check: read: %w", err)
	}
	truncated := int64(len(body)) > c.MaxBody
	if truncated {
		body = body[:c.MaxBody]
	}
	return body, res.Request.URL, truncated, nil
}

// notPublic are the ranges that are not the public internet, besides what netip's predicates
// catch (loopback, private, link-local, multicast, unspecified): shared address space,
// documentation and benchmark ranges, reserved, and the IPv6 prefixes that embed an IPv4
// address (NAT64, 6to4, Teredo), which could lead to an internal IPv4 one.
var notPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
		"2002::/16", "3fff::/20", "5f00::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// publicWebAddress says whether the check may connect to a: a public unicast address, on the
// web's ports.
func publicWebAddress(a netip.AddrPort) bool {
	if a.Port() != 80 && a.Port() != 443 {
		return false
	}
	return publicUnicast(a.Addr())
}

func publicUnicast(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() || ip.Zone() != "" {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// failedOutcome says why the page could not be read. It never names the address a domain
// resolved to: the answer must not tell what is behind a name in the server's network.
func failedOutcome(ctx context.Context, domain string, err error, timeout time.Duration) Outcome {
	var status statusError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, errNotPublic):
		return Outcome{Message: domain + " leads to an address that is not on the public internet (or to a port other than 80 and 443). The check fetches only public websites."}
	case errors.Is(err, errNotWeb):
		return Outcome{Message: domain + " redirects to an address that is neither http nor https."}
	case errors.Is(err, errTooManyRedirects):
		return Outcome{Message: fmt.Sprintf("%s redirects more than %d times; the check stops there.", domain, siteCheckRedirects)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return Outcome{Message: fmt.Sprintf("%s did not send its home page within %s.", domain, timeout)}
	case errors.As(err, &status):
		return Outcome{Message: status.url + " answered " + status.status + ", not the page."}
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return Outcome{Message: domain + " has no address in DNS."}
	}
	return Outcome{Message: "The home page of " + domain + " could not be read over https or http."}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// judgePage looks at the scripts of a page for this service's tracker (src on service, ending
// in /js/script.js) or a Plausible tracker sending here (data-api on service).
func judgePage(page []byte, final *url.URL, truncated bool, service *url.URL) Outcome {
	var elsewhere string
	for _, s := range pageScripts(page) {
		src, err := final.Parse(s.src)
		if err != nil {
			continue
		}
		if sameService(src, service) && strings.HasSuffix(src.Path, "/js/script.js") {
			return Outcome{Found: true, Message: final.String() + " loads the tracker of this service. " +
				"Pageviews appear here a few seconds after someone opens a page."}
		}
		if s.api != "" {
			if api, err := final.Parse(s.api); err == nil && sameService(api, service) {
				return Outcome{Found: true, Message: final.String() + " has a Plausible tracker that sends here. " +
					"Pageviews appear here a few seconds after someone opens a page."}
			}
		}
		if elsewhere == "" && (strings.HasSuffix(src.Path, "/js/script.js") || s.api != "" || strings.Contains(src.Path, "plausible")) {
			elsewhere = src.Host
		}
	}
	switch {
	case elsewhere != "":
		return Outcome{Message: final.String() + " loads a tracker from " + elsewhere + ", not from this service (" + service.Host + "). Copy the snippet below again."}
	case truncated:
		return Outcome{Message: fmt.Sprintf("%s is larger than %d MiB: its first MiB has no script that loads this service's tracker.", final.String(), siteCheckMaxBody>>20)}
	}
	return Outcome{Message: final.String() + " was read, but no script on it loads this service's tracker. Put the snippet in the page's <head> and check again."}
}

// sameService says whether u is at service's host (and under its path prefix); the scheme may
// differ, as a page may name the service by http or https.
func sameService(u, service *url.URL) bool {
	if !strings.EqualFold(u.Hostname(), service.Hostname()) {
		return false
	}
	if (u.Port() != "" || service.Port() != "") && portOf(u) != portOf(service) {
		return false
	}
	return strings.HasPrefix(u.Path, strings.TrimSuffix(service.Path, "/")+"/")
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// pageScript is one <script> of a page: its src and Plausible's data-api.
type pageScript struct{ src, api string }

func pageScripts(page []byte) []pageScript {
	z := html.NewTokenizer(strings.NewReader(string(page)))
	var out []pageScript
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if atom.Lookup(name) != atom.Script {
				continue
			}
			var s pageScript
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "src":
					s.src = string(v)
				case "data-api":
					s.api = string(v)
				}
			}
			if s.src != "" {
				out = append(out, s)
			}
		}
	}
}
