package pages

import "testing"

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
