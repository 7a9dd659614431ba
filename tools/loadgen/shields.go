package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// benchShields are the shields the benchmarks give each website (make bench-hitcost with
// BENCH_SHIELDS=1, BenchmarkCollectorShields): 50 blocked countries, 50 page patterns and 20
// allowed hostnames, chosen so that the traffic passes every one of them: every hit is then
// checked against all three lists and still counted (the costliest case). The countries are
// small territories that random addresses seldom locate in (a hit that lands in one is
// ignored; the scripts subtract those from what must be stored); half the patterns start as
// the traffic's pages do, so that their index does not spare them; the website's own domain
// is the last hostname tried.
func benchShields(domain string) map[string]string {
	countries := []string{"AD", "AG", "AI", "AQ", "AS", "AW", "AX", "BL", "BM", "BQ", "BV", "CC", "CK", "CW", "CX",
		"DM", "FK", "FM", "FO", "GD", "GG", "GI", "GL", "GS", "HM", "IM", "IO", "JE", "KI", "KN", "KY", "LC", "LI",
		"MF", "MH", "MP", "MS", "NF", "NR", "NU", "PM", "PN", "PW", "SH", "SJ", "SM", "SX", "TC", "TF", "TK"}
	var pages []string
	for _, s := range sections { // 24 patterns in the traffic's own sections
		pages = append(pages, "/"+s+"/x-draft-*", "/"+s+"/*/preview")
	}
	for i := len(pages); i < 50; i++ {
		pages = append(pages, fmt.Sprintf("/internal-%02d/*|/staging-%02d", i, i))
	}
	var hosts []string
	for i := 1; i < 20; i++ {
		hosts = append(hosts, fmt.Sprintf("*.cdn%02d.example.net", i))
	}
	hosts = append(hosts, domain)
	return map[string]string{
		"block_countries":   strings.Join(countries, "\n"),
		"block_pages":       strings.Join(pages, "\n"),
		"allowed_hostnames": strings.Join(hosts, "\n"),
	}
}

// printShields writes a website's benchShields as one JSON object, the fields of its API form.
func printShields(domain string, w io.Writer) error {
	return json.NewEncoder(w).Encode(benchShields(domain))
}
