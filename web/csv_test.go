package web

import (
	"strings"
	"testing"
)

// A value that a spreadsheet would read as a formula is written after a quote: one starting
// with =, +, -, @, a tab or a carriage return, also after leading spaces. Others are as stored.
func TestSpreadsheetSafe(t *testing.T) {
	for v, want := range map[string]string{
		"=1+1":          "'=1+1",
		"   =1+1":       "'   =1+1",
		" +2":           "' +2",
		"  -3":          "'  -3",
		" @SUM(A1)":     "' @SUM(A1)",
		"\tx":           "'\tx",
		"  \tx":         "'  \tx",
		"\r=1":          "'\r=1",
		" \r":           "' \r",
		"/page":         "/page",
		"  /page":       "  /page",
		"   ":           "   ",
		"":              "",
		"a=1":           "a=1",
		"https://x.com": "https://x.com",
	} {
		if got := spreadsheetSafe(v); got != want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", v, got, want)
		}
	}
}

// A field that holds any list separator a spreadsheet may split on (comma, semicolon, tab), a
// quote or a line break is quoted, so it stays one cell in every locale; the rest are bare.
func TestCSVField(t *testing.T) {
	for v, want := range map[string]string{
		"x;=1+2;":       `"x;=1+2;"`,
		"a,b":           `"a,b"`,
		"a\tb":          "\"a\tb\"",
		`say "hi"`:      `"say ""hi"""`,
		"a\rb":          "\"a\rb\"",
		"a\nb":          "\"a\nb\"",
		" lead":         `" lead"`,
		"trail ":        `"trail "`,
		"=1;2":          `"'=1;2"`,
		"\tTab":         "\"'\tTab\"",
		"/plain":        "/plain",
		"https://x.com": "https://x.com",
		"":              "",
	} {
		if got := CSVField(v); got != want {
			t.Errorf("CSVField(%q) = %q, want %q", v, got, want)
		}
	}
}

// Rows end in CRLF and separate fields with commas.
func TestCSVRows(t *testing.T) {
	var b strings.Builder
	c := NewCSV(&b)
	c.Row("value", "count")
	c.Row("x;=1+2;", "1")
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "value,count\r\n\"x;=1+2;\",1\r\n"; b.String() != want {
		t.Fatalf("%q, want %q", b.String(), want)
	}
}
