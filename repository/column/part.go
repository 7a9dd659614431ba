package column

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// Part is a read of the query engine's per-visitor groups (its v: the dimensions' stored
// values, then visitors, rkey, visits, pageviews, events, bounces, seconds) over a website's
// days that the file holds. The engine sums these rows with PostgreSQL's of the other days
// before it labels, divides and orders, so every answer is computed once, from summed parts.
type Part struct {
	WebsiteID  int64
	From, To   time.Time
	Dimensions []query.Field // visit-level or time-level only (Supports)
	Filters    []query.Filter
	Visitors   bool // count visitors: group the visitor-days of several visits by rkey
	// Matched are the stored values a matches filter keeps (the engine matches RE2 patterns
	// in Go, over the range's distinct values).
	Matched func(ctx context.Context, f query.Filter) ([]string, error)
	// Like is a contains filter's value as a LIKE pattern whose escape is a backslash.
	Like func(v string) string
}

// Rows are a Part's groups, column by column: Keys[i] the text of dimension i's key (a time
// dimension's day as 2026-11-28, or its hour as 2026-11-28 05:00:00), then the sums.
type Rows struct {
	Keys                                                  [][]string
	Visitors, Visits, Pageviews, Events, Bounces, Seconds []int64
	RKey                                                  []sql.NullInt64
}

// metrics are the metrics the store's sums make.
var metrics = []query.Metric{query.Visitors, query.Visits, query.Pageviews, query.Events, query.BounceRate,
	query.VisitDuration, query.ViewsPerVisit, query.Percentage}

// Supports tells whether the store answers reads of these dimensions, filters and metrics:
// those on the visit-level values and time only (the file holds no pages, events or
// properties), of the metrics its sums make.
func Supports(dims []query.Field, filters []query.Filter, asked []query.Metric) bool {
	if slices.ContainsFunc(asked, func(m query.Metric) bool { return !slices.Contains(metrics, m) }) {
		return false
	}
	for _, f := range dims {
		if f.Level != query.VisitLevel && f.Level != query.TimeLevel {
			return false
		}
	}
	var visitLevel func(f query.Filter) bool
	visitLevel = func(f query.Filter) bool {
		if f.Op == query.And || f.Op == query.Or || f.Op == query.Not {
			return !slices.ContainsFunc(f.Children, func(c query.Filter) bool { return !visitLevel(c) })
		}
		return f.Field.Level == query.VisitLevel
	}
	return !slices.ContainsFunc(filters, func(f query.Filter) bool { return !visitLevel(f) })
}

// partBuild collects a Part's SQL arguments (DuckDB's ? placeholders, in order).
type partBuild struct {
	p    Part
	args []any
}

func (b *partBuild) arg(v any) string {
	b.args = append(b.args, v)
	return "?"
}

// Start builds the part's statement (calling p.Matched now, never beside the caller) and runs
// it beside the caller, which reads the other days meanwhile; wait returns its rows.
func (s *Store) Start(ctx context.Context, p Part) (wait func() (Rows, error)) {
	b := &partBuild{p: p}
	sqlText, err := b.statement(ctx)
	if err != nil {
		return func() (Rows, error) { return Rows{}, err }
	}
	done := make(chan struct{})
	var rows Rows
	go func() {
		defer close(done)
		rows, err = s.read(ctx, sqlText, b.args, len(p.Dimensions))
	}()
	return func() (Rows, error) {
		<-done
		return rows, err
	}
}

// read runs a part's statement.
func (s *Store) read(ctx context.Context, sqlText string, args []any, n int) (Rows, error) {
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return Rows{}, fmt.Errorf("column store: read: %w", err)
	}
	defer rows.Close()
	out := Rows{Keys: make([][]string, n)}
	dest := make([]any, n+7)
	keys := make([]string, n)
	for i := range keys {
		dest[i] = &keys[i]
	}
	var visitors, visits, pageviews, events, bounces, seconds int64
	var rkey sql.NullInt64
	dest[n], dest[n+1], dest[n+2], dest[n+3], dest[n+4], dest[n+5], dest[n+6] = &visitors, &rkey, &visits, &pageviews, &events, &bounces, &seconds
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return Rows{}, fmt.Errorf("column store: read: %w", err)
		}
		for i, k := range keys {
			out.Keys[i] = append(out.Keys[i], k)
		}
		out.Visitors, out.RKey, out.Visits = append(out.Visitors, visitors), append(out.RKey, rkey), append(out.Visits, visits)
		out.Pageviews, out.Events = append(out.Pageviews, pageviews), append(out.Events, events)
		out.Bounces, out.Seconds = append(out.Bounces, bounces), append(out.Seconds, seconds)
	}
	if err := rows.Err(); err != nil {
		return Rows{}, fmt.Errorf("column store: read: %w", err)
	}
	return out, nil
}

// statement is the part's SQL: the visits of the website's days that the filters keep,
// grouped by the dimensions' keys and, counting visitors, by rkey.
func (b *partBuild) statement(ctx context.Context) (string, error) {
	conds := []string{"website_id = " + b.arg(b.p.WebsiteID), "day BETWEEN " + b.arg(b.p.From) + " AND " + b.arg(b.p.To)}
	for _, f := range b.p.Filters {
		c, err := b.cond(ctx, f)
		if err != nil {
			return "", err
		}
		conds = append(conds, c)
	}
	var keys []string
	for _, f := range b.p.Dimensions {
		keys = append(keys, b.key(f))
	}
	groups := slices.Clone(keys)
	rkey := "NULL::BIGINT"
	if b.p.Visitors {
		rkey = "rkey"
		groups = append(groups, "rkey")
	}
	selected := ""
	for i, k := range keys {
		selected += fmt.Sprintf("%s AS k%d, ", k, i)
	}
	groupBy := ""
	if len(groups) > 0 {
		groupBy = " GROUP BY " + strings.Join(groups, ", ")
	}
	return `SELECT ` + selected + `count(*), ` + rkey + `, count(*), coalesce(sum(pageviews), 0), coalesce(sum(events), 0),
		count(*) FILTER (WHERE bounce), coalesce(sum(seconds), 0)
		FROM visits WHERE ` + strings.Join(conds, " AND ") + groupBy, nil
}

// key is the text of a dimension's key, as the engine's statement keys it: a visit-level
// value as stored, a time dimension's day, or its day and hour.
func (b *partBuild) key(f query.Field) string {
	if f.Level == query.TimeLevel {
		if f.Time == query.Hour {
			return `strftime(day + to_hours(hour), '%Y-%m-%d %H:%M:%S')`
		}
		return `strftime(day, '%Y-%m-%d')`
	}
	return column(f)
}

// column is the quoted column a visit-level field reads.
func column(f query.Field) string {
	d, _, _ := stats.DimensionOf(f.Stat)
	return `"` + d.Column + `"`
}

// cond is a filter's condition on a visit.
func (b *partBuild) cond(ctx context.Context, f query.Filter) (string, error) {
	switch f.Op {
	case query.And, query.Or:
		parts := make([]string, len(f.Children))
		for i, c := range f.Children {
			cond, err := b.cond(ctx, c)
			if err != nil {
				return "", err
			}
			parts[i] = cond
		}
		return "(" + strings.Join(parts, " "+strings.ToUpper(string(f.Op))+" ") + ")", nil
	case query.Not:
		cond, err := b.cond(ctx, f.Children[0])
		if err != nil {
			return "", err
		}
		return "NOT (" + cond + ")", nil
	}
	pred, err := b.leaf(ctx, f)
	if err != nil {
		return "", err
	}
	if f.Negated() {
		return "NOT (" + pred + ")", nil
	}
	return pred, nil
}

// leaf is the positive predicate of a leaf on a visit-level field, as the engine's
// (leafPredicate) on PostgreSQL.
func (b *partBuild) leaf(ctx context.Context, f query.Filter) (string, error) {
	e := column(f.Field)
	part := b.partOf(f.Field, e)
	switch f.Positive() {
	case query.Is:
		if f.IgnoreCase {
			lowered := make([]string, len(f.Values))
			for i, v := range f.Values {
				lowered[i] = strings.ToLower(v)
			}
			return "lower(" + part + ") IN " + b.list(lowered), nil
		}
		return part + " IN " + b.list(f.Values), nil
	case query.Contains:
		like := "LIKE"
		if f.IgnoreCase {
			like = "ILIKE"
		}
		var ors []string
		for _, v := range f.Values {
			p := b.p.Like(v)
			ors = append(ors, fmt.Sprintf("%s %s %s ESCAPE '\\'", part, like, b.arg(p)))
			if len(f.Field.Spell) > 0 {
				ors = append(ors, fmt.Sprintf("%s %s %s ESCAPE '\\'", b.answer(f.Field, e), like, b.arg(p)))
			}
		}
		return "(" + strings.Join(ors, " OR ") + ")", nil
	}
	matched, err := b.p.Matched(ctx, f)
	if err != nil {
		return "", err
	}
	if len(matched) == 0 {
		return "false", nil
	}
	return e + " IN " + b.list(matched), nil
}

// list is an IN list of the values, as arguments.
func (b *partBuild) list(values []string) string {
	marks := make([]string, len(values))
	for i, v := range values {
		marks[i] = b.arg(v)
	}
	return "(" + strings.Join(marks, ", ") + ")"
}

// partOf is the SQL of a field's part of the text e (code: before the first colon; label:
// after it), in our spelling.
func (b *partBuild) partOf(f query.Field, e string) string {
	switch f.Part {
	case query.Code:
		return "split_part(" + e + ", ':', 1)"
	case query.Label:
		return "substr(" + e + ", strpos(" + e + ", ':') + 1)"
	}
	return e
}

// answer is the SQL of a field's value in Plausible's spelling.
func (b *partBuild) answer(f query.Field, e string) string {
	e = b.partOf(f, e)
	if len(f.Spell) == 0 {
		return e
	}
	ours := make([]string, 0, len(f.Spell))
	for k := range f.Spell {
		ours = append(ours, k)
	}
	slices.Sort(ours)
	var sb strings.Builder
	sb.WriteString("CASE " + e)
	for _, k := range ours {
		sb.WriteString(" WHEN " + b.arg(k) + " THEN " + b.arg(f.Spell[k]))
	}
	sb.WriteString(" ELSE " + e + " END")
	return sb.String()
}

// SQL is the rows as a PostgreSQL SELECT of the engine's v columns (k0.., visitors, rkey,
// visits, pageviews, events, bounces, seconds), from lists that arg makes arguments of; a
// time dimension's key is a date, or a timestamp when hour is.
func (r Rows) SQL(dims []query.Field, hour bool, arg func(any) string) string {
	var keys, names, lists []string
	for i, f := range dims {
		cast := "text"
		if f.Level == query.TimeLevel {
			cast = map[bool]string{false: "date", true: "timestamp"}[hour]
		}
		keys, names = append(keys, fmt.Sprintf("k%d::%s", i, cast)), append(names, fmt.Sprintf("k%d", i))
		lists = append(lists, arg(pq.Array(r.Keys[i]))+"::text[]")
	}
	for _, l := range [][]int64{r.Visitors, nil, r.Visits, r.Pageviews, r.Events, r.Bounces, r.Seconds} {
		if l == nil {
			lists = append(lists, arg(pq.Array(r.RKey))+"::int8[]")
			continue
		}
		lists = append(lists, arg(pq.Array(l))+"::int8[]")
	}
	sums := []string{"visitors", "rkey", "visits", "pageviews", "events", "bounces", "seconds"}
	return `SELECT ` + strings.Join(append(keys, sums...), ", ") + ` FROM unnest(` + strings.Join(lists, ", ") +
		`) AS c (` + strings.Join(append(names, sums...), ", ") + `)`
}
