package ingest

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/ingest/geotest"
	"github.com/analytics-service/analytics/repository"
)

// BenchmarkShields is what a website's shields cost a hit they let through, at the bounds the
// benchmarks use (50 countries, 50 page patterns, 20 hostnames, as tools/loadgen's
// benchShields; every list checked in full): pages and hosts alone, and with the country,
// whose GeoIP lookup (GEOIP_DB, else the test database; cached, as for a returning visitor's
// address) a visit's first hit would do anyway.
//
//	go test -run '^$' -bench Shields -benchmem ./ingest/
func BenchmarkShields(b *testing.B) {
	path := os.Getenv("GEOIP_DB")
	if path == "" {
		path = geotest.WriteCity(b)
	}
	db, err := OpenGeoDB(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var countries, pages, hosts []string
	for i := range 50 {
		countries = append(countries, fmt.Sprintf("%c%c", 'A'+i/26, 'A'+i%26))
		pages = append(pages, fmt.Sprintf("/blog/x-draft-%d-*", i), fmt.Sprintf("/internal-%02d/*", i))
	}
	for i := 1; i < 20; i++ {
		hosts = append(hosts, fmt.Sprintf("*.cdn%02d.example.net", i))
	}
	hosts = append(hosts, "example.com")
	join := func(l []string) *string { s := strings.Join(l, "\n"); return &s }
	all := newShields(repository.WebsiteSettings{BlockCountries: join(countries), BlockPages: join(pages[:50]), AllowedHostnames: join(hosts)})
	noCountries := newShields(repository.WebsiteSettings{BlockPages: join(pages[:50]), AllowedHostnames: join(hosts)})
	addrs := []netip.Addr{netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("81.2.69.142"), netip.MustParseAddr("2a02:8070::1")}
	for _, c := range []struct {
		name string
		sh   *shields
	}{{"pages+hosts", noCountries}, {"pages+hosts+countries", all}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				where := place{db: db, ip: addrs[i%len(addrs)]}
				if reason := c.sh.refuse("example.com", "/blog/how-to-choose-the-best-privacy-analytics-tool?page=2", &where); reason != "" {
					b.Fatal(reason)
				}
			}
		})
	}
}
