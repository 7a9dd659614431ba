package ingest

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// scanPlausible reads Plausible's tracker body as its trackers write it into p: one flat
// object of its short keys (n, u, d, r, $, p, h, i, e, sd, and v, which is ignored), each once,
// strings without escapes, numbers as JSON writes them. It answers false for anything else
// (another key or letter case, a repeated key, an escape, a value of another type, a null e or
// sd, bytes that are not UTF-8), and json.Unmarshal then decodes the body as before: so where
// it answers true, p holds what Unmarshal would have put there (TestScanPlausibleAsUnmarshal).
//
// Why: the reflective decoder spends ~700 ns on an engagement body, which made an engagement
// hit cost more than a pageview (docs/cost-of-a-hit.md).
func scanPlausible(body []byte, p *plausibleFast) bool {
	cache := shortTexts.Get().(*shortStrings)
	defer shortTexts.Put(cache)
	s := plausibleScanner{b: body, cache: cache}
	if !s.byte('{') {
		return false
	}
	var seen uint16
	if s.byte('}') {
		return s.end()
	}
	for {
		key, ok := s.key()
		if !ok || seen&(1<<key) != 0 || !s.byte(':') {
			return false
		}
		seen |= 1 << key
		if !s.value(key, p) {
			return false
		}
		if s.byte('}') {
			return s.end()
		}
		if !s.byte(',') {
			return false
		}
	}
}

// The keys scanPlausible reads, as bits of its seen set.
const (
	keyN = iota
	keyU
	keyD
	keyR
	keyDollar
	keyP
	keyH
	keyI
	keyE
	keySD
	keyV
)

// plausibleKeys are the keys' texts, quotes included, in the order of the constants above.
var plausibleKeys = [...]string{`"n"`, `"u"`, `"d"`, `"r"`, `"$"`, `"p"`, `"h"`, `"i"`, `"e"`, `"sd"`, `"v"`}

type plausibleScanner struct {
	b     []byte
	i     int
	cache *shortStrings
}

// shortStrings keep the short texts lately read (the event's name, the domain), so that the
// same name or domain again costs no allocation, as the JSON decoder's own cache of short
// strings does. 16 strings of at most 32 bytes a pooled cache.
type shortStrings [16]string

var shortTexts = sync.Pool{New: func() any { return new(shortStrings) }}

// text is b as a string, the cached one when it is the same.
func (c *shortStrings) text(b []byte) string {
	if len(b) == 0 || len(b) > 32 {
		return string(b)
	}
	i := (uint(len(b)) + uint(b[0])*7 + uint(b[len(b)-1])*31) % uint(len(c))
	if c[i] != string(b) { // compared without a copy
		c[i] = string(b)
	}
	return c[i]
}

// space skips JSON's white space.
func (s *plausibleScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c after white space, if it is next.
func (s *plausibleScanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end is true when only white space is left.
func (s *plausibleScanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *plausibleScanner) key() (int, bool) {
	s.space()
	rest := s.b[s.i:]
	for k, text := range plausibleKeys {
		if len(rest) >= len(text) && string(rest[:len(text)]) == text {
			s.i += len(text)
			return k, true
		}
	}
	return 0, false
}

// value reads the value of key into the field of p it fills. On false p is left half read:
// the caller starts again from a zero p.
func (s *plausibleScanner) value(key int, p *plausibleFast) (ok bool) {
	s.space()
	switch key {
	case keyN:
		p.N, ok = s.text()
	case keyU:
		p.U, ok = s.text()
	case keyD:
		p.D, ok = s.text()
	case keyR:
		p.R, ok = s.text()
	case keyE:
		p.E, ok = s.number()
	case keySD:
		p.SD, ok = s.number()
	case keyDollar:
		p.Dollar, ok = s.copied()
	case keyP:
		p.P, ok = s.copied()
	case keyH:
		p.H, ok = s.copied()
	case keyI:
		p.I, ok = s.copied()
	case keyV:
		_, ok = s.raw(false)
	}
	return ok
}

// copied is a JSON value of any type as its own bytes: Unmarshal copies too, and the body's
// buffer is reused.
func (s *plausibleScanner) copied() (jsontext.Value, bool) {
	raw, ok := s.raw(true)
	return bytes.Clone(raw), ok
}

// text reads a string (a null is "", as Unmarshal makes it) without escapes or control bytes.
func (s *plausibleScanner) text() (string, bool) {
	if s.literal("null") {
		return "", true
	}
	span, ok := s.plainString()
	return s.cache.text(span), ok
}

// plainString is the content of a string without escapes or control bytes, in valid UTF-8.
func (s *plausibleScanner) plainString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], utf8.Valid(s.b[start:j])
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (s *plausibleScanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// number reads a JSON number as Unmarshal reads it into a float64; false for one out of
// float64's range, which Unmarshal refuses.
func (s *plausibleScanner) number() (float64, bool) {
	span, ok := s.numberSpan()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(span), 64)
	return v, err == nil
}

// numberSpan is a number of JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *plausibleScanner) numberSpan() ([]byte, bool) {
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return nil, false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *plausibleScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// raw reads a scalar (a plain string, a number, true, false or null), or with nested an
// object or array that jsontext checks as Unmarshal would; its text as written.
func (s *plausibleScanner) raw(nested bool) ([]byte, bool) {
	start := s.i
	if s.i >= len(s.b) {
		return nil, false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.plainString()
		return s.b[start:s.i], ok
	case c == '-' || '0' <= c && c <= '9':
		_, ok := s.numberSpan()
		return s.b[start:s.i], ok
	case s.literal("true"), s.literal("false"), s.literal("null"):
		return s.b[start:s.i], true
	case nested && (c == '{' || c == '['):
		end, ok := nestedEnd(s.b, s.i)
		if !ok || !jsontext.Value(s.b[s.i:end]).IsValid(hitJSON) {
			return nil, false
		}
		s.i = end
		return s.b[start:end], true
	}
	return nil, false
}

// nestedEnd is the index after the object or array starting at i, found by its brackets
// outside strings; jsontext checks the rest.
func nestedEnd(b []byte, i int) (int, bool) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return 0, false
}
