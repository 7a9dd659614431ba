package repository_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository/repotest"
)

// A table holding a website's data is one with a website_id column: counters, visit rows,
// day membership, imports, realtime, and whatever comes later (goals, funnels). Sharded by
// website_id (Citus distributed tables, docs/scaling.md), PostgreSQL can enforce a primary key
// or unique index of such a table only when it includes website_id, and a foreign key between
// two of them only when both sides include it; a foreign key from one of them to a table
// without website_id (a reference table: users, websites) is fine, one from a reference table
// to one of them is not. This test reads the migrated schema and fails on any of these.
func TestSchemaCanBeShardedByWebsite(t *testing.T) {
	db, _ := repotest.New(t)
	sharded := websiteTables(t, db)
	if len(sharded) < 8 {
		t.Fatalf("only %d tables with website_id: %v", len(sharded), sharded)
	}
	var problems []string
	problems = append(problems, uniqueWithoutWebsite(t, db)...)
	problems = append(problems, foreignKeysAcrossShards(t, db, sharded)...)
	for _, p := range problems {
		t.Error(p)
	}

	// The checks see what they must: tables a later migration could add the wrong way.
	for _, ddl := range []string{
		`CREATE TABLE probe_goals (id bigserial PRIMARY KEY, website_id bigint NOT NULL, name text NOT NULL)`,
		`CREATE UNIQUE INDEX probe_goals_name ON probe_goals (name)`,
		`CREATE TABLE probe_steps (website_id bigint NOT NULL, goal_id bigint NOT NULL REFERENCES probe_goals (id))`,
		`CREATE TABLE probe_notes (goal_id bigint REFERENCES probe_goals (id))`,
	} {
		db.MustExec(ddl)
	}
	sharded = websiteTables(t, db)
	found := strings.Join(append(uniqueWithoutWebsite(t, db), foreignKeysAcrossShards(t, db, sharded)...), "\n")
	for _, want := range []string{"on probe_goals: CREATE UNIQUE INDEX probe_goals_pkey", "on probe_goals: CREATE UNIQUE INDEX probe_goals_name",
		"from probe_steps to probe_goals does not pair", "from probe_notes (no website_id) to probe_goals"} {
		if !strings.Contains(found, want) {
			t.Errorf("the checks miss %q; they found:\n%s", want, found)
		}
	}
	names := make([]string, 0, len(sharded))
	for n := range sharded {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("tables sharded by website_id: %s", strings.Join(names, ", "))
}

// websiteTables are the tables (partitioned parents included, their partitions not) with a
// website_id column.
func websiteTables(t *testing.T, db *sqlx.DB) map[string]bool {
	t.Helper()
	var names []string
	err := db.Select(&names, `
		SELECT c.relname
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'website_id' AND NOT a.attisdropped
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// uniqueWithoutWebsite are the primary keys and unique indexes of website tables (and of
// their partitions) that leave website_id out.
func uniqueWithoutWebsite(t *testing.T, db *sqlx.DB) []string {
	t.Helper()
	var rows []struct {
		Table string `db:"table_name"`
		Index string `db:"index_name"`
		Def   string `db:"def"`
	}
	err := db.Select(&rows, `
		SELECT c.relname AS table_name, i.relname AS index_name, pg_get_indexdef(x.indexrelid) AS def
		FROM pg_index x
		JOIN pg_class c ON c.oid = x.indrelid
		JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		JOIN pg_attribute w ON w.attrelid = c.oid AND w.attname = 'website_id' AND NOT w.attisdropped
		WHERE x.indisunique AND NOT w.attnum = ANY (x.indkey::int2[])
		ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, "unique index without website_id on "+r.Table+": "+r.Def)
	}
	return out
}

// foreignKeysAcrossShards are the foreign keys a shard-by-website_id layout would refuse:
// between two website tables without website_id = website_id among their column pairs, and
// from a table without website_id to a website table.
func foreignKeysAcrossShards(t *testing.T, db *sqlx.DB, sharded map[string]bool) []string {
	t.Helper()
	var rows []struct {
		From      string `db:"from_table"`
		To        string `db:"to_table"`
		Name      string `db:"conname"`
		ByWebsite bool   `db:"by_website"`
	}
	err := db.Select(&rows, `
		SELECT f.relname AS from_table, r.relname AS to_table, k.conname,
			EXISTS (
				SELECT 1 FROM unnest(k.conkey, k.confkey) AS p (src, dst)
				JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = p.src
				JOIN pg_attribute b ON b.attrelid = k.confrelid AND b.attnum = p.dst
				WHERE a.attname = 'website_id' AND b.attname = 'website_id'
			) AS by_website
		FROM pg_constraint k
		JOIN pg_class f ON f.oid = k.conrelid
		JOIN pg_class r ON r.oid = k.confrelid
		JOIN pg_namespace n ON n.oid = f.relnamespace AND n.nspname = current_schema()
		WHERE k.contype = 'f' AND NOT f.relispartition AND k.conparentid = 0
		ORDER BY 1, 3`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		switch {
		case sharded[r.From] && sharded[r.To] && !r.ByWebsite:
			out = append(out, "foreign key "+r.Name+" from "+r.From+" to "+r.To+" does not pair website_id with website_id")
		case !sharded[r.From] && sharded[r.To]:
			out = append(out, "foreign key "+r.Name+" from "+r.From+" (no website_id) to "+r.To+", a table sharded by website_id")
		}
	}
	return out
}
