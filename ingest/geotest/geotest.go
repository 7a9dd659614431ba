// Package geotest writes small GeoLite2-City-shaped databases for tests, so that the collector's
// GeoIP lookups run on real MaxMind files without shipping one.
package geotest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Network is one network of a test database and the record its addresses resolve to.
type Network struct {
	Network string
	Record  mmdbtype.Map
}

// Networks are documentation ranges (RFC 5737, RFC 3849), so no real address can be mistaken
// for test data.
var Networks = []Network{
	{"198.51.100.0/24", CityRecord("NA", "North America", "US", "United States", "New York", "NY")},
	// GeoLite2 has many networks known only to the country.
	{"203.0.113.0/24", CityRecord("EU", "Europe", "DE", "Germany", "", "")},
	{"2001:db8:1::/48", CityRecord("AS", "Asia", "JP", "Japan", "Tokyo", "13")},
	// City-states carry no subdivision.
	{"192.0.2.0/25", CityRecord("AS", "Asia", "SG", "Singapore", "Singapore", "")},
}

// CityRecord builds a record shaped like GeoLite2-City's, with more than English names so the
// lookup has to pick the right language.
func CityRecord(continentCode, continent, countryISO, country, city, subdivisionISO string) mmdbtype.Map {
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
			// A smaller second level, as for England > Cambridgeshire; the city must use the first.
			mmdbtype.Map{"iso_code": mmdbtype.String("XX"), "geoname_id": mmdbtype.Uint32(5), "names": names("county")},
		}
	}
	return record
}

// WriteCity writes a GeoLite2-City database of Networks into a temporary directory and returns
// its path.
func WriteCity(t testing.TB) string {
	t.Helper()
	return Write(t, "GeoLite2-City", Networks)
}

// Write writes a database of type dbType holding networks into a temporary directory and
// returns its path. Reserved networks (loopback, documentation ranges) are kept.
func Write(t testing.TB, dbType string, networks []Network) string {
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
		_, network, err := net.ParseCIDR(n.Network)
		if err != nil {
			t.Fatalf("parse %s: %v", n.Network, err)
		}
		if err := tree.Insert(network, n.Record); err != nil {
			t.Fatalf("insert %s: %v", n.Network, err)
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
