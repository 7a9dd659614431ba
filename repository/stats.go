package repository

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/stats"
)

const dateLayout = "2006-01-02"

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

// List sums a statistic over the range and returns one page of values with the number of
// distinct values in all. Whole calendar months inside the range are read from the monthly
// rollup, the partial months at its edges from the daily table.
func (c counterReader) List(ctx context.Context, q StatQuery) ([]StatEntry, int64, error) {
	if q.Name == stats.Property { // the planner reads them from the rows (ListReader)
		return nil, 0, fmt.Errorf("stats.list: no counters hold %s", q.Name)
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
	entries, total, err := listPage(ctx, c.repo.reads, totals, args, q)
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
	if err := r.reads.GetContext(ctx, &first, query, websiteID, string(stats.Pageview), string(stats.Event)); err != nil {
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
	if err := r.reads.SelectContext(ctx, &sums, query, args...); err != nil {
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
	out, err := topLists(ctx, c.repo.reads, totals, args, limit)
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
	rolled, err := r.RolledUp(ctx)
	if err != nil {
		return "", nil, err
	}
	args := []any{websiteID, nameArg}
	var parts []string
	for _, seg := range counters.Split(days.From, days.To, rolled) {
		args = append(args, seg.From.Format(dateLayout), seg.To.Format(dateLayout))
		parts = append(parts, fmt.Sprintf(`
			SELECT name, value, count FROM %s
			WHERE website_id = $1 AND %s AND %s BETWEEN $%d AND $%d /*filter*/`,
			seg.Table, nameCond, seg.Column, len(args)-1, len(args)))
	}
	return strings.Join(parts, `
			UNION ALL`), args, nil
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
