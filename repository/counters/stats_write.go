package counters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// The counters' writer: a batch's counts added to the daily counters and their rollups.

// StatCount is an amount to add to one daily counter.
type StatCount struct {
	WebsiteID int64
	Name      string
	Date      time.Time // the calendar day; only year, month and day are used
	Value     string
	Count     int64
}

// DefaultMaxValuesPerDay is how many distinct values a website's statistic keeps a day unless
// configured otherwise (MAX_VALUES_PER_DAY).
const DefaultMaxValuesPerDay = 10_000

// Added is what a batch write (AddVisitBatch) did.
type Added struct {
	// Applied is false when the batch id was claimed before: nothing was added.
	Applied bool
	// Overflow is the part of the counts added to stats.Other instead of to their own values,
	// new on a day that had no room left for them.
	Overflow int64
	// RowsDropped is the visit rows of the batch not written: their day had no partition
	// (visit_rows), or their website was deleted, or the write would have taken its row past
	// the bounds of a row (stats.MaxRowHits...).
	RowsDropped int
	// RowsOverDay is the writes of visit rows not written because their website's rows of
	// that day had taken what VisitBatch.RowBytesPerDay lets them.
	RowsOverDay int
	// RowWritesCut is the writes of rows that carried more than a row may hold, written
	// without their hits, properties, revenue and engagement.
	RowWritesCut int
	// PropsOverCap is the property pairs of its visit rows written as stats.Other: a new key
	// or value on a day whose website had no room left for it (docs/properties.md).
	PropsOverCap int64
}

// claimBatch records a batch id in tx, telling whether it was new: a batch id already claimed
// was written before (by an attempt whose answer was lost) and must add nothing, so that a
// writer that does not know whether its last attempt committed can simply retry it.
func claimBatch(ctx context.Context, tx *sqlx.Tx, id string) (bool, error) {
	var claimed []string
	const claim = `INSERT INTO ingest_batches (id, created_at) VALUES ($1, now()) ON CONFLICT (id) DO NOTHING RETURNING id`
	if err := tx.SelectContext(ctx, &claimed, claim, id); err != nil {
		return false, fmt.Errorf("stats.claim_batch: %w", err)
	}
	return len(claimed) == 1, nil
}

// RefusedContent tells whether err is PostgreSQL refusing what a write carried: a value it
// cannot store or compare (class 22, data exception), a constraint (23), a size past its
// limits (54), or an internal error, which values cause (XX000: "invalid memory alloc request
// size" of a value near 1 GB). A retry of the same write would fail the same way. Any other
// error (the database away or restarting, a conflict, a timeout, too many connections, a
// statement of ours that no longer fits the schema) is one a retry may outlive, or that no
// part of the write is to blame for.
func RefusedContent(err error) bool {
	var pe *pq.Error
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code.Class() {
	case "22", "23", "54":
		return true
	}
	return pe.Code == "XX000"
}

// ErrorCode is the SQLSTATE of a PostgreSQL error in err, "" for any other error.
func ErrorCode(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// ForgetBatches deletes batch ids older than a cutoff; no retry is that late.
func (r *Repository) ForgetBatches(ctx context.Context, before time.Time) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM ingest_batches WHERE created_at < $1`, before); err != nil {
		return fmt.Errorf("stats.forget_batches: %w", err)
	}
	return nil
}

// negativeBase encodes a negative delta -d as negativeBase + d in the count column of the rows
// an INSERT proposes: PostgreSQL checks the tables' CHECK (count > 0) on the proposed row
// before ON CONFLICT turns it into an update, so a plain -1 could never reach an existing row.
// No real count comes near 2^62.
const negativeBase = int64(1) << 62

// addStats adds counts to the daily counters, and to the weekly and monthly rollups of the
// periods already rolled up (a late write; see RollUp), in one statement (addStatsSQL), and
// deletes the rows its negative counts brought to 0 in one more a table, when there are. It is
// the counters' part of the stats writer (WriteBatch), which runs it in the transaction that
// claimed the batch. Counts of websites deleted meanwhile are dropped. Rows are written in key
// order so that concurrent writers (several ingest nodes) take row locks in the same order and
// cannot deadlock; the input may repeat a key.
//
// A website's statistic keeps at most maxValues distinct values a day (besides stats.Other;
// maxValues <= 0 means DefaultMaxValuesPerDay): a value not stored yet, on a day that has no
// room left for it, is counted under stats.Other instead, in the day and in its rollups alike,
// so every count is still added once. When a day has room for some of the batch's new values,
// the most counted ones take it. Values already stored keep counting under themselves. The
// number of values a day holds is read from stats_value_counts (kept up to date by this
// statement from the rows it inserts), and only a day that this batch could take past the
// limit looks its values up, so a batch far from the limit costs one index probe a day more.
// Writers that flush at once each see the count before the others commit and may together pass
// the limit by the new values of their batches.
//
// The websites written for are locked FOR KEY SHARE first, which DeleteWebsite's delete of the
// row waits for (and which updates, taking FOR NO KEY UPDATE, do not): a delete that comes first
// commits before the lock is granted, and the website's counts are dropped; one that comes later
// waits for this write and then deletes its rows too. Either way no row outlives its website.
//
// A negative count (a visit's exit page that moved, a bounce that ended) must be the only one of
// its key in counts; it is applied to its value's row when that exists, else to stats.Other's
// when that exists (its +1 was counted there), else dropped, and a row it brings to 0 (or below,
// which a correct writer never causes) is deleted: the tables keep count > 0.
func addStats(ctx context.Context, tx *sqlx.Tx, counts []StatCount, maxValues int) (Added, error) {
	return addStatsBy(ctx, tx, addStatsSQL, counts, maxValues)
}

// addStatsBy is addStats with its statements (addStatsStatement of some tables).
func addStatsBy(ctx context.Context, tx *sqlx.Tx, w statsWriter, counts []StatCount, maxValues int) (Added, error) {
	if len(counts) == 0 {
		return Added{Applied: true}, nil
	}
	if maxValues <= 0 {
		maxValues = DefaultMaxValuesPerDay
	}
	ids := make([]int64, len(counts))
	names := make([]string, len(counts))
	dates := make([]string, len(counts))
	values := make([]string, len(counts))
	amounts := make([]int64, len(counts))
	// The rows of each website, statistic and day: an upper bound of the new values the batch
	// brings to that day. Counted here rather than by the statement, which would aggregate the
	// whole batch once more.
	type day struct {
		id         int64
		name, date string
	}
	days := make(map[day]int64, 512)
	for i, c := range counts {
		amount := c.Count
		if amount < 0 {
			amount = negativeBase - amount
		}
		ids[i], names[i], dates[i], values[i], amounts[i] =
			c.WebsiteID, c.Name, c.Date.Format(dateLayout), c.Value, amount
		days[day{ids[i], names[i], dates[i]}]++
	}
	dayIDs := make([]int64, 0, len(days))
	dayNames := make([]string, 0, len(days))
	dayDates := make([]string, 0, len(days))
	dayRows := make([]int64, 0, len(days))
	for d, n := range days {
		dayIDs, dayNames, dayDates, dayRows = append(dayIDs, d.id), append(dayNames, d.name), append(dayDates, d.date), append(dayRows, n)
	}
	var overflow, encoded int64
	zeroed := make([]zeroedKeys, len(w.tables))
	dest := []any{&overflow, &encoded}
	for i := range zeroed {
		z := &zeroed[i]
		dest = append(dest, &z.ids, &z.names, &z.periods, &z.values)
	}
	err := tx.QueryRowContext(ctx, w.sql, pq.Array(ids), pq.Array(names), pq.Array(dates),
		pq.Array(values), pq.Array(amounts), maxValues, stats.Other,
		pq.Array(dayIDs), pq.Array(dayNames), pq.Array(dayDates), pq.Array(dayRows), negativeBase).Scan(dest...)
	if err != nil {
		return Added{}, fmt.Errorf("stats.add: %w", err)
	}
	if encoded > 0 {
		// A negative count met no row (its row was deleted after this statement's snapshot
		// saw it, which the writers' own rules exclude) and was inserted as its encoding:
		// refused, so that the transaction rolls back rather than store it.
		return Added{}, fmt.Errorf("stats.add: %d negative counts found no row", encoded)
	}
	for i, t := range w.tables {
		z := zeroed[i]
		if len(z.ids) == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, w.deletes[i], z.ids, z.names, z.periods, z.values); err != nil {
			return Added{}, fmt.Errorf("stats.add: delete rows at 0 of %s: %w", t.table, err)
		}
	}
	return Added{Applied: true, Overflow: overflow}, nil
}

// zeroedKeys are the keys of a table's rows that a batch's negative counts brought to 0
// (countTable.zeroedColumns), to delete.
type zeroedKeys struct {
	ids                    pq.Int64Array
	names, periods, values pq.StringArray
}

// addStatsSQL is addStats' statements, made once from the tables' declarations and never
// changed (a test of another declaration passes its own statements to addStatsBy).
var addStatsSQL = addStatsStatement(countTables)

// statsWriter is addStats' statements for its tables: the one that adds the counts and names
// the rows brought to 0, and each table's delete of those rows.
type statsWriter struct {
	sql     string
	tables  []countTable
	deletes []string
}

// addStatsStatement makes addStats' statements writing tables (the daily one first): the parts
// that write each table of counters are made from its declaration. The statement's parameters:
// $1..$5 the counts (website, name, day, value, count with negatives encoded), $6 maxValues,
// $7 stats.Other, $8..$11 the days of the batch with their number of rows, $12 negativeBase;
// it answers one row: the overflow, the negative counts inserted as their encoding, and for
// each table the keys of the rows brought to 0 (countTable.zeroedColumns), which its delete
// takes.
func addStatsStatement(tables []countTable) statsWriter {
	var through []string
	for _, t := range tables {
		if t.through != "" {
			through = append(through, t.through)
		}
	}
	var b strings.Builder
	b.WriteString(`
		WITH live AS (
			SELECT w.id
			FROM websites w
			WHERE w.id = ANY($1::bigint[])
			ORDER BY w.id
			FOR KEY SHARE OF w
		), signed AS (
			SELECT t.website_id, t.name, t.date, t.value COLLATE "C" AS value,
				CASE WHEN t.count >= $12 THEN $12 - t.count ELSE t.count END AS count
			FROM unnest($1::bigint[], $2::text[], $3::date[], $4::text[], $5::bigint[])
				AS t (website_id, name, date, value, count)
			WHERE t.website_id IN (SELECT id FROM live)
		), routed AS (
			-- A negative count goes to its value's row, or to (other) when its +1 went there.
			SELECT website_id, name, date, count, CASE
				WHEN count > 0 OR EXISTS (SELECT 1 FROM stats s
					WHERE s.website_id = g.website_id AND s.name = g.name AND s.date = g.date AND s.value = g.value) THEN value
				WHEN EXISTS (SELECT 1 FROM stats s
					WHERE s.website_id = g.website_id AND s.name = g.name AND s.date = g.date AND s.value = $7) THEN $7
				END AS value
			FROM signed g
		), input AS (
			SELECT website_id, name, date, value COLLATE "C" AS value, sum(count)::bigint AS count
			FROM routed
			WHERE value IS NOT NULL
			GROUP BY 1, 2, 3, 4
			HAVING sum(count) <> 0
		), near AS MATERIALIZED (
			-- The days this batch could take past the limit, were all its values new; usually
			-- none. A subquery a day, so that each is an index probe, never a scan of the
			-- counts of every day.
			SELECT website_id, name, date, $6 - held AS room
			FROM (
				SELECT d.website_id, d.name, d.date, d.n, coalesce((
					SELECT c.value_count FROM stats_value_counts c
					WHERE c.website_id = d.website_id AND c.name = d.name AND c.date = d.date), 0) AS held
				FROM unnest($8::bigint[], $9::text[], $10::date[], $11::bigint[]) AS d (website_id, name, date, n)
				OFFSET 0 -- not merged into the query above, which would probe twice
			) AS days
			WHERE held + n > $6
		), over AS MATERIALIZED (
			-- Their new values past the room left, the most counted first in.
			SELECT website_id, name, date, value, count
			FROM (
				SELECT i.website_id, i.name, i.date, i.value, i.count, n.room,
					row_number() OVER (PARTITION BY i.website_id, i.name, i.date ORDER BY i.count DESC, i.value) AS rank
				FROM near n
				JOIN input i ON i.website_id = n.website_id AND i.name = n.name AND i.date = n.date
				WHERE i.value <> $7 AND NOT EXISTS (
					SELECT 1 FROM stats s
					WHERE s.website_id = i.website_id AND s.name = i.name AND s.date = i.date AND s.value = i.value)
			) AS fresh
			WHERE rank > room
		), capped AS NOT MATERIALIZED (
			-- The input, with the values past the limit counted under (other): as it is when
			-- there are none (the one-time filters skip the other branch). Not materialized:
			-- its readers read the input through it rather than a copy of the batch.
			SELECT website_id, name, date, value, count
			FROM input
			WHERE NOT EXISTS (SELECT 1 FROM over)
			UNION ALL
			SELECT i.website_id, i.name, i.date, coalesce(o.other, i.value), sum(i.count)::bigint
			FROM input i
			LEFT JOIN (SELECT website_id, name, date, value, $7 AS other FROM over) AS o
				USING (website_id, name, date, value)
			WHERE EXISTS (SELECT 1 FROM over)
			GROUP BY 1, 2, 3, 4
			HAVING sum(i.count) <> 0
		), rolled AS (
			SELECT ` + strings.Join(through, ", ") + ` FROM rollup_state FOR KEY SHARE
		)`)
	encoded := make([]string, len(tables))
	zeroed := make([]string, len(tables))
	for i, t := range tables {
		b.WriteString(t.writerCTEs())
		encoded[i] = `(SELECT count(*) FROM ` + t.cte + ` WHERE count >= $12)`
		zeroed[i] = t.zeroedColumns()
	}
	b.WriteString(`
		SELECT (SELECT coalesce(sum(count), 0) FROM over)::bigint AS overflow,
			` + strings.Join(encoded, " + ") + ` AS encoded,
			` + strings.Join(zeroed, ",\n\t\t\t"))
	w := statsWriter{sql: b.String(), tables: tables}
	for _, t := range tables {
		w.deletes = append(w.deletes, t.zeroedDeleteSQL())
	}
	return w
}
