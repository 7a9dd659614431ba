package stats

import (
	"strings"
)

// Custom properties and revenue (docs/properties.md): the rules a hit's properties and an
// event's revenue are kept under, shared by the collector, the rows' writer and the reads.

// Property is the list of the values of one custom property key (name=property&property=KEY).
// It is read from the visit rows, never from the daily counters.
const Property Name = "property"

// Limits of custom properties.
const (
	MaxPropsPerHit     = 30   // properties kept of one hit; the rest are dropped
	MaxPropKeyChars    = 300  // a longer key is dropped
	MaxPropValueChars  = 2000 // a longer value is dropped
	MaxPropStoredChars = 255  // what a key or value is cut to when stored
	MaxPropKeysPerDay  = 300  // distinct keys a website keeps a day; later keys count under Other
	// PropValuesPerDay bounds the values of all a website's keys of a day together: that
	// many times MAX_VALUES_PER_DAY (the values one key may keep), and at least that many
	// times MaxPropKeysPerDay; later new values count as KEY=Other. 300 keys of
	// MAX_VALUES_PER_DAY values each would be 3 million rows a day.
	PropValuesPerDay = 10
	MaxPairsPerVisit = 64 // distinct key/value pairs a visit keeps; later ones are dropped
)

// PropSep separates a property's key from its value in a visit row's props element. A key
// never holds it (the collector writes it as a space).
const PropSep = "\x1f"

// PropPair is the stored element of the property key=value.
func PropPair(key, value string) string { return key + PropSep + value }

// SplitPropPair is PropPair's inverse.
func SplitPropPair(pair string) (key, value string) {
	key, value, _ = strings.Cut(pair, PropSep)
	return key, value
}

// PropertyFilterParam is the query parameter of the property filters:
// property_filter[KEY]=VALUE (OpenAPI deepObject).
const PropertyFilterParam = "property_filter"

// Limits of a revenue amount: digits before and after the point.
const (
	maxAmountWhole    = 15
	maxAmountFraction = 3
)

// Amount is an event's revenue amount as kept: digits with an optional point and at most
// three digits after it, never a floating-point number. ok is false for anything else: more
// digits, a sign, an exponent, 0.
func Amount(s string) (string, bool) {
	whole, fraction, hasPoint := strings.Cut(s, ".")
	if whole == "" || len(whole) > maxAmountWhole || len(fraction) > maxAmountFraction || (hasPoint && fraction == "") {
		return "", false
	}
	positive := false
	for _, part := range []string{whole, fraction} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return "", false
			}
			positive = positive || c != '0'
		}
	}
	return s, positive
}

// Currency tells whether s is a currency code as kept: three capitals (ISO 4217's form).
func Currency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
