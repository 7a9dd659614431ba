package repository

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"
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

// StatQuery selects one page of a statistic of a website.
type StatQuery struct {
	Name     string
	From, To time.Time // calendar days, inclusive
	Search   string    // literal, case-insensitive substring of value; "" for all
	SortBy   string    // "count" or "value"
	Desc     bool
	Limit    int
	Offset   int
}

// AddStats adds counts to the daily counters and to their monthly rollups, in one statement,
// once per batch id: a batch id already claimed adds nothing and AddStats reports false, so a
// writer that does not know whether its last attempt committed can simply retry it. Counts of
// websites deleted meanwhile are dropped. Rows are written in key order so that concurrent
// writers (several ingest nodes) take row locks in the same order and cannot deadlock; the input
// may repeat a key.
//
// The websites written for are locked FOR KEY SHARE first, which DeleteWebsite's delete of the
// row waits for (and which updates, taking FOR NO KEY UPDATE, do not): a delete that comes first
// commits before the lock is granted, and the website's counts are dropped; one that comes later
// waits for this write and then deletes its rows too. Either way no row outlives its website.
func (r *Repository) AddStats(ctx context.Context, batchID string, counts []StatCount) (bool, error) {
	if len(counts) == 0 {
		return true, nil
	}
	ids := make([]int64, len(counts))
	names := make([]string, len(counts))
	dates := make([]string, len(counts))
	values := make([]string, len(counts))
	amounts := make([]int64, len(counts))
	for i, c := range counts {
		ids[i], names[i], dates[i], values[i], amounts[i] =
			c.WebsiteID, c.Name, c.Date.Format(dateLayout), c.Value, c.Count
	}
	const query = `
		WITH claim AS (
			INSERT INTO ingest_batches (id, created_at)
			VALUES ($6, now())
			ON CONFLICT (id) DO NOTHING
			RETURNING id
		), live AS (
			SELECT w.id
			FROM websites w
			WHERE w.id = ANY($1::bigint[]) AND EXISTS (SELECT 1 FROM claim)
			ORDER BY w.id
			FOR KEY SHARE OF w
		), input AS (
			SELECT t.website_id, t.name, t.date, t.value COLLATE "C" AS value, sum(t.count)::bigint AS count
			FROM unnest($1::bigint[], $2::text[], $3::date[], $4::text[], $5::bigint[])
				AS t (website_id, name, date, value, count)
			WHERE t.website_id IN (SELECT id FROM live)
			GROUP BY 1, 2, 3, 4
		), daily AS (
			INSERT INTO stats AS s (website_id, name, date, value, count)
			SELECT website_id, name, date, value, count
			FROM input
			ORDER BY 1, 2, 3, 4
			ON CONFLICT (website_id, name, date, value)
			DO UPDATE SET count = s.count + EXCLUDED.count
		), monthly AS (
			INSERT INTO stats_monthly AS m (website_id, name, month, value, count)
			SELECT website_id, name, date_trunc('month', date)::date, value, sum(count)::bigint
			FROM input
			GROUP BY 1, 2, 3, 4
			ORDER BY 1, 2, 3, 4
			ON CONFLICT (website_id, name, month, value)
			DO UPDATE SET count = m.count + EXCLUDED.count
		)
		SELECT count(*) FROM claim`
	var claimed int
	err := r.db.GetContext(ctx, &claimed, query, pq.Array(ids), pq.Array(names), pq.Array(dates),
		pq.Array(values), pq.Array(amounts), batchID)
	if err != nil {
		return false, fmt.Errorf("stats.add: %w", err)
	}
	return claimed == 1, nil
}

// ForgetBatches deletes batch ids older than a cutoff; no retry is that late.
func (r *Repository) ForgetBatches(ctx context.Context, before time.Time) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM ingest_batches WHERE created_at < $1`, before); err != nil {
		return fmt.Errorf("stats.forget_batches: %w", err)
	}
	return nil
}

// ListStats sums a statistic of a website over a range of days and returns one page of values
// with the number of distinct values in all. Whole calendar months inside the range are read
// from the monthly rollup, the partial months at its edges from the daily table.
func (r *Repository) ListStats(ctx context.Context, websiteID int64, q StatQuery) ([]StatEntry, int64, error) {
	from, args := rangeRows(websiteID, "name = $2", q.Name, q.From, q.To)
	if q.Search != "" {
		args = append(args, likePattern(q.Search))
		from = strings.ReplaceAll(from, "/*filter*/", fmt.Sprintf("AND value ILIKE $%d", len(args)))
	}
	order := "count DESC, value ASC"
	switch {
	case q.SortBy == "value" && q.Desc:
		order = "value DESC"
	case q.SortBy == "value":
		order = "value ASC"
	case !q.Desc:
		order = "count ASC, value ASC"
	}
	query := `
		SELECT value, count, count(*) OVER () AS total
		FROM (
			SELECT value, sum(count)::bigint AS count
			FROM (` + from + `) AS rows
			GROUP BY value
		) AS totals
		ORDER BY ` + order + `
		LIMIT ` + fmt.Sprint(q.Limit) + ` OFFSET ` + fmt.Sprint(q.Offset)
	var rows []struct {
		StatEntry
		Total int64 `db:"total"`
	}
	if err := r.db.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
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
	countQuery := `SELECT count(DISTINCT value) FROM (` + from + `) AS rows`
	if err := r.db.GetContext(ctx, &total, countQuery, args...); err != nil {
		return nil, 0, fmt.Errorf("stats.list: count: %w", err)
	}
	return entries, total, nil
}

// SumStats returns, for each of the names, the sum of all of a website's counters of that
// statistic over a range of days: the total pageviews and visitors of a dashboard or a report.
// A name with no counter in the range is 0.
func (r *Repository) SumStats(ctx context.Context, websiteID int64, names []string, from, to time.Time) (map[string]int64, error) {
	rows, args := rangeRows(websiteID, "name = ANY($2)", pq.Array(names), from, to)
	query := `
		SELECT name, sum(count)::bigint AS count
		FROM (` + rows + `) AS rows
		GROUP BY name`
	var sums []struct {
		Name  string `db:"name"`
		Count int64  `db:"count"`
	}
	if err := r.db.SelectContext(ctx, &sums, query, args...); err != nil {
		return nil, fmt.Errorf("stats.sum: %w", err)
	}
	out := make(map[string]int64, len(names))
	for _, n := range names {
		out[n] = 0
	}
	for _, s := range sums {
		out[s.Name] = s.Count
	}
	return out, nil
}

// rangeRows is the SQL of every counter row of a website in [from, to] that matches nameCond
// (on $2 = nameArg), with the arguments $1..$8: the edge days from stats, the whole months from
// stats_monthly. It selects name, value and count; "/*filter*/" marks where each part takes
// one more condition.
func rangeRows(websiteID int64, nameCond string, nameArg any, from, to time.Time) (string, []any) {
	parts := splitRange(from, to)
	args := []any{websiteID, nameArg,
		parts.headFrom.Format(dateLayout), parts.headTo.Format(dateLayout),
		parts.tailFrom.Format(dateLayout), parts.tailTo.Format(dateLayout),
		parts.monthFrom.Format(dateLayout), parts.monthTo.Format(dateLayout)}
	sql := `
			SELECT name, value, count FROM stats
			WHERE website_id = $1 AND ` + nameCond + ` AND date BETWEEN $3 AND $4 /*filter*/
			UNION ALL
			SELECT name, value, count FROM stats
			WHERE website_id = $1 AND ` + nameCond + ` AND date BETWEEN $5 AND $6 /*filter*/
			UNION ALL
			SELECT name, value, count FROM stats_monthly
			WHERE website_id = $1 AND ` + nameCond + ` AND month BETWEEN $7 AND $8 /*filter*/`
	return sql, args
}

// rangeParts cuts [from, to] into a head of days, a run of whole months and a tail of days.
// An empty part has its start after its end, which matches no row.
type rangeParts struct {
	headFrom, headTo   time.Time
	monthFrom, monthTo time.Time // first days of the first and last whole month
	tailFrom, tailTo   time.Time
}

func splitRange(from, to time.Time) rangeParts {
	from = civil(from)
	to = civil(to)
	firstWhole := from
	if from.Day() != 1 {
		firstWhole = time.Date(from.Year(), from.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	}
	lastWholeEnd := to
	if to.AddDate(0, 0, 1).Day() != 1 {
		lastWholeEnd = time.Date(to.Year(), to.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	}
	if firstWhole.After(lastWholeEnd) {
		empty := to.AddDate(0, 0, 1)
		return rangeParts{
			headFrom: from, headTo: to,
			monthFrom: empty, monthTo: to,
			tailFrom: empty, tailTo: to,
		}
	}
	return rangeParts{
		headFrom: from, headTo: firstWhole.AddDate(0, 0, -1),
		monthFrom: firstWhole,
		monthTo:   time.Date(lastWholeEnd.Year(), lastWholeEnd.Month(), 1, 0, 0, 0, 0, time.UTC),
		tailFrom:  lastWholeEnd.AddDate(0, 0, 1), tailTo: to,
	}
}

func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
