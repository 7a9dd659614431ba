package ingest

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	geoip2 "github.com/oschwald/geoip2-golang/v2"
	"github.com/oschwald/maxminddb-golang/v2"
)

// Geo holds the location values as the stats store them: continent
// "CODE:Name", country "ISO:Name", city "ISO:City" plus ", SUBDIVISION_ISO"
// when known. An unknown part is "".
type Geo struct {
	Continent, Country, City string
}

// geoCacheSize bounds the memo of formatted records. Visitors cluster in a
// few thousand places, and an entry is three short strings, so 8192 entries
// stay under 2 MiB.
const geoCacheSize = 8192

// GeoDB looks addresses up in a GeoLite2-City (or GeoIP2-City) database.
// A nil *GeoDB is valid and knows nothing, so the service runs without one.
type GeoDB struct {
	reader *maxminddb.Reader
	// formatted maps a data record's offset to its formatted Geo. A MaxMind
	// database stores each distinct record once and the offset identifies it,
	// so a repeat location costs a tree walk and a cache hit: no decoding and
	// no allocation, where decoding and formatting a record costs about 1 µs
	// and 1 KiB of garbage. Offsets are only meaningful for this file, which
	// is why the cache lives and dies with the GeoDB.
	formatted *lru.Cache[uintptr, Geo]
}

// OpenGeoDB memory-maps the database at path.
func OpenGeoDB(path string) (*GeoDB, error) {
	reader, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("geo.open: %w", err)
	}
	// The lookups decode geoip2.City records; only the City, Country and
	// Enterprise families are laid out that way. Failing here turns a
	// misconfigured GEOIP_DB (an ASN database, say) into a startup error
	// rather than a silent lack of data.
	dbType := reader.Metadata.DatabaseType
	if !strings.Contains(dbType, "City") && !strings.Contains(dbType, "Country") && !strings.Contains(dbType, "Enterprise") {
		return nil, errors.Join(
			fmt.Errorf("geo.open: %s is a %q database, want a GeoLite2-City database", path, dbType),
			reader.Close())
	}
	formatted, err := lru.New[uintptr, Geo](geoCacheSize)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("geo.open: %w", err), reader.Close())
	}
	return &GeoDB{reader: reader, formatted: formatted}, nil
}

// Lookup returns what the database knows about ip, and Geo{} for an address
// it does not hold. A record that fails to decode (a corrupt file) also reads
// as unknown: a visit is still worth counting without its location.
func (g *GeoDB) Lookup(ip netip.Addr) Geo {
	if g == nil || !ip.IsValid() {
		return Geo{}
	}
	// An IPv4 address that reached us as ::ffff:a.b.c.d must find the IPv4
	// networks, not the IPv6 tree's mapped range.
	result := g.reader.Lookup(ip.Unmap())
	if !result.Found() {
		return Geo{}
	}
	offset := result.Offset()
	if geo, ok := g.formatted.Get(offset); ok {
		return geo
	}
	geo := decodeGeo(result)
	g.formatted.Add(offset, geo)
	return geo
}

func decodeGeo(result maxminddb.Result) Geo {
	var record geoip2.City
	if err := result.Decode(&record); err != nil {
		return Geo{}
	}
	return formatGeo(&record)
}

// Close unmaps the database. Closing a nil *GeoDB does nothing.
func (g *GeoDB) Close() error {
	if g == nil {
		return nil
	}
	if err := g.reader.Close(); err != nil {
		return fmt.Errorf("geo.close: %w", err)
	}
	return nil
}

func formatGeo(r *geoip2.City) Geo {
	geo := Geo{
		Continent: codeAndName(r.Continent.Code, r.Continent.Names.English),
		Country:   codeAndName(r.Country.ISOCode, r.Country.Names.English),
		City:      codeAndName(r.Country.ISOCode, r.City.Names.English),
	}
	// Subdivisions run from largest to smallest; the largest (a US state, an
	// English nation) is the one that disambiguates a city name.
	if geo.City != "" && len(r.Subdivisions) > 0 && r.Subdivisions[0].ISOCode != "" {
		geo.City += ", " + r.Subdivisions[0].ISOCode
	}
	return geo
}

// codeAndName is "" unless both halves are known: "EU:" or ":Europe" would
// count as values of their own in the stats.
func codeAndName(code, name string) string {
	if code == "" || name == "" {
		return ""
	}
	return code + ":" + name
}
