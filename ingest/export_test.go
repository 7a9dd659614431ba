package ingest

// User agents of the tests, for the package's own tests and for its external ones.
const (
	ChromeWindowsUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	SafariIPhoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
)

// UserAgentParsed tells whether the user-agent memo holds ua, that is whether a hit with it
// was parsed.
func UserAgentParsed(ua string) bool { return userAgents.cache.Contains(ua) }

// HeldRows is the parts of visits' rows that wait in memory for their visit (its values, or its
// next emission: rows.go); Size less HeldRows is what the next flushes write. Only the tests
// that wait for a flush need it.
func (c *Counters) HeldRows() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rowStore.waiting()
}
