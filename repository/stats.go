package repository

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

const dateLayout = "2006-01-02"

// StatCount is an amount to add to one daily counter.
type StatCount struct {
	WebsiteID int64
	Name      string
	Date      time.Time // the calendar day; only year, month and day are used
	Value     string
	Count     int64
}

// StatEntry is one value of a statistic with its count over a range.
type StatEntry struct {
	Value string `db:"value"`
	Count int64  `db:"count"`
}

// StatQuery selects one page of a statistic's values (Reader.List).
type StatQuery struct {
	Name   stats.Name
	Search string // literal, case-insensitive substring of value; "" for all
	SortBy string // "count" or "value"
	Desc   bool
	Limit  int // 0 or less: every value (the CSV export)
	Offset int
	// Property: with Name stats.Property, the key whose values to list; "" lists the keys.
	Property string
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
// periods already rolled up (a late write; see RollUp), in one statement (addStatsSQL). It is
// the counters' part of the stats writer (writeBatch), which runs it in the transaction that
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
	var out struct {
		Overflow int64 `db:"overflow"`
		Encoded  int64 `db:"encoded"`
	}
	err := tx.GetContext(ctx, &out, addStatsSQL, pq.Array(ids), pq.Array(names), pq.Array(dates),
		pq.Array(values), pq.Array(amounts), maxValues, stats.Other,
		pq.Array(dayIDs), pq.Array(dayNames), pq.Array(dayDates), pq.Array(dayRows), negativeBase)
	if err != nil {
		return Added{}, fmt.Errorf("stats.add: %w", err)
	}
	if out.Encoded > 0 {
		// A negative count met no row (its row was deleted after this statement's snapshot
		// saw it, which the writers' own rules exclude) and was inserted as its encoding:
		// refused, so that the transaction rolls back rather than store it.
		return Added{}, fmt.Errorf("stats.add: %d negative counts found no row", out.Encoded)
	}
	return Added{Applied: true, Overflow: out.Overflow}, nil
}

// addStatsSQL is addStats' statement.
var addStatsSQL = addStatsStatement(countTables)

// addStatsStatement makes addStats' statement writing tables (the daily one first): the parts
// that write each table of counters are made from its declaration. Its parameters: $1..$5 the
// counts (website, name, day, value, count with negatives encoded), $6 maxValues, $7
// stats.Other, $8..$11 the days of the batch with their number of rows, $12 negativeBase.
func addStatsStatement(tables []countTable) string {
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
	for i, t := range tables {
		b.WriteString(t.writerCTEs())
		encoded[i] = `(SELECT count(*) FROM ` + t.cte + ` WHERE count >= $12)`
	}
	b.WriteString(`
		SELECT (SELECT coalesce(sum(count), 0) FROM over)::bigint AS overflow,
			` + strings.Join(encoded, " + ") + ` AS encoded`)
	return b.String()
}

// List sums a statistic over the range and returns one page of values with the number of
// distinct values in all. Whole calendar months inside the range are read from the monthly
// rollup, the partial months at its edges from the daily table.
func (c counterReader) List(ctx context.Context, q StatQuery) ([]StatEntry, int64, error) {
	if q.Name == stats.Property { // no counters: only the visit rows hold properties
		return rowReader{repo: c.repo, websiteID: c.websiteID, days: c.days, goal: &goalFilter{}}.List(ctx, q)
	}
	from, args, err := c.repo.rangeRows(ctx, c.websiteID, "name = $2", string(q.Name), c.days)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
	}
	if q.Search != "" {
		args = append(args, likePattern(q.Search))
		from = strings.ReplaceAll(from, "/*filter*/", fmt.Sprintf("AND value ILIKE $%d", len(args)))
	}
	totals := `SELECT value, sum(count)::bigint AS count FROM (` + from + `) AS rows GROUP BY value`
	entries, total, err := listPage(ctx, c.repo.db, totals, args, q)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
	}
	return entries, total, nil
}

// listPage is one page of the values that totals (SQL of distinct values with their counts, on
// args) yields, in q's order, with the number of values in all: the outer query of List, on
// the counters or on filtered rows.
func listPage(ctx context.Context, db sqlx.QueryerContext, totals string, args []any, q StatQuery) ([]StatEntry, int64, error) {
	query := `
		SELECT value, count, count(*) OVER () AS total
		FROM (` + totals + `) AS totals
		ORDER BY ` + listOrder(q) + limitOffset(q.Limit, q.Offset)
	var rows []struct {
		StatEntry
		Total int64 `db:"total"`
	}
	if err := sqlx.SelectContext(ctx, db, &rows, query, args...); err != nil {
		return nil, 0, err
	}
	entries := make([]StatEntry, len(rows))
	for i, row := range rows {
		entries[i] = row.StatEntry
	}
	if len(rows) > 0 {
		return entries, rows[0].Total, nil
	}
	if q.Offset == 0 {
		return entries, 0, nil
	}
	// A page past the end has no row to carry the total; count separately.
	var total int64
	if err := sqlx.GetContext(ctx, db, &total, `SELECT count(*) FROM (`+totals+`) AS totals`, args...); err != nil {
		return nil, 0, fmt.Errorf("count: %w", err)
	}
	return entries, total, nil
}

func limitOffset(limit, offset int) string {
	if limit <= 0 {
		return ` OFFSET ` + fmt.Sprint(offset)
	}
	return ` LIMIT ` + fmt.Sprint(limit) + ` OFFSET ` + fmt.Sprint(offset)
}

// FirstStatDay is the first day a website has any pageview or event counted, for the "all
// time" range of its dashboard; ErrNotFound when it has none.
func (r *Repository) FirstStatDay(ctx context.Context, websiteID int64) (time.Time, error) {
	// Two minimums read off the primary key's order (a few index pages each), rather than one
	// over every pageview and event row of the website.
	const query = `
		SELECT least(
			(SELECT min(date) FROM stats WHERE website_id = $1 AND name = $2),
			(SELECT min(date) FROM stats WHERE website_id = $1 AND name = $3))`
	var first *time.Time
	if err := r.db.GetContext(ctx, &first, query, websiteID, string(stats.Pageview), string(stats.Event)); err != nil {
		return time.Time{}, fmt.Errorf("stats.first_day: %w", err)
	}
	if first == nil {
		return time.Time{}, fmt.Errorf("stats.first_day: %w", ErrNotFound)
	}
	return stats.Day(*first), nil
}

// SumStats returns, for each of the names, the sum of all of a website's counters of that
// statistic over a range of days: the total pageviews and visitors of a dashboard or a report.
// A name with no counter in the range is 0.
func (r *Repository) SumStats(ctx context.Context, websiteID int64, names []stats.Name, days stats.Range) (map[stats.Name]int64, error) {
	rows, args, err := r.rangeRows(ctx, websiteID, "name = ANY($2)", nameArray(names), days)
	if err != nil {
		return nil, fmt.Errorf("stats.sum: %w", err)
	}
	query := `
		SELECT name, sum(count)::bigint AS count
		FROM (` + rows + `) AS rows
		GROUP BY name`
	var sums []struct {
		Name  stats.Name `db:"name"`
		Count int64      `db:"count"`
	}
	if err := r.db.SelectContext(ctx, &sums, query, args...); err != nil {
		return nil, fmt.Errorf("stats.sum: %w", err)
	}
	out := make(map[stats.Name]int64, len(names))
	for _, n := range names {
		out[n] = 0
	}
	for _, s := range sums {
		out[s.Name] = s.Count
	}
	return out, nil
}

// StatList is one statistic's values over a range, in the API's default order, with the number
// of its distinct values in all.
type StatList struct {
	Entries  []StatEntry
	Distinct int64
}

// Top is the top lists of the names. One statement reads every name (the dashboard's twelve
// top lists, or its two time series), so the rows are scanned and the query planned once
// instead of once per list.
func (c counterReader) Top(ctx context.Context, names []stats.Name, limit int) (map[stats.Name]StatList, error) {
	rows, args, err := c.repo.rangeRows(ctx, c.websiteID, "name = ANY($2)", nameArray(names), c.days)
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	totals := `SELECT name, value, sum(count)::bigint AS count FROM (` + rows + `) AS rows GROUP BY name, value`
	out, err := topLists(ctx, c.repo.db, totals, args, limit)
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	return out, nil
}

// topLists ranks what totals (SQL of distinct names and values with their counts, on args)
// yields: the outer query of Top, on the counters or on filtered rows.
func topLists(ctx context.Context, db sqlx.QueryerContext, totals string, args []any, limit int) (map[stats.Name]StatList, error) {
	rankLimit := ""
	if limit > 0 {
		args = append(args, limit)
		rankLimit = fmt.Sprintf("WHERE rank <= $%d", len(args))
	}
	query := `
		SELECT name, value, count, distinct_values
		FROM (
			SELECT name, value, count,
				row_number() OVER (PARTITION BY name ORDER BY count DESC, value ASC) AS rank,
				count(*) OVER (PARTITION BY name) AS distinct_values
			FROM (` + totals + `) AS totals
		) AS ranked
		` + rankLimit + `
		ORDER BY name, rank`
	var found []struct {
		Name stats.Name `db:"name"`
		StatEntry
		Distinct int64 `db:"distinct_values"`
	}
	if err := sqlx.SelectContext(ctx, db, &found, query, args...); err != nil {
		return nil, err
	}
	out := map[stats.Name]StatList{}
	for _, f := range found {
		l := out[f.Name]
		l.Entries = append(l.Entries, f.StatEntry)
		l.Distinct = f.Distinct
		out[f.Name] = l
	}
	return out, nil
}

// nameArray is names as a PostgreSQL text[] argument.
func nameArray(names []stats.Name) any {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return pq.Array(out)
}

// rangeRows is the SQL of every counter row of a website in the days that matches nameCond
// (on $2 = nameArg), with its arguments: whole months from stats_monthly, whole weeks of what is
// left from stats_weekly, the remaining days from stats, rollups only as far as they are whole
// (see RollUp). It selects name, value and count; "/*filter*/" marks where each part takes one
// more condition.
func (r *Repository) rangeRows(ctx context.Context, websiteID int64, nameCond string, nameArg any, days stats.Range) (string, []any, error) {
	rolled, err := r.rolledUp(ctx)
	if err != nil {
		return "", nil, err
	}
	args := []any{websiteID, nameArg}
	var parts []string
	for _, seg := range splitRange(days.From, days.To, rolled) {
		args = append(args, seg.from.Format(dateLayout), seg.to.Format(dateLayout))
		parts = append(parts, fmt.Sprintf(`
			SELECT name, value, count FROM %s
			WHERE website_id = $1 AND %s AND %s BETWEEN $%d AND $%d /*filter*/`,
			seg.table, nameCond, seg.column, len(args)-1, len(args)))
	}
	return strings.Join(parts, `
			UNION ALL`), args, nil
}

// segment is a part of a range that one table holds whole: days of stats, weeks (from their
// Monday) of stats_weekly, months (from their 1st) of stats_monthly.
type segment struct {
	table, column string
	from, to      time.Time // the first days of the first and last unit
}

// splitRange cuts [from, to] into the fewest rows to read: the whole calendar months inside
// it, then the whole weeks (Monday to Sunday) inside what is left on either side, then the
// days left over; a month or week is read from its rollup only when rolled says the rollup is
// whole. A year reads 11 or 12 months and a few weeks and days; 30 days read three or four
// weeks and at most twelve days. The range is never empty: it yields at least one segment.
func splitRange(from, to time.Time, rolled rolledUp) []segment {
	from, to = stats.Day(from), stats.Day(to)
	weeksEnd := rolled.weeks.AddDate(0, 0, 6) // the last day of the last week rolled up
	firstMonth := stats.MonthStart(from)
	if firstMonth.Before(from) {
		firstMonth = firstMonth.AddDate(0, 1, 0)
	}
	// The months end with to, or earlier with the last one rolled up.
	last := minDate(to, rolled.months.AddDate(0, 1, -1))
	afterLastMonth := stats.MonthStart(last.AddDate(0, 0, 1)) // the 1st after the last whole month
	if !firstMonth.Before(afterLastMonth) {
		return splitWeeks(from, to, weeksEnd)
	}
	segs := splitWeeks(from, firstMonth.AddDate(0, 0, -1), weeksEnd)
	segs = append(segs, segment{"stats_monthly", "month", firstMonth, afterLastMonth.AddDate(0, -1, 0)})
	return append(segs, splitWeeks(afterLastMonth, to, weeksEnd)...)
}

// splitWeeks cuts [from, to] into the days before its first Monday, its whole weeks up to
// weeksEnd and the days after them; nothing when from is after to.
func splitWeeks(from, to, weeksEnd time.Time) []segment {
	if from.After(to) {
		return nil
	}
	last := minDate(to, weeksEnd)
	firstMonday := stats.WeekStart(from.AddDate(0, 0, 6))
	afterLastWeek := stats.WeekStart(last.AddDate(0, 0, 1)) // the Monday after the last whole week
	if !firstMonday.Before(afterLastWeek) {
		return []segment{{"stats", "date", from, to}}
	}
	var segs []segment
	if from.Before(firstMonday) {
		segs = append(segs, segment{"stats", "date", from, firstMonday.AddDate(0, 0, -1)})
	}
	segs = append(segs, segment{"stats_weekly", "week", firstMonday, afterLastWeek.AddDate(0, 0, -7)})
	if !afterLastWeek.After(to) {
		segs = append(segs, segment{"stats", "date", afterLastWeek, to})
	}
	return segs
}

func minDate(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// listOrder is the ORDER BY of a list of (value, count) in q's order; ties by value.
func listOrder(q StatQuery) string {
	switch {
	case q.SortBy == "value" && q.Desc:
		return "value DESC"
	case q.SortBy == "value":
		return "value ASC"
	case !q.Desc:
		return "count ASC, value ASC"
	}
	return "count DESC, value ASC"
}
