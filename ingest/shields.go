package ingest

import (
	"net/netip"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// shields are a website's blocks (docs/shields.md), parsed once when its settings load and
// checked on every hit beside the exclusions, from memory: a hit from a blocked country, of a
// blocked page or from a hostname that is not allowed counts nowhere and is answered 202 like
// a counted one. A website without any has none (nil), which costs a hit one comparison.
type shields struct {
	countries countrySet
	pages     stats.Patterns // blocked pages, matched against the page as stored, without its query
	hosts     stats.Patterns // allowed hostnames; none: any
}

// newShields parses the stored lists; nil when all are empty. Lines the website rules would
// refuse now (a country GeoLite2 dropped) are skipped, not fatal.
func newShields(s repository.WebsiteSettings) *shields {
	var countries, pages, hosts []string
	if s.BlockCountries != nil {
		countries = website.Lines(*s.BlockCountries)
	}
	if s.BlockPages != nil {
		pages = website.Lines(*s.BlockPages)
	}
	if s.AllowedHostnames != nil {
		hosts = website.Lines(*s.AllowedHostnames)
	}
	if len(countries) == 0 && len(pages) == 0 && len(hosts) == 0 {
		return nil
	}
	sh := &shields{pages: stats.CompilePatterns(pages), hosts: stats.CompilePatterns(hosts)}
	for _, code := range countries {
		sh.countries.add(code)
	}
	return sh
}

// refuse says why a hit is not counted (a reason of analytics_events_ignored_total), "" when
// it is: host is its page's host as bareHost writes it, page its page as the page statistic
// counts it, and where the visitor's place, looked up only when countries are blocked.
func (sh *shields) refuse(host, page string, where *place) string {
	if !sh.hosts.Empty() && !sh.hosts.MatchString(host) {
		return reasonHostname
	}
	if !sh.pages.Empty() && sh.pages.MatchString(stats.GoalPath(page)) {
		return reasonBlockedPage
	}
	if !sh.countries.empty() && sh.countries.has(where.lookup().Country) {
		return reasonBlockedCountry
	}
	return ""
}

// countrySet is a set of two-letter country codes, a bit each: a hit's country is found in
// it without hashing a string.
type countrySet struct {
	bits [(26*26 + 63) / 64]uint64
	n    int
}

func countryBit(c0, c1 byte) (int, bool) {
	if c0 < 'A' || c0 > 'Z' || c1 < 'A' || c1 > 'Z' {
		return 0, false
	}
	return int(c0-'A')*26 + int(c1-'A'), true
}

func (s *countrySet) add(code string) {
	if len(code) != 2 {
		return
	}
	if i, ok := countryBit(code[0], code[1]); ok && s.bits[i/64]&(1<<(i%64)) == 0 {
		s.bits[i/64] |= 1 << (i % 64)
		s.n++
	}
}

// has tells whether the country of a country value ("DE:Germany") is in the set; an unknown
// country ("") never is.
func (s *countrySet) has(value string) bool {
	if len(value) < 3 || value[2] != ':' {
		return false
	}
	i, ok := countryBit(value[0], value[1])
	return ok && s.bits[i/64]&(1<<(i%64)) != 0
}

func (s *countrySet) empty() bool { return s.n == 0 }

// place is a hit's GeoIP answer, looked up at most once: by the shields when they block
// countries, else by the visit's first hit.
type place struct {
	db     *GeoDB
	ip     netip.Addr
	geo    Geo
	looked bool
}

func (p *place) lookup() Geo {
	if !p.looked {
		p.geo, p.looked = p.db.Lookup(p.ip), true
	}
	return p.geo
}
