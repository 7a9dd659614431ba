package web

import (
	"bufio"
	"io"
	"strings"
)

// CSV writes the service's CSV files (RFC 4180, CRLF line ends) for people who open them in a
// spreadsheet. Every export writes through it, so every file is defused and quoted alike:
// a stranger's page path or campaign reaches these files, and a spreadsheet must show it as
// text in one cell, never run it or split it.
type CSV struct {
	out *bufio.Writer
}

// NewCSV writes to w, buffered: call Flush at the end.
func NewCSV(w io.Writer) *CSV {
	return &CSV{out: bufio.NewWriterSize(w, 32<<10)}
}

// Row writes one line of fields, each as CSVField makes it.
func (c *CSV) Row(fields ...string) {
	for i, f := range fields {
		if i > 0 {
			c.out.WriteByte(',')
		}
		c.out.WriteString(CSVField(f))
	}
	c.out.WriteString("\r\n")
}

// Flush writes what is buffered; its error is the writer's (a client that went away).
func (c *CSV) Flush() error { return c.out.Flush() }

// CSVField is one field as the files hold it: defused (spreadsheetSafe), then in double quotes,
// with its quotes doubled, when it holds a comma, a semicolon, a tab, a quote, a carriage
// return or a line feed, or starts or ends with a space (which some readers trim). RFC 4180
// asks quotes only for commas, quotes and line breaks; but a spreadsheet in a locale whose
// list separator is ";" (German, French) or that guesses tabs splits an unquoted field there,
// and the piece after the separator, a cell of its own, would run as a formula ("x;=1+2").
// A quoted field stays one cell whatever the separator. A line break inside a value is
// written as it is stored (not made CRLF), so the file holds every value exactly.
func CSVField(v string) string {
	v = spreadsheetSafe(v)
	if v == "" || !(strings.ContainsAny(v, ",;\t\"\r\n") || v[0] == ' ' || v[len(v)-1] == ' ') {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// spreadsheetSafe defuses formula injection (OWASP "CSV injection"): a value starting with =,
// +, -, @, tab or carriage return, after any leading spaces (which spreadsheets skip), would
// run as a formula when the file is opened in a spreadsheet, so such a value is written after
// a single quote, which spreadsheets show as text. Every other value is written exactly as
// stored.
func spreadsheetSafe(v string) string {
	if rest := strings.TrimLeft(v, " "); rest != "" && strings.ContainsRune("=+-@\t\r", rune(rest[0])) {
		return "'" + v
	}
	return v
}
