package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// TestImportGoatCounterCommand: the command imports a GoatCounter export (a real one, gzipped)
// and prints its summary; run again it adds nothing and says so; a bad file is an error (exit
// status 1) that names the problem and imports nothing.
func TestImportGoatCounterCommand(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "stats.example.test"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("..", "..", "importer", "goatcounter", "testdata", "goatcounter-postgres.csv.gz")
	out, err := runCmd(t, "import", "goatcounter", "--website", "stats.example.test", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"imported into stats.example.test: 17 rows (hits), 3 days (2026-02-10 to 2026-02-12), ",
		"7 visitors, 8 visits, 13 pageviews, 2 events\n",
		"left out or changed (no counterpart here):\n",
		"  hits GoatCounter recorded as a bot's (not counted, as bots are not here): 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runCmd(t, "import", "goatcounter", "--website", "stats.example.test", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " 0 days, 0 counters") || !strings.Contains(out, "skipped 3 days imported before: 2026-02-10..2026-02-12\n") {
		t.Errorf("second run:\n%s", out)
	}
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.csv")
	if err := os.WriteFile(v1, []byte("1Path,Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "goatcounter", "--website", "stats.example.test", v1}, `v1.csv: the file is a GoatCounter export of format version "1"; only version 2`},
		{[]string{"import", "goatcounter", "--website", "other.test", file}, `no website has the domain "other.test"`},
		{[]string{"import", "goatcounter", file}, "give --website DOMAIN and one FILE.csv (or FILE.csv.gz)"},
	} {
		if _, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := runCmd(t, "import", "goatcounter", "--website", "stats.example.test", v1); err == nil || !strings.HasSuffix(err.Error(), "; nothing was imported") {
		t.Errorf("a refused file: %v, want it to say nothing was imported", err)
	}
}
