package plausible_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
	"github.com/analytics-service/analytics/stats"
)

// imported_sources fills source, channel and the tags as the collector would name them: a
// known source in the list's spelling, Direct / None as direct, the export's channel when it
// has one, else the rules'; tags cut, made storable and redacted, never refused.
func TestImportSourcesAndChannels(t *testing.T) {
	e := newEnv(t)
	export := plausibletest.Sample(first, 1)
	day := first.Format("2006-01-02")
	long := strings.Repeat("t", 300)
	csv := plausibletest.CSV([][]string{
		{"date", "source", "referrer", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "channel", "pageviews", "visitors", "visits", "visit_duration", "bounces"},
		{day, "Direct / None", "", "", "", "", "", "", "Direct", "9", "4", "5", "60", "2"},
		{day, "google", "", "google", "cpc", "spring", "", "", "Paid Search", "6", "3", "3", "30", "1"},
		{day, "ig", "", "ig", "", "", "me@example.com", long, "", "4", "2", "2", "20", "1"},
		{day, "Newsletter", "", "newsletter", "email", "", "\xff", "", "", "2", "1", "1", "10", "0"},
	})
	files := map[string][]byte{}
	for name, rows := range export.Files {
		files[name] = plausibletest.CSV(rows)
	}
	files[export.FileName("sources")] = csv
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, b := range files {
		w, _ := z.Create(name)
		_, _ = w.Write(b)
	}
	_ = z.Close()
	if _, err := e.importZip(buf.Bytes(), plausible.Options{}); err != nil {
		t.Fatal(err)
	}
	r := stats.Range{From: first, To: first}
	for name, want := range map[string]plausibletest.Counts{
		"source":       {"": 5, "Google": 3, "Instagram": 2, "Newsletter": 1},
		"channel":      {"Direct": 5, "Paid Search": 3, "Organic Social": 2, "Email": 1},
		"utm_source":   {"google": 3, "ig": 2, "newsletter": 1},
		"utm_medium":   {"cpc": 3, "email": 1},
		"utm_campaign": {"spring": 3},
		"utm_term":     {long[:255]: 2},
		"utm_content":  {"(redacted)": 2, "\uFFFD": 1},
	} {
		if got := e.stat(name, r); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}
