package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
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
		"left out (no counterpart here):\n",
		"  visits of a device that is a screen size, not a device type: 90\n    \"Laptop\": 90\n",
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

// TestImportPlausibleCommandBounds: what is left out is printed as its 20 most frequent values
// per reason, not one line a value; a line over 64 KiB and a duplicated column are refused
// naming the file, line and column, the value quoted in a message cut to 80 characters.
func TestImportPlausibleCommandBounds(t *testing.T) {
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
	write := func(name string, files map[string]string) string {
		t.Helper()
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for n, content := range files {
			w, err := z.Create(n)
			if err == nil {
				_, err = io.WriteString(w, content)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const visitors = "date,visitors,pageviews,bounces,visits,visit_duration\n"
	var devices strings.Builder
	devices.WriteString("date,device,visits\n2024-01-01,Laptop,900\n")
	for i := range 20_000 {
		fmt.Fprintf(&devices, "2024-01-01,Screen %05d,1\n", i)
	}
	many := write("many.zip", map[string]string{"imported_visitors.csv": visitors + "2024-01-01,1,1,0,1,10\n", "imported_devices.csv": devices.String()})
	out, err := runCmd(t, "import", "plausible", "--website", "site.test", many)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n > 40 || !strings.Contains(out, "  visits of a device that is a screen size, not a device type: 20900\n    \"Laptop\": 900\n") ||
		!strings.Contains(out, "... and more than 980 other values") {
		t.Errorf("output of %d lines:\n%.3000s", n, out)
	}

	for _, c := range []struct{ name, visitors, want string }{
		{"long.zip", visitors + "2024-01-02,1," + strings.Repeat("A", 70_000) + ",0,1,10\n",
			"imported_visitors.csv, line 2, column pageviews: the line is longer than 64 KiB"},
		{"count.zip", visitors + "2024-01-02,1," + strings.Repeat("A", 1_000) + ",0,1,10\n",
			`imported_visitors.csv, line 2, column pageviews: "` + strings.Repeat("A", 80) + `…" is not a count`},
		{"twice.zip", "date,visitors,pageviews,bounces,visits,visit_duration,visits\n2024-01-02,1,1,0,1,10,1\n",
			`imported_visitors.csv: the column "visits" is in the header twice (columns 5 and 7)`},
	} {
		_, err := runCmd(t, "import", "plausible", "--website", "site.test", write(c.name, map[string]string{"imported_visitors.csv": c.visitors}))
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 400 {
			t.Errorf("%s: error %.500v, want a short one saying %q", c.name, err, c.want)
		}
	}
}
