package website

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestShieldListsNormalised(t *testing.T) {
	cases := []struct {
		name      string
		normalise func(string) (string, []string)
		in, want  string
	}{
		{"countries", normaliseBlockCountries, " de\r\nUS\n\nde\nCn", "DE\nUS\nCN"},
		{"pages", normaliseBlockPages, "/admin/*\n /preview|/draft/* \n/admin/*", "/admin/*\n/preview|/draft/*"},
		{"hostnames", normaliseAllowedHostnames, "WWW.Example.com.\n*.example.com\nmünchen.de\n[::1]\n2001:DB8::1\nexample.com",
			"example.com\n*.example.com\nxn--mnchen-3ya.de\n::1\n2001:db8::1"},
		{"empty", normaliseBlockPages, "\n \r\n", ""},
	}
	for _, c := range cases {
		got, bad := c.normalise(c.in)
		if got != c.want || bad != nil {
			t.Errorf("%s: %q, %q; want %q", c.name, got, bad, c.want)
		}
	}
}

// Every refused line is named by its number as typed, with why; a list with one has no value.
func TestShieldListRefusals(t *testing.T) {
	cases := []struct {
		name      string
		normalise func(string) (string, []string)
		in        string
		want      []string
	}{
		{"countries", normaliseBlockCountries, "DE\nXX\n\nGermany\nD\x00E", []string{
			`line 2 ("XX") is not a country code (ISO 3166-1 alpha-2, such as DE or US)`,
			`line 4 ("Germany") is not a country code (ISO 3166-1 alpha-2, such as DE or US)`,
			`line 5 ` + stats.TextRule}},
		{"pages", normaliseBlockPages, "admin/*\n/a|b\n/" + strings.Repeat("p", 255) + "\n/a||/b\n/\xff", []string{
			`line 1 ("admin/*") must start with / (and so must each alternative after |)`,
			`line 2 ("/a|b") must start with / (and so must each alternative after |)`,
			`line 3 ("/` + strings.Repeat("p", 79) + `…") is longer than 255 characters`,
			`line 4 ("/a||/b") must start with / (and so must each alternative after |)`,
			`line 5 ` + stats.TextRule}},
		{"hostnames", normaliseAllowedHostnames, "https://example.com\nexa mple.com\n-x.com\nexample.com/a\n*", []string{
			`line 1 ("https://example.com") is not a host name (letters, digits, hyphens and dots; * for any part, as in *.example.com)`,
			`line 2 ("exa mple.com") is not a host name (letters, digits, hyphens and dots; * for any part, as in *.example.com)`,
			`line 3 ("-x.com") is not a host name (letters, digits, hyphens and dots; * for any part, as in *.example.com)`,
			`line 4 ("example.com/a") is not a host name (letters, digits, hyphens and dots; * for any part, as in *.example.com)`}},
	}
	for _, c := range cases {
		got, bad := c.normalise(c.in)
		if got != "" || !slices.Equal(bad, c.want) {
			t.Errorf("%s: %q,\n%q;\nwant\n%q", c.name, got, bad, c.want)
		}
	}
}

// A list past its bound is refused whole, saying the bound; at the bound it is taken.
func TestShieldListBounds(t *testing.T) {
	codes := make([]string, 0, len(stats.Countries))
	for code := range stats.Countries {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	lines := func(n int, line func(i int) string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = line(i)
		}
		return strings.Join(out, "\n")
	}
	cases := []struct {
		name      string
		normalise func(string) (string, []string)
		limit     int
		line      func(i int) string
	}{
		{"countries", normaliseBlockCountries, MaxBlockedCountries, func(i int) string { return codes[i%len(codes)] }},
		{"pages", normaliseBlockPages, MaxBlockedPages, func(i int) string { return fmt.Sprintf("/p%d/*", i) }},
		{"hostnames", normaliseAllowedHostnames, MaxAllowedHostnames, func(i int) string { return fmt.Sprintf("h%d.example.com", i) }},
	}
	if MaxBlockedCountries != len(stats.Countries) {
		t.Errorf("MaxBlockedCountries %d, but GeoLite2 names %d countries", MaxBlockedCountries, len(stats.Countries))
	}
	for _, c := range cases {
		if got, bad := c.normalise(lines(c.limit, c.line)); bad != nil || len(Lines(got)) != c.limit {
			t.Errorf("%s: %d entries refused: %q", c.name, c.limit, bad)
		}
		_, bad := c.normalise(lines(c.limit+1, c.line))
		if want := fmt.Sprintf("has %d entries: at most %d", c.limit+1, c.limit); len(bad) != 1 || bad[0] != want {
			t.Errorf("%s: %d entries: %q, want %q", c.name, c.limit+1, bad, want)
		}
	}
	// A long list of bad lines names the first ones and counts the rest.
	_, bad := normaliseBlockPages(lines(500, func(int) string { return "x" }))
	if len(bad) != maxRefusals+2 || bad[0] != "has 500 entries: at most 100" || bad[len(bad)-1] != "and 480 more lines refused" {
		t.Errorf("500 bad lines: %d messages, first %q, last %q", len(bad), bad[0], bad[len(bad)-1])
	}
}
