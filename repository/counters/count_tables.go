package counters

import (
	"fmt"
	"strings"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// countTable declares a table of counters: the daily counters (stats) and their weekly and
// monthly rollups, which hold the same rows summed over a period. The stats writer's upsert of
// each table, its deletion of the rows a negative count brings to zero, and RollUp's rebuild of
// a rollup are made from this declaration (at init): for the writer, a new rollup is one more
// entry (TestNewRollupIsOneDeclaration); RollUp and the reads name the rollups they use.
type countTable struct {
	table string // "stats_weekly"
	cte   string // the name of its upsert in the writer's statement: "weekly"
	// period is the key column naming the period ("date", "week", "month"); the keys are
	// website_id, name, period, value.
	period string
	// periodOf is the SQL of the period holding the day `date` ("" for the daily table).
	periodOf string
	// through is rollup_state's column holding the first day of the last period rolled up: a
	// write adds to the rollup only the days up to the end of that period, the later ones are
	// summed by RollUp once their period has ended ("" for the daily table, which takes every
	// day).
	through string
	// months and days are the length of a period.
	months, days int
}

var (
	dailyCounts  = countTable{table: "stats", cte: "daily", period: "date"}
	weeklyCounts = countTable{table: "stats_weekly", cte: "weekly", period: "week",
		periodOf: "date_trunc('week', date)::date", through: "weeks_through", days: 7}
	monthlyCounts = countTable{table: "stats_monthly", cte: "monthly", period: "month",
		periodOf: "date_trunc('month', date)::date", through: "months_through", months: 1}
	// countTables are written by every batch, in this order (the order in which writers lock
	// their rows).
	countTables = []countTable{dailyCounts, weeklyCounts, monthlyCounts}
)

// keys is the table's key, its ON CONFLICT target.
func (t countTable) keys() string { return "website_id, name, " + t.period + ", value" }

// input is the writer's CTE holding the rows to add to the table: the capped batch itself for
// the daily table, its sums by period for a rollup.
func (t countTable) input() string {
	if t.periodOf == "" {
		return "capped"
	}
	return t.cte + "_input"
}

// writerCTEs is the part of the stats writer's statement (addStatsSQL.sql) that adds the capped
// batch to the table: the sums by period of the days it takes (rollups only), the upsert, and
// the deletion of the rows brought to 0 or below. $12 is negativeBase, $7 stats.Other.
func (t countTable) writerCTEs() string {
	var b strings.Builder
	if t.periodOf != "" {
		// A comparison of the day, not a truncation a row, picks the days it takes.
		b.WriteString(`, ` + t.input() + ` AS (
			SELECT website_id, name, ` + t.periodOf + ` AS ` + t.period + `, value, sum(count)::bigint AS count
			FROM capped
			WHERE date < (SELECT (` + t.through + ` + interval '` + t.length() + `')::date FROM rolled)
			GROUP BY 1, 2, 3, 4
			HAVING sum(count) <> 0
		)`)
	}
	// The upsert's RETURNING: added tells an inserted row (xmax is 0 in a row this statement
	// inserted, and this transaction's id in one it updated, as ON CONFLICT locks the row
	// first: PostgreSQL's behaviour since 9.5, which TestValueCapConcurrently checks);
	// only the daily table's value counts read it. count lets the statement check that no
	// negative count was inserted as its encoding.
	b.WriteString(`, ` + t.cte + ` AS (
			INSERT INTO ` + t.table + ` AS s (` + t.keys() + `, count)
			SELECT ` + t.keys() + `, CASE WHEN count < 0 THEN $12 - count ELSE count END
			FROM ` + t.input() + `
			ORDER BY 1, 2, 3, 4
			ON CONFLICT (` + t.keys() + `)
			DO UPDATE SET count = s.count + ` + decoded + `
			WHERE s.count + ` + decoded + ` > 0
			RETURNING ` + t.keys() + `, xmax = 0 AND value <> $7 AS added, count
		)`)
	if t == dailyCounts {
		b.WriteString(valueCountsCTE)
	}
	same := func(a, b string) string {
		return a + `.website_id = ` + b + `.website_id AND ` + a + `.name = ` + b + `.name AND ` +
			a + `.` + t.period + ` = ` + b + `.` + t.period + ` AND ` + a + `.value = ` + b + `.value`
	}
	// The rows a negative count brings to 0 or below, which the upsert locked and left as they
	// were (so they are not in its RETURNING): named here, deleted by the next statement
	// (zeroedDeleteSQL). Not deleted by this one: its snapshot may hold an older version of
	// such a row (another node lowered it since), and a DELETE of this statement must then
	// reach the locked version through PostgreSQL's recheck of updated rows (EvalPlanQual).
	// That DELETE (joined to this statement's CTEs) deleted the first such row and silently
	// skipped the others, on PostgreSQL 15: their -1 was lost, an exit page counted twice
	// (TestCountsOfTwoWritersAtOnce). Reading the upsert's rows makes this run after it.
	b.WriteString(`, ` + t.cte + `_zeroed AS (
			SELECT c.website_id, c.name, c.` + t.period + ` AS period, c.value
			FROM ` + t.input() + ` c
			WHERE c.count < 0
				AND NOT EXISTS (SELECT 1 FROM ` + t.cte + ` d WHERE ` + same("d", "c") + `)
		)`)
	return b.String()
}

// zeroedColumns are the columns of the writer's statement that name the table's rows to
// delete (<cte>_zeroed): their keys as four arrays, empty when none.
func (t countTable) zeroedColumns() string {
	from := ` FROM ` + t.cte + `_zeroed)`
	return `(SELECT coalesce(array_agg(website_id), '{}')` + from + `, (SELECT coalesce(array_agg(name), '{}')` + from +
		`, (SELECT coalesce(array_agg(period), '{}')` + from + `, (SELECT coalesce(array_agg(value), '{}')` + from
}

// zeroedDeleteSQL deletes the rows of the table that the writer's statement named (zeroed
// columns, $1..$4), in the same transaction, which holds their locks: a new statement sees
// the version it locked, as no other writer can change it meanwhile.
func (t countTable) zeroedDeleteSQL() string {
	return `DELETE FROM ` + t.table + ` s
		USING unnest($1::bigint[], $2::text[], $3::date[], $4::text[]) AS k (website_id, name, period, value)
		WHERE s.website_id = k.website_id AND s.name = k.name AND s.` + t.period + ` = k.period AND s.value = k.value`
}

// valueCountsCTE adds the values the daily upsert inserted to stats_value_counts: rows in key
// order, after every stats row (an aggregate of the upsert's rows), as in every writer, so that
// writers cannot deadlock.
const valueCountsCTE = `, counted AS (
			INSERT INTO stats_value_counts AS c (website_id, name, date, value_count)
			SELECT website_id, name, date, count(*)
			FROM daily
			WHERE added
			GROUP BY 1, 2, 3
			ORDER BY 1, 2, 3
			ON CONFLICT (website_id, name, date)
			DO UPDATE SET value_count = c.value_count + EXCLUDED.value_count
		)`

// decoded is the delta of a proposed row (EXCLUDED) in ON CONFLICT: its count, or the negative
// count that negativeBase ($12) encodes.
const decoded = `CASE WHEN EXCLUDED.count >= $12 THEN $12 - EXCLUDED.count ELSE EXCLUDED.count END`

// rebuildSQL is RollUp's statements for the rollup's periods of the days $1..$2 (whole
// periods): delete their rows, then insert the sums of the daily rows.
func (t countTable) rebuildSQL() (clear, insert string) {
	clear = `DELETE FROM ` + t.table + ` WHERE ` + t.period + ` BETWEEN $1 AND $2`
	insert = `
		INSERT INTO ` + t.table + ` (` + t.keys() + `, count)
		SELECT website_id, name, ` + t.periodOf + `, value, sum(count)::bigint
		FROM ` + dailyCounts.table + `
		WHERE date BETWEEN $1 AND $2
		GROUP BY 1, 2, 3, 4
		ORDER BY 1, 2, 3, 4`
	return clear, insert
}

// rebuildWebsiteSQL is rebuildSQL for one website ($1) only (a deletion of days, DeleteStats):
// clear deletes its rows of the periods starting from $2 to $3, insert adds the sums of its
// daily rows of the days $2 to $3.
func (t countTable) rebuildWebsiteSQL() (clear, insert string) {
	clear = `DELETE FROM ` + t.table + ` WHERE website_id = $1 AND ` + t.period + ` BETWEEN $2 AND $3`
	insert = `
		INSERT INTO ` + t.table + ` (` + t.keys() + `, count)
		SELECT website_id, name, ` + t.periodOf + `, value, sum(count)::bigint
		FROM ` + dailyCounts.table + `
		WHERE website_id = $1 AND date BETWEEN $2 AND $3
		GROUP BY 1, 2, 3, 4
		ORDER BY 1, 2, 3, 4`
	return clear, insert
}

// periodStart is the first day of the period that holds day.
func (t countTable) periodStart(day time.Time) time.Time {
	if t.months > 0 {
		return stats.MonthStart(day)
	}
	return stats.WeekStart(day)
}

// length is the SQL interval of a period.
func (t countTable) length() string {
	return fmt.Sprintf("%d months %d days", t.months, t.days)
}

// periodsAfter is the first and last day of the periods after the one starting on through, up
// to and including the one starting on last: what RollUp rebuilds.
func (t countTable) periodsAfter(through, last time.Time) (first, end time.Time) {
	return through.AddDate(0, t.months, t.days), last.AddDate(0, t.months, t.days-1)
}
