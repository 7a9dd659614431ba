package pages

import (
	"github.com/analytics-service/analytics/sitecheck"

	"net/netip"
	"testing"
	"time"
)

// UseTestSiteChecker makes every Pages built until the test ends check websites with allow
// instead of the public-address rule, at the addresses urls gives for a domain, with the
// given timeout (0 keeps 5 s): the only way to let the installation check reach a test server
// on loopback. It exists in test binaries only.
func UseTestSiteChecker(t testing.TB, allow func(netip.AddrPort) bool, urls func(domain string) []string, timeout time.Duration) {
	c := sitecheck.New()
	c.Allow, c.URLs = allow, urls
	if timeout > 0 {
		c.Timeout = timeout
	}
	testSiteChecker = c
	t.Cleanup(func() { testSiteChecker = nil })
}
