package main

import (
	"strings"
	"testing"

	"github.com/analytics-service/analytics/importer/phpanalytics/phpatest"
	"github.com/analytics-service/analytics/repository/repotest"
)

// TestImportPHPAnalyticsCommand: the command's flags and its errors, which main turns into exit status 1.
// The import itself is tested in importer/phpanalytics.
func TestImportPHPAnalyticsCommand(t *testing.T) {
	_, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	dsn, pa := phpatest.New(t)
	if _, err := pa.Exec(`INSERT INTO users (id, name, email) VALUES (1, 'O', 'owner@example.com')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pa.Exec(`INSERT INTO websites (id, user_id, domain) VALUES (1, 1, 'example.com')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pa.Exec(`INSERT INTO stats (website_id, name, value, count, date) VALUES (1, 'pageviews', '2024-05-06', 7, '2024-05-06')`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "import needs a source"},
		{[]string{"import", "matomo"}, `unknown command "import matomo"`},
		{[]string{"import", "phpanalytics"}, "import phpanalytics needs --dsn"},
		{[]string{"import", "phpanalytics", "--dsn", dsn, "extra"}, "unexpected"},
		{[]string{"import", "phpanalytics", "--dsn", dsn, "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"import", "phpanalytics", "--dsn", "u:p@tcp(127.0.0.1:1)/pa?timeout=2s"}, "cannot connect to the phpAnalytics database"},
	} {
		if out, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q\n%s", c.args, err, c.want, out)
		}
	}
	out, err := runCmd(t, "import", "phpanalytics", "--dsn", dsn, "--dry-run")
	if err != nil || !strings.Contains(out, "summary: would import (dry run, nothing written) 1 websites, 1 rows, 1 days") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	// The DSN and the key from the environment, out of the process list.
	t.Setenv("PHPANALYTICS_DSN", dsn)
	out, err = runCmd(t, "import", "phpanalytics", "--dry-run")
	if err != nil || !strings.Contains(out, "summary: would import (dry run, nothing written) 1 websites") {
		t.Fatalf("dry run with PHPANALYTICS_DSN: %v\n%s", err, out)
	}
	t.Setenv("PHPANALYTICS_APP_KEY", "base64:not*base64")
	if _, err := runCmd(t, "import", "phpanalytics", "--dry-run"); err == nil || !strings.Contains(err.Error(), "not base64") {
		t.Fatalf("a bad PHPANALYTICS_APP_KEY: %v", err)
	}
	t.Setenv("PHPANALYTICS_DSN", "")
	t.Setenv("PHPANALYTICS_APP_KEY", "")
	// A dry run without DATABASE_URL reads all the same; it cannot tell what exists here.
	t.Setenv("DATABASE_URL", "")
	out, err = runCmd(t, "import", "phpanalytics", "--dsn", dsn, "--dry-run")
	if err != nil || !strings.Contains(out, "example.com: would be imported for owner@example.com") {
		t.Fatalf("dry run without DATABASE_URL: %v\n%s", err, out)
	}
	if _, err := runCmd(t, "import", "phpanalytics", "--dsn", dsn); err == nil || !strings.Contains(err.Error(), "DATABASE_URL is not set") {
		t.Fatalf("an import without DATABASE_URL: %v", err)
	}
	t.Setenv("DATABASE_URL", url)
	out, err = runCmd(t, "import", "phpanalytics", "--dsn", dsn)
	if err != nil || !strings.Contains(out, "example.com: imported for owner@example.com") ||
		!strings.Contains(out, "summary: imported 1 websites, 1 rows, 1 days; 0 skipped, 0 failed") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	// Not a terminal: no progress line, only the lines and the summary.
	if strings.Contains(out, "\r") {
		t.Errorf("a progress line went to a pipe:\n%q", out)
	}
}
