// Package phpatest gives each test its own phpAnalytics database on a throw-away MariaDB, with
// phpAnalytics' schema (schema.sql, written from its migrations' definitions).
//
// MARIADB_DSN names the server (go-sql-driver/mysql form, no database); `make test` starts a
// throw-away instance (scripts/mariadb.sh) and sets it. Without it tests fail, saying so: a
// test that needs MariaDB never skips.
package phpatest

import (
	"context"
	"crypto/rand"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

//go:embed schema.sql
var schema string

// ServerDSN returns MARIADB_DSN or fails the test.
func ServerDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("MARIADB_DSN")
	if dsn == "" {
		t.Fatal("MARIADB_DSN is not set: the phpAnalytics import's tests need a real MariaDB. Run them with scripts/test.sh " +
			"(or `make test`), which starts a throw-away one (the mariadb-server package: scripts/mariadb.sh install).")
	}
	return dsn
}

// New creates a database with phpAnalytics' schema and returns its DSN and an open handle;
// the database is dropped when the test ends.
func New(t testing.TB) (string, *sql.DB) {
	t.Helper()
	cfg, err := mysql.ParseDSN(ServerDSN(t))
	if err != nil {
		t.Fatalf("MARIADB_DSN: %v", err)
	}
	ctx := context.Background()
	admin := open(t, cfg.FormatDSN())
	defer admin.Close()
	name := "pa_" + suffix()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		drop := open(t, cfg.FormatDSN())
		defer drop.Close()
		if _, err := drop.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	cfg.DBName = name
	dsn := cfg.FormatDSN()
	db := open(t, dsn)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range strings.Split(schema, ";\n") {
		if strings.TrimSpace(stripComments(stmt)) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("phpAnalytics schema: %v\n%s", err, stmt)
		}
	}
	return dsn, db
}

func open(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("open MariaDB: %v", err)
	}
	// The server may still be starting when the first test runs.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.Ping()
		if err == nil {
			return db
		}
		if time.Now().After(deadline) {
			t.Fatalf("MariaDB at MARIADB_DSN does not answer: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func suffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ReadOnly creates an account that may only SELECT in the database of dsn (a DSN of New) and
// returns a DSN that connects with it: what the import needs and all it needs. The account is
// dropped when the test ends.
func ReadOnly(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, dsn)
	defer db.Close()
	user := "ro_" + suffix()
	for _, q := range []string{
		"CREATE USER '" + user + "'@'localhost' IDENTIFIED BY 'read-only'",
		"GRANT SELECT ON " + cfg.DBName + ".* TO '" + user + "'@'localhost'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		drop := open(t, dsn)
		defer drop.Close()
		if _, err := drop.Exec("DROP USER '" + user + "'@'localhost'"); err != nil {
			t.Errorf("drop user %s: %v", user, err)
		}
	})
	cfg.User, cfg.Passwd = user, "read-only"
	return cfg.FormatDSN()
}
