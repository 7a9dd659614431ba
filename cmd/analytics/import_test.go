package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/importer/plausible/plausibletest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// TestImportPlausibleCommand: the command imports an export and prints its summary; run again
// it adds nothing and says so; a bad file is an error (exit status 1) naming the problem.
func TestImportPlausibleCommand(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "site.test"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	export := plausibletest.Sample(time.Date(2024, 1, 30, 0, 0, 0, 0, time.UTC), 3)
	file := filepath.Join(dir, "site_test_20240201.zip")
	if err := os.WriteFile(file, export.Zip(), 0o600); err != nil {
		t.Fatal(err)
	}

	out, err := runCmd(t, "import", "plausible", "--website", "site.test", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"imported into site.test: 10 files, ",
		" 3 days (2024-01-30 to 2024-02-01), ",
		"303 visitors, 363 visits, 909 pageviews\n",
		`left out: visits of device "Laptop" (a screen size, not a device type): 90`,
		"changed: event names cut to 64 characters: 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, err = runCmd(t, "import", "plausible", "--website", "site.test", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " 0 days, 0 counters") || !strings.Contains(out, "skipped 3 days imported before: 2024-01-30..2024-02-01\n") {
		t.Errorf("second run:\n%s", out)
	}

	bad := filepath.Join(dir, "bad.zip")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "plausible", "--website", "site.test", bad}, "bad.zip: the file is not a readable zip archive"},
		{[]string{"import", "plausible", "--website", "other.test", file}, `no website has the domain "other.test"`},
		{[]string{"import", "plausible", "--website", "site.test", filepath.Join(dir, "missing.zip")}, "no such file"},
		{[]string{"import", "plausible", file}, "give --website DOMAIN and one FILE.zip"},
		{[]string{"import", "elsewhere"}, "unknown command"},
	} {
		if _, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}
