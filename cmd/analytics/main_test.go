package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/website"
)

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCmdIn(t, "", args...)
}

// runCmdIn runs a command with stdin.
func runCmdIn(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return out.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestUserAndKeyCommands(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	repo := repository.New(db, nil)
	ctx := context.Background()

	out, err := runCmd(t, "user", "create", "--email", "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	first := lastLine(out)
	if !strings.HasPrefix(first, "pa_") || strings.ContainsAny(first, " \t") {
		t.Fatalf("last line %q is not a key alone", first)
	}
	owner, err := repo.UserIDByAPIKey(ctx, first)
	if err != nil {
		t.Fatalf("the printed key does not authenticate: %v", err)
	}

	out, err = runCmd(t, "key", "create", "--email", "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	second := lastLine(out)
	if id, err := repo.UserIDByAPIKey(ctx, second); err != nil || id != owner || second == first {
		t.Fatalf("second key %q: user %d, err %v", second, id, err)
	}

	if _, err := runCmd(t, "key", "revoke", first); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.UserIDByAPIKey(ctx, first); err == nil {
		t.Fatal("revoked key still authenticates")
	}
	if _, err := repo.UserIDByAPIKey(ctx, second); err != nil {
		t.Fatalf("revoking one key stopped the other: %v", err)
	}

	// Only the hash is stored.
	var stored int
	if err := db.Get(&stored, `SELECT count(*) FROM api_keys WHERE key_hash::text LIKE '%' || $1 || '%'`, second); err != nil || stored != 0 {
		t.Fatalf("the key is stored in clear (%d rows, %v)", stored, err)
	}

	for _, bad := range [][]string{
		{"user", "create", "--email", "owner@example.com"}, // exists
		{"key", "create", "--email", "nobody@example.com"}, // no such user
		{"key", "revoke", first},                           // already revoked
		{"user", "create"},                                 // no e-mail
		{"key", "revoke"},
		{"frobnicate"},
		{},
	} {
		if _, err := runCmd(t, bad...); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}

// TestKeyScopeFlag: --scope makes a key of that scope, for a new user and a new key alike;
// without it a key may do everything; an unknown scope is refused and makes no key.
func TestKeyScopeFlag(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	// Each command below makes one key: the newest.
	newestScope := func() string {
		t.Helper()
		var scope string
		if err := db.Get(&scope, `SELECT scope FROM api_keys ORDER BY id DESC LIMIT 1`); err != nil {
			t.Fatal(err)
		}
		return scope
	}
	keys := func() (n int) {
		t.Helper()
		if err := db.Get(&n, `SELECT count(*) FROM api_keys`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		args  []string
		scope string
	}{
		{[]string{"user", "create", "--email", "reader@example.com", "--scope", "stats:read"}, "stats:read"},
		{[]string{"key", "create", "--email", "reader@example.com", "--scope", "sites:provision"}, "sites:provision"},
		{[]string{"key", "create", "--email", "reader@example.com", "--scope", "stats:read"}, "stats:read"},
		{[]string{"key", "create", "--email", "reader@example.com"}, "sites:provision"},
	} {
		out, err := runCmd(t, c.args...)
		if err != nil || !strings.HasPrefix(lastLine(out), "pa_") {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if got := newestScope(); got != c.scope {
			t.Errorf("%v made a key of scope %q, want %q", c.args, got, c.scope)
		}
	}
	before := keys()
	for _, bad := range [][]string{
		{"key", "create", "--email", "reader@example.com", "--scope", "admin"},
		{"key", "create", "--email", "reader@example.com", "--scope", ""},
		{"user", "create", "--email", "other@example.com", "--scope", "stats:write"},
	} {
		if _, err := runCmd(t, bad...); err == nil || !strings.Contains(err.Error(), "--scope") {
			t.Errorf("%v: %v, want the --scope refusal", bad, err)
		}
	}
	if after := keys(); after != before {
		t.Errorf("refused --scope values made %d keys", after-before)
	}
}

func TestConfigNeedsDatabaseURLAndValidTZ(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	if _, err := runCmd(t, "migrate"); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("migrate without DATABASE_URL: %v", err)
	}
	t.Setenv("TZ", "Mars/Olympus_Mons")
	if _, err := runCmd(t, "migrate"); err == nil || !strings.Contains(err.Error(), "TZ") {
		t.Fatalf("bad TZ: %v", err)
	}
}

func TestParsePublicURL(t *testing.T) {
	good := map[string]string{
		"https://stats.example.com":      "https://stats.example.com",
		"https://stats.example.com/":     "https://stats.example.com",
		"http://localhost:8080":          "http://localhost:8080",
		"https://example.com/analytics/": "https://example.com/analytics",
		"https://example.com/a/b":        "https://example.com/a/b",
	}
	for in, want := range good {
		u, err := parsePublicURL(in)
		if err != nil || u.String() != want {
			t.Errorf("%q: %v, %v; want %q", in, u, err, want)
		}
	}
	for _, in := range []string{"stats.example.com", "ftp://example.com", "https://", "/stats",
		"https://u:p@example.com", "https://example.com/?x=1", "https://example.com/#top", "https://exa mple.com"} {
		if _, err := parsePublicURL(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	t.Setenv("PUBLIC_URL", "example.com")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "PUBLIC_URL") {
		t.Fatalf("loadConfig with a bad PUBLIC_URL: %v", err)
	}
}

func TestUserPasswordCommand(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	repo := repository.New(db, nil)
	ctx := context.Background()
	if _, err := runCmd(t, "user", "create", "--email", "owner@example.com"); err != nil {
		t.Fatal(err)
	}
	user, err := repo.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	session, err := repo.CreateSession(ctx, user.ID, time.Hour, "test")
	if err != nil {
		t.Fatal(err)
	}

	reset, _, ok, err := repo.CreateResetLink(ctx, "owner@example.com", time.Hour, 3, time.Hour)
	if err != nil || !ok {
		t.Fatalf("reset link: %v %v", ok, err)
	}

	// Only the first line counts, without its line ending; spaces inside are kept.
	if _, err := runCmdIn(t, "correct horse battery\r\nsecond line\n", "user", "password", "--email", "owner@example.com"); err != nil {
		t.Fatal(err)
	}
	_, hash, err := repo.UserPasswordHash(ctx, "owner@example.com")
	if err != nil || !website.VerifyPassword(hash, "correct horse battery") || strings.Contains(hash, "horse") {
		t.Fatalf("stored %q (%v): does not verify the first line, or holds it", hash, err)
	}
	if _, err := repo.SessionUser(ctx, session); !errors.Is(err, repository.ErrNotFound) {
		t.Fatalf("a session survived the new password: %v", err)
	}
	if _, err := repo.LinkByToken(ctx, reset); !errors.Is(err, repository.ErrNotFound) {
		t.Fatalf("a reset link survived the new password: %v", err)
	}

	bad := []struct {
		stdin string
		args  []string
		want  string
	}{
		{"short12\n", []string{"--email", "owner@example.com"}, "8 to 128"},
		{strings.Repeat("é", 129), []string{"--email", "owner@example.com"}, "8 to 128"},
		{"", []string{"--email", "owner@example.com"}, "8 to 128"},
		{"long enough\n", []string{"--email", "nobody@example.com"}, "no user"},
		{"long enough\n", nil, "--email"},
		{"long enough\n", []string{"--email", "owner@example.com", "extra"}, "--email"},
	}
	for _, b := range bad {
		_, err := runCmdIn(t, b.stdin, append([]string{"user", "password"}, b.args...)...)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("stdin %q args %v: error %v, want one mentioning %q", b.stdin, b.args, err, b.want)
		}
	}
	// A refused password leaves the stored one as it was.
	if _, after, _ := repo.UserPasswordHash(ctx, "owner@example.com"); after != hash {
		t.Fatal("a refused password changed the stored one")
	}
}

func TestLimitSettings(t *testing.T) {
	cfg, err := loadConfig()
	if err != nil || cfg.RateLimit != 50 || cfg.AuthFailLimit != 1 || cfg.EventRateLimit != 200 {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	t.Setenv("EVENT_RATE_LIMIT", "0")
	t.Setenv("API_AUTH_FAILURE_LIMIT", "0.5")
	if cfg, err := loadConfig(); err != nil || cfg.EventRateLimit != 0 || cfg.AuthFailLimit != 0.5 {
		t.Fatalf("set: %+v, %v", cfg, err)
	}
	for _, name := range []string{"EVENT_RATE_LIMIT", "API_AUTH_FAILURE_LIMIT", "API_RATE_LIMIT"} {
		t.Setenv(name, "-1")
		if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=-1: %v", name, err)
		}
		t.Setenv(name, "1")
	}
}

func TestAllowedHosts(t *testing.T) {
	t.Setenv("ALLOWED_HOSTS", "Stats.Example.com, localhost:8080")
	cfg, err := loadConfig()
	if err != nil || len(cfg.AllowedHosts) != 2 || cfg.AllowedHosts[0] != "stats.example.com" || cfg.AllowedHosts[1] != "localhost:8080" {
		t.Fatalf("ALLOWED_HOSTS: %q, %v", cfg.AllowedHosts, err)
	}
	if a := cfg.app(nil); len(a.AllowedHosts) != 2 {
		t.Fatalf("the service gets %q", a.AllowedHosts)
	}
	t.Setenv("ALLOWED_HOSTS", "https://stats.example.com")
	if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "ALLOWED_HOSTS") {
		t.Fatalf("loadConfig with a URL in ALLOWED_HOSTS: %v", err)
	}
}

// MAX_VALUES_PER_DAY is a whole number >= 1, 10,000 when unset: the limit cannot be turned off,
// and a value that is not one stops the start.
func TestMaxValuesPerDaySetting(t *testing.T) {
	if cfg, err := loadConfig(); err != nil || cfg.MaxValuesPerDay != 10_000 {
		t.Fatalf("default: %d, %v", cfg.MaxValuesPerDay, err)
	}
	t.Setenv("MAX_VALUES_PER_DAY", "250")
	if cfg, err := loadConfig(); err != nil || cfg.MaxValuesPerDay != 250 {
		t.Fatalf("MAX_VALUES_PER_DAY=250: %d, %v", cfg.MaxValuesPerDay, err)
	}
	for _, bad := range []string{"0", "-5", "1.5", "1e4", "lots", " 250"} {
		t.Setenv("MAX_VALUES_PER_DAY", bad)
		if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "MAX_VALUES_PER_DAY") {
			t.Errorf("MAX_VALUES_PER_DAY=%q: %v", bad, err)
		}
	}
}

// FACTS_RETENTION is 400 days when unset, and a start with a value out of 32..3660 (or not a
// number) stops with a message naming it.
func TestFactsRetentionSetting(t *testing.T) {
	if cfg, err := loadConfig(); err != nil || cfg.FactsRetention != 400 || cfg.app(nil).FactsRetention != 400 {
		t.Fatalf("default: %d, %v", cfg.FactsRetention, err)
	}
	for _, good := range []string{"32", "3660", "90"} {
		t.Setenv("FACTS_RETENTION", good)
		if cfg, err := loadConfig(); err != nil || fmt.Sprint(cfg.FactsRetention) != good {
			t.Errorf("FACTS_RETENTION=%s: %d, %v", good, cfg.FactsRetention, err)
		}
	}
	for _, bad := range []string{"31", "3661", "0", "-40", "400d", "1y"} {
		t.Setenv("FACTS_RETENTION", bad)
		if _, err := loadConfig(); err == nil || !strings.Contains(err.Error(), "FACTS_RETENTION") {
			t.Errorf("FACTS_RETENTION=%q: %v", bad, err)
		}
	}
}

// `user create --admin`, `key create --name`, and e-mail addresses compared without regard to
// case: the first user is an admin, a later one only with --admin, a name is stored, and an
// address taken in another case is refused.
func TestAdminAndKeyNameFlags(t *testing.T) {
	db, url := repotest.New(t)
	t.Setenv("DATABASE_URL", url)
	repo := repository.New(db, nil)
	ctx := context.Background()
	for _, args := range [][]string{
		{"user", "create", "--email", "first@example.com"},
		{"user", "create", "--email", "second@example.com"},
		{"user", "create", "--email", "third@example.com", "--admin"},
	} {
		if _, err := runCmd(t, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	for email, want := range map[string]bool{"first@example.com": true, "second@example.com": false, "third@example.com": true} {
		if u, err := repo.UserByEmail(ctx, email); err != nil || u.IsAdmin != want {
			t.Errorf("%s: admin %v (%v), want %v", email, u.IsAdmin, err, want)
		}
	}
	if _, err := runCmd(t, "user", "create", "--email", "First@Example.com"); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("an address taken in another case: %v", err)
	}
	if _, err := runCmd(t, "user", "create", "--email", "not an address"); err == nil {
		t.Fatal("a user with no address was created")
	}
	if _, err := runCmd(t, "key", "create", "--email", "SECOND@example.com", "--name", "deploy bot"); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.Get(&name, `SELECT k.name FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'second@example.com' AND k.name <> ''`); err != nil || name != "deploy bot" {
		t.Fatalf("key name %q (%v)", name, err)
	}
	for _, args := range [][]string{
		{"key", "create", "--email", "second@example.com", "--admin"},
		{"user", "create", "--email", "x@example.com", "--name", "n"},
		{"key", "create", "--email", "second@example.com", "--name", strings.Repeat("n", 101)},
	} {
		if _, err := runCmd(t, args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// analytics snippet prints the tag the pages show for a website, data-local on a local one
// (make run prints it for localhost), and needs no database.
func TestSnippetCommand(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	for _, c := range []struct{ domain, want string }{
		{"localhost", `<script async defer src="http://localhost:8080/js/script.js" data-host="http://localhost:8080" data-local></script>`},
		{"shop.test", `<script async defer src="http://localhost:8080/js/script.js" data-host="http://localhost:8080" data-local></script>`},
		{"example.com", `<script async defer src="http://localhost:8080/js/script.js" data-host="http://localhost:8080"></script>`},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"snippet", "--url", "http://localhost:8080", "--domain", c.domain}, nil, &out, nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(out.String()); got != c.want {
			t.Errorf("%s: %s, want %s", c.domain, got, c.want)
		}
	}
	for _, args := range [][]string{{"snippet"}, {"snippet", "--url", "ftp://x", "--domain", "a"}, {"snippet", "--url", "http://x"}} {
		if err := run(context.Background(), args, nil, io.Discard, nil); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	// make run prints it for the website it suggests.
	script, err := os.ReadFile("../../scripts/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `$(bin/analytics snippet --url "$public" --domain localhost)`) {
		t.Error("scripts/run.sh does not print the snippet of the localhost website it suggests")
	}
}
