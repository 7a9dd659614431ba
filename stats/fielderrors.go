package stats

import (
	"strings"
	"unicode/utf8"
)

// FieldErrors are the refusals of a request's input, by field (a query parameter or a form
// field), each saying what the value must be: {"per_page": ["must be one of 10, 25, 50, 100"]}.
// The API answers them as the errors of its 422 body, and the pages show them beside the field
// or as sentences ("per_page must be one of 10, 25, 50, 100").
type FieldErrors map[string][]string

// Add records one more refusal of a field.
func (f FieldErrors) Add(field, message string) { f[field] = append(f[field], message) }

// TextRule is the refusal of a parameter that PostgreSQL could not store or compare.
const TextRule = "must be UTF-8 text without NUL characters"

// ValidText tells whether s is text PostgreSQL can store and compare: UTF-8 without NUL.
func ValidText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Storable makes text one PostgreSQL can store, for values that are recorded rather than
// refused (a stranger's hit, an imported row): NUL and invalid UTF-8 become U+FFFD. PostgreSQL
// refuses both, and one such value would fail the whole batch written with it.
func Storable(s string) string {
	if ValidText(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// Truncate cuts s to at most n characters without splitting one: how a value longer than the
// stats keep (255 characters) is recorded.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
