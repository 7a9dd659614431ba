// Package pgsettings holds the PostgreSQL settings of the service's statements, in this one
// place: those of every connection (Session, sent at startup), those of every read of the
// visit rows (Read, for its transaction: repository.readRows) and the one read that turns
// hashing off (WithoutHashAgg). Why each has its value is said here; what it saved is
// measured by the benchmarks (docs/engine.md).
package pgsettings

import (
	"context"
	neturl "net/url"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Session are PostgreSQL settings of the service's connections. Its statements read
// pre-aggregated rows, tens of thousands at most: parallel workers cost more to start than
// they save on a small server, and JIT compilation, which PostgreSQL starts for costly plans
// such as a ten-year range, takes tens of milliseconds before the first row (docs/engine.md).
var Session = [][2]string{{"max_parallel_workers_per_gather", "0"}, {"jit", "off"}}

// WithSession adds Session to a connection string (With).
func WithSession(conn string) string { return With(conn, Session) }

// With adds settings to a connection string, as run-time parameters lib/pq sends at
// startup; a setting the string already has is left as it is. It takes the URL form
// (postgres://...?k=v) and the key=value form.
func With(conn string, settings [][2]string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := neturl.Parse(conn)
		if err != nil {
			return conn // lib/pq reports it
		}
		q := u.Query()
		for _, kv := range settings {
			if !q.Has(kv[0]) {
				q.Set(kv[0], kv[1])
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, kv := range settings {
		if !strings.Contains(conn, kv[0]+"=") {
			conn = strings.TrimSpace(conn + " " + kv[0] + "=" + kv[1])
		}
	}
	return conn
}

// Read are the settings of a read of the visit rows, for its transaction:
//   - work_mem: memory enough for its hash tables and sorts (a month of a busy website's pages
//     sorts about 4 MB, past the default);
//   - no parallel workers, which on a small server slowed one read down (they contend with the
//     dashboard's other reads for the same cores) rather than up;
//   - no JIT compilation, whose cost (PostgreSQL 15 compiles plans past jit_above_cost, as a
//     month of rows is) exceeded what the compiled code saved, even where the connection's
//     string turned it on;
//   - no Memoize, which cached each visit's unnested pages by the whole array, rarely finding
//     one.
var Read = [][2]string{
	{"work_mem", "64MB"}, {"max_parallel_workers_per_gather", "0"}, {"jit", "off"}, {"enable_memoize", "off"},
}

// ReadSQL sets Read for the transaction.
var ReadSQL = func() string {
	parts := make([]string, len(Read))
	for i, kv := range Read {
		parts[i] = "set_config('" + kv[0] + "', '" + kv[1] + "', true)"
	}
	return "SELECT " + strings.Join(parts, ", ")
}()

// WithoutHashAgg runs read in tx with hash aggregation off, and turns it back on for the
// transaction's next statements: for a read whose rows the primary key already yields grouped
// (repeatedVisitorDays), which PostgreSQL estimates cheaper to hash but streams faster.
func WithoutHashAgg(ctx context.Context, tx *sqlx.Tx, read func() error) error {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('enable_hashagg', 'off', true)`); err != nil {
		return err
	}
	if err := read(); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `SELECT set_config('enable_hashagg', 'on', true)`)
	return err
}
