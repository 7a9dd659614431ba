package stats

import (
	"errors"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zone names work on hosts without /usr/share/zoneinfo
)

// Zone is a website's time zone as it counts days: Before until the instant From, After from
// then on (a change takes effect at a midnight, ChangeFrom). After nil: no change is pending
// or made, Before is in force for ever. Before nil is "the service's TZ, filled in by the
// caller" (the collector's cache of settings does so per hit).
type Zone struct {
	Before *time.Location
	After  *time.Location
	From   time.Time
}

// FirstZone and LastZone are the first and the last of all time zones (UTC+14 and UTC-12):
// a calendar date starts in FirstZone before any other zone and ends in LastZone after every
// other (a period of reports, a closed day).
var (
	FirstZone = time.FixedZone("UTC+14", 14*3600)
	LastZone  = time.FixedZone("UTC-12", -12*3600)
)

// FixedZone is a zone that never changes.
func FixedZone(loc *time.Location) Zone { return Zone{Before: loc} }

// At is the location whose calendar counts the instant t (nil only when Before is).
func (z Zone) At(t time.Time) *time.Location {
	if z.After != nil && !t.Before(z.From) {
		return z.After
	}
	return z.Before
}

// Today is the calendar day that counts now, as a Day.
func (z Zone) Today(now time.Time) time.Time { return Day(now.In(z.At(now))) }

// OfDay is the location whose hours a calendar day has: After from the date From starts,
// Before for the days before it.
func (z Zone) OfDay(day time.Time) *time.Location {
	if z.After != nil && !day.Before(Day(z.From.In(z.After))) {
		return z.After
	}
	return z.Before
}

// Current is the zone in force at now, with no change: what a website's zone is once its
// change has taken effect.
func (z Zone) Current(now time.Time) Zone { return Zone{Before: z.At(now)} }

// ChangeFrom is the instant a change of zone made at now takes effect: the start, in the new
// zone, of the first of its dates that starts when today has ended in the old zone (or
// later). Days counted before it stay as counted; from it on the new zone counts.
func ChangeFrom(now time.Time, old, next *time.Location) time.Time {
	local := now.In(old)
	todayEnds := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 0, 0, 0, old)
	n := todayEnds.In(next)
	start := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, next)
	if start.Before(todayEnds) {
		start = time.Date(n.Year(), n.Month(), n.Day()+1, 0, 0, 0, 0, next)
	}
	return start
}

// ErrUnknownZone: a name that is not an IANA time zone.
var ErrUnknownZone = errors.New("unknown time zone")

// zones caches loaded locations by name: loading one reads and parses its rules.
var zones sync.Map

// LoadZone loads an IANA time zone by name ("Europe/Berlin", "UTC"). "" and "Local" are
// refused: a website's days must not depend on the host the service runs on.
func LoadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if name == "" || name == "Local" || len(name) > 64 || strings.Contains(name, "..") {
		return nil, ErrUnknownZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrUnknownZone
	}
	zones.Store(name, loc)
	return loc, nil
}
