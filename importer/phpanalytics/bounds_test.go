package phpanalytics_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/importer/phpanalytics"
)

// TestUnmappedValuesAreBounded: 3,000 distinct values with no counterpart are kept and counted
// under their statistic, and the summary shows the 20 most frequent, never all of them.
func TestUnmappedValuesAreBounded(t *testing.T) {
	f := newFixture(t)
	var values []string
	for d := range 50 { // the most frequent: one row a day
		values = append(values, fmt.Sprintf("(2, 'device', 'pda', 1, DATE_ADD('2024-01-01', INTERVAL %d DAY))", d))
	}
	for i := range 3000 {
		values = append(values, fmt.Sprintf("(2, 'device', 'gadget %04d', 1, '2024-01-01')", i))
	}
	f.exec(`INSERT INTO stats (website_id, name, value, count, date) VALUES ` + strings.Join(values, ", "))
	out, err := f.run(phpanalytics.Options{AppKey: appKey})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "  device: 3050\n    \"pda\": 50\n") || strings.Count(out, "\"gadget ") != 19 ||
		!strings.Contains(out, "... and more than 980 other values") {
		t.Errorf("the summary does not show the 20 most frequent values:\n%.3000s", out)
	}
}

// TestLongTextIsRefused: a website whose text (a customised MEDIUMTEXT column) passes 65,536
// characters fails, naming the column, with the value quoted cut to 80 characters; nothing of
// it is written, and the others are imported.
func TestLongTextIsRefused(t *testing.T) {
	f := newFixture(t)
	f.exec(`ALTER TABLE websites MODIFY exclude_params MEDIUMTEXT`)
	f.exec(`UPDATE websites SET exclude_params = REPEAT('p', 200000) WHERE id = 2`)
	out, err := f.run(phpanalytics.Options{AppKey: appKey})
	want := `failed: www.Shop.example.org (phpAnalytics website 2): websites.exclude_params is longer than 65536 characters ("` + strings.Repeat("p", 80) + `…")`
	if err == nil || !strings.Contains(out, want) || len(out) > 4000 {
		t.Fatalf("import: %v, want a line saying %q\n%.4000s", err, want, out)
	}
	if _, err := f.Repo.WebsiteByDomain(t.Context(), "shop.example.org"); err == nil {
		t.Error("the website with the long text was imported")
	}
	if _, err := f.Repo.WebsiteByDomain(t.Context(), "example.com"); err != nil {
		t.Errorf("the other websites were not imported: %v", err)
	}
}
