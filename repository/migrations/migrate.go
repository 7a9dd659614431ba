// Package migrations holds the database's schema as SQL files, applied in file-name order by
// Migrate, each once (schema_migrations records them).
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Files are the migrations, embedded: NNNN_name.sql each.
//
//go:embed *.sql
var Files embed.FS

// migrationLockID is the advisory lock that serialises migrations, so that several instances
// starting at once apply each migration exactly once.
const migrationLockID = 7_273_111_001

// Migrate applies the embedded migrations that the database has not seen yet, each in its own
// transaction, in file-name order.
func Migrate(ctx context.Context, db *sqlx.DB) error {
	conn, err := db.Connx(ctx)
	if err != nil {
		return fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close()

	// A session-level lock on one connection: the whole run holds it, and it is released even
	// if the process dies, because the connection closes.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockID) //nolint:errcheck

	if _, err := conn.ExecContext(ctx, `
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version    text PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}

	names, err := fs.Glob(Files, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: list: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := applyMigration(ctx, conn, name); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, conn *sqlx.Conn, name string) error {
	version := strings.TrimSuffix(name, ".sql")
	var applied bool
	if err := conn.GetContext(ctx, &applied,
		`SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version); err != nil {
		return fmt.Errorf("migrate %s: check: %w", version, err)
	}
	if applied {
		return nil
	}
	body, err := Files.ReadFile(name)
	if err != nil {
		return fmt.Errorf("migrate %s: read: %w", version, err)
	}
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s: begin: %w", version, err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("migrate %s: apply: %w", version, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version); err != nil {
		return fmt.Errorf("migrate %s: record: %w", version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s: commit: %w", version, err)
	}
	return nil
}
