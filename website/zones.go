package website

import (
	_ "embed"
	"strings"
)

// zoneList is the time zones the forms offer (tzdata's zone.tab, one zone per country region,
// and UTC), sorted. Any other IANA name is accepted too; the list only helps to find one.
//
//go:embed zones.txt
var zoneList string

// Zones are the names of zoneList.
var Zones = strings.Fields(zoneList)
