package stats

import (
	"strings"
	"unicode/utf8"
)

// PagePath is the one spelling of a page value (page, landing_page, exit_page), as collected
// and as imported: a browser sends /%C3%BCber-uns, an export may hold /über-uns, and both are
// stored, listed and exported as /über-uns, one row. The migration 0024_page_spelling.sql
// respells older rows with a SQL twin of this function (TestPageSpellingTwins keeps them equal).
//
// Decoded: an escape of an unreserved ASCII character (letters, digits, - . _ ~), the same
// URL either way; and the escapes of a UTF-8 character outside hiddenRune. Kept escaped, with
// upper-case hex: every other ASCII byte (/ ? # % & = + ; space, controls...: decoding them
// would change what the URL means or make it ambiguous), bytes that are not UTF-8, and the
// characters that print as nothing or reorder text. A % that starts no escape becomes %25 (so
// that decoding never makes a new escape: the spelling of a spelling is itself). Anything
// else is left as it is.
func PagePath(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c, ok := escapedByte(s, i)
		if !ok {
			if s[i] == '%' { // a % that starts no escape is one itself, so that none is made here
				b.WriteString("%25")
			} else {
				b.WriteByte(s[i])
			}
			i++
			continue
		}
		switch {
		case c < utf8.RuneSelf && unreserved(c):
			b.WriteByte(c)
			i += 3
		case c < utf8.RuneSelf:
			b.WriteString(upperEscape(s[i : i+3]))
			i += 3
		default:
			if r, n := escapedRune(s, i); n > 0 {
				b.WriteRune(r)
				i += n
			} else {
				b.WriteString(upperEscape(s[i : i+3]))
				i += 3
			}
		}
	}
	return b.String()
}

// escapedByte is the byte of the escape %XX at s[i], if there is one.
func escapedByte(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != '%' {
		return 0, false
	}
	hi, ok1 := hexValue(s[i+1])
	lo, ok2 := hexValue(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

// escapedRune is the character of the escapes of one UTF-8 sequence at s[i] and how many
// bytes of s they take; 0 when they are not one, or spell a hidden character.
func escapedRune(s string, i int) (rune, int) {
	var seq [utf8.UTFMax]byte
	n := 0
	for j := i; n < utf8.UTFMax; j += 3 {
		c, ok := escapedByte(s, j)
		if !ok || (n > 0 && c&0xC0 != 0x80) {
			break
		}
		seq[n] = c
		n++
		if utf8.FullRune(seq[:n]) {
			break
		}
	}
	r, size := utf8.DecodeRune(seq[:n])
	if r == utf8.RuneError || size != n || hiddenRune(r) {
		return 0, 0
	}
	return r, 3 * n
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func upperEscape(e string) string { return strings.ToUpper(e) }

// hiddenRune tells the characters a page value keeps escaped although they are UTF-8: they
// print as nothing or as blank, or reorder the text around them (C1 controls, no-break and
// other spaces, soft hyphen, zero-width and bidi marks, embeddings, overrides and isolates,
// fillers, the byte order mark, the specials block with U+FFFD, tags).
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0xA0, r == 0xAD, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x180E,
		r >= 0x2000 && r <= 0x200F, r >= 0x2028 && r <= 0x202F, r >= 0x205F && r <= 0x206F,
		r == 0x3000, r == 0x3164, r == 0xFEFF, r == 0xFFA0, r >= 0xFFF0 && r <= 0xFFFF, r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}
