package ingest

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/analytics-service/analytics/sources"
	"github.com/analytics-service/analytics/stats"
)

// Custom properties and revenue of a hit (docs/properties.md). Whatever is wrong in them is
// dropped and counted in the metrics, never answered with a 400: the hit still counts. Both are
// read only once the hit's website is known, so a stranger's hit for no website costs nothing
// here, and a hit without them nothing at all.

// readProps reads a hit's properties (an object, or a JSON string holding one, as Plausible's
// older scripts send p): the pairs to store, each stats.PropPair of its key and value as kept.
func (c *Collector) readProps(raw jsontext.Value) []string {
	raw = present(raw)
	if raw == nil {
		return nil
	}
	if raw.Kind() == '"' {
		var inner string
		if json.Unmarshal(raw, &inner, hitJSON) != nil {
			c.Metrics.dropProps(reasonPropInvalid, 1)
			return nil
		}
		raw = jsontext.Value(inner)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		c.Metrics.dropProps(reasonPropInvalid, 1)
		return nil
	}
	var pairs, keys []string
	invalid, over := 0, 0
	for dec.PeekKind() != '}' {
		keyTok, err := dec.ReadToken()
		if err != nil {
			invalid++
			break
		}
		key := keyTok.String() // before the next read, which reuses the token's bytes
		val, err := dec.ReadValue()
		if err != nil {
			invalid++
			break
		}
		value, ok := propValue(val)
		if !ok || !propLength(key, stats.MaxPropKeyChars) || !propLength(value, stats.MaxPropValueChars) || containsString(keys, key) {
			invalid++
			continue
		}
		if len(pairs) == stats.MaxPropsPerHit {
			over++
			continue
		}
		keys = append(keys, key)
		pairs = append(pairs, stats.PropPair(c.propText(key, false), c.propText(value, isURLKey(key))))
	}
	c.Metrics.dropProps(reasonPropInvalid, invalid)
	c.Metrics.dropProps(reasonPropPerHit, over)
	return pairs
}

// propValue is a property's value as text: a string as it is, a number as written, a boolean
// as true or false; ok is false for null, arrays and objects.
func propValue(v jsontext.Value) (string, bool) {
	switch v.Kind() {
	case '"':
		var s string
		if json.Unmarshal(v, &s, hitJSON) != nil {
			return "", false
		}
		return s, true
	case '0':
		return string(v), true
	case 't':
		return "true", true
	case 'f':
		return "false", true
	}
	return "", false
}

// propLength: 1 to most characters.
func propLength(s string, most int) bool {
	return s != "" && (len(s) <= most || utf8.RuneCountInString(s) <= most)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isURLKey tells the url property (the tracker's outbound links and downloads) by its key,
// whatever its case and the spaces around it: "URL" and "url " hold URLs as "url" does.
func isURLKey(key string) bool { return strings.EqualFold(strings.TrimSpace(key), "url") }

// propText is a key or value as stored: sources.Redacted when it holds an e-mail address or a
// long run of digits (counted), else storable text cut to 255 characters, with PropSep written
// as a space. A url property (the tracker's outbound links and downloads) loses its query and
// fragment first: they are where addresses and tokens travel.
func (c *Collector) propText(s string, isURL bool) string {
	if isURL {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
	}
	if sources.Identifying(s) {
		c.Metrics.redactProp()
		return sources.Redacted
	}
	s = stats.Truncate(stats.Storable(s), stats.MaxPropStoredChars)
	return strings.ReplaceAll(s, stats.PropSep, " ")
}

// readRevenue reads an event's revenue ({"amount": 10.5 or "10.50", "currency": "EUR"}, or a
// JSON string holding it): the amount as kept (stats.Amount) and the currency; ok is false
// when there is none, and a revenue that is there but wrong is counted as dropped.
func (c *Collector) readRevenue(raw jsontext.Value) (amount, currency string, ok bool) {
	raw = present(raw)
	if raw == nil {
		return "", "", false
	}
	if raw.Kind() == '"' {
		var inner string
		if json.Unmarshal(raw, &inner) == nil {
			raw = jsontext.Value(inner)
		}
	}
	var rev plausibleRevenue
	if raw.Kind() == '{' && json.Unmarshal(raw, &rev, hitJSON) == nil && stats.Currency(rev.Currency) {
		var text string
		switch a := present(rev.Amount); {
		case a == nil:
		case a.Kind() == '0':
			text = string(a)
		case a.Kind() == '"':
			_ = json.Unmarshal(a, &text)
		}
		if amount, ok = stats.Amount(text); ok {
			return amount, rev.Currency, true
		}
	}
	c.Metrics.dropRevenue()
	return "", "", false
}

// revenuePart is an event's revenue as its row's part holds it: name, currency and amount
// separated by PropSep (the name may hold anything else).
func revenuePart(name, currency, amount string) string {
	return currency + stats.PropSep + amount + stats.PropSep + name
}

// splitRevenuePart is revenuePart's inverse.
func splitRevenuePart(part string) (name, currency, amount string) {
	currency, rest, _ := strings.Cut(part, stats.PropSep)
	amount, name, _ = strings.Cut(rest, stats.PropSep)
	return name, currency, amount
}
