package repository

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/pgsettings"
	"github.com/analytics-service/analytics/stats"
)

// The query API's engine (package query parses and checks; this compiles): one statement
// over the website's visit rows of the range, three levels deep. u is one row per visit (or,
// under event:page, per pageview; under event:name, per visit and name) with its dimensions'
// stored values (k0..); v groups u by those and, only for the visitor-days with several
// visits (rep, read from the primary key), by day and visitor, so that visitors are counted
// once a day and summed over days; the outer level labels the dimensions as answered, groups
// by them and computes the metrics, their order and the page. RE2 patterns never reach
// PostgreSQL: the distinct values of the filtered column over the range are matched in Go and
// passed as a list (query_values.go).

// QueryRow is one row of an answer: its dimension values as answered and its metrics in the
// query's order. A revenue metric is in Revenue at its index (nil: null), not in Metrics.
type QueryRow struct {
	Dimensions []string
	Metrics    []float64
	Revenue    []*RevenueAmount // nil when the query asks no revenue metric
}

// QueryAnswer is a query's rows and what they rest on.
type QueryAnswer struct {
	Rows      []QueryRow
	TotalRows int64
	Basis     Basis
	// FromCounters: the daily counters answered, imported days included.
	FromCounters bool
	// Warnings are why a metric is null in every row, by metric (query_revenue.go).
	Warnings map[query.Metric]MetricWarning
}

// sqlArgs are a statement's arguments as its builder collects them, each value one
// placeholder: the one collector of queryBuild (the engine's statements) and rowSource (v1's
// lists and the goals', properties' and funnels' reads), so that either's fragments can take
// arguments after the other's.
type sqlArgs struct {
	args []any
	// inline writes arguments into the SQL as literals: for a predicate that some statements
	// of a read leave out, where an argument no statement reads has no type for PostgreSQL.
	inline bool
}

func (a *sqlArgs) arg(v any) string {
	if a.inline {
		return literal(v)
	}
	a.args = append(a.args, v)
	return fmt.Sprintf("$%d", len(a.args))
}

// literal is an argument as an SQL literal: a string, or what a driver.Valuer such as
// pq.Array of strings makes of itself (text), quoted.
func literal(v any) string {
	if valuer, ok := v.(driver.Valuer); ok {
		if x, err := valuer.Value(); err == nil {
			v = x
		}
	}
	s, ok := v.(string)
	if !ok {
		// Only strings and lists of them reach an inline build (newRowSource's pages).
		panic(fmt.Sprintf("repository: no literal of %T", v))
	}
	return pq.QuoteLiteral(s)
}

// queryBuild collects a statement's SQL and arguments.
type queryBuild struct {
	q *query.Query
	filterBuild
	base      string   // the website's rows of the range
	baseArgs  int      // how many of args base takes
	where     string   // base and the filters
	whereArgs int      // how many of args where takes
	pages     string   // the predicate on a pageview's page ($EL) that event:page filters make, or ""
	pageIs    []string // the pages of a lone is among those filters (pagesIs), or nil
	fraction  float64
	repo      *Repository
	websiteID int64
	zone      stats.Zone // the website's, whose today says which days are closed
	// repeats is the placeholder of the keys (repeatKey) of the range's visitor-days with
	// several visits, or "" when they are too many to pass and rep joins them instead.
	repeats string
	// repeatRows is, under a hit dimension, rep's SELECT of the same visitor-days passed as
	// two lists, or "" when rep groups the range's rows itself (too many to pass).
	repeatRows string
	// keptThrough is the last day of the range whose visitor-days of several visits
	// visit_row_repeats keeps (keepRepeats), zero when none is.
	keptThrough time.Time
	revenue     *revenuePlan // with revenue metrics (planRevenue)
	// groupVisitors: visitors are counted by grouping every (dimensions, day, visitor) of the
	// matching rows, rather than by reading the range's visitor-days of several visits first
	// (readRepeats): for reads whose filters keep few rows of the range (v1's, rowReader).
	groupVisitors bool
	// the column store answers the days through columnThrough (columnDays); columnRows: v's rows
	columnThrough time.Time
	columnRows    string
}

// RunQuery answers a checked query as planQuery decides: from the counters, or over the
// website's visit rows; hours and days are those of the website's zone.
func (r *Repository) RunQuery(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone) (QueryAnswer, error) {
	var out QueryAnswer
	var err error
	switch plan := r.planQuery(q); {
	case plan.store == counterStore:
		out, err = r.counterAnswer(ctx, websiteID, q, plan, zone)
	case plan.goalsList:
		out, err = r.goalsListAnswer(ctx, websiteID, q, zone)
	default:
		out, err = r.runRows(ctx, websiteID, q, zone)
	}
	if err != nil {
		return QueryAnswer{}, fmt.Errorf("query.run: %w", err)
	}
	return out, nil
}

// runRows answers a checked query over the website's visit rows.
func (r *Repository) runRows(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone) (QueryAnswer, error) {
	if !ordersByGroupRate(q) {
		return r.runStatement(ctx, websiteID, q, zone)
	}
	// Every row, with its rate, then ordered and paged here.
	all := *q
	all.Limit, all.Offset = math.MaxInt32, 0
	out, err := r.runStatement(ctx, websiteID, &all, zone)
	if err != nil {
		return QueryAnswer{}, err
	}
	sortRows(q, out.Rows)
	out.Rows = cutPage(q, out.Rows)
	return out, nil
}

// ordersByGroupRate tells whether q is ordered by group_conversion_rate, which the statement
// cannot sort: each row's whole is its own group's visitors, read after it (conversionMetrics).
func ordersByGroupRate(q *query.Query) bool {
	return slices.ContainsFunc(q.OrderBy, func(o query.Order) bool {
		return o.Metric >= 0 && q.Metrics[o.Metric] == query.GroupConversionRate
	})
}

// runStatement answers a checked query over the website's visit rows with one statement (and
// the reads its metrics need after it).
func (r *Repository) runStatement(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone) (QueryAnswer, error) {
	b, err := r.newBuild(ctx, websiteID, q, zone)
	if err != nil {
		return QueryAnswer{}, err
	}
	if err := b.readValues(ctx, q.Filters); err != nil {
		return QueryAnswer{}, err
	}
	if err := b.readGoals(ctx); err != nil {
		return QueryAnswer{}, err
	}
	out, err := r.runBuild(ctx, b)
	if err != nil {
		return QueryAnswer{}, err
	}
	if err := r.conversionMetrics(ctx, websiteID, q, zone, b.fraction, &out); err != nil {
		return QueryAnswer{}, err
	}
	if err := b.finish(ctx, r, websiteID, &out); err != nil {
		return QueryAnswer{}, err
	}
	b.revenueAnswer(&out)
	return out, nil
}

// newBuild is the builder of q's statement over the website's rows of its range, sampled past
// stats.MaxExactPageviews.
func (r *Repository) newBuild(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone) (*queryBuild, error) {
	fraction, err := r.sampleFraction(ctx, websiteID, q.Range.Days())
	if err != nil {
		return nil, err
	}
	b := &queryBuild{q: q, fraction: fraction, repo: r, websiteID: websiteID, zone: zone}
	rg := q.Range
	last, ok, err := b.columnDays(ctx)
	if err != nil {
		return nil, err
	}
	if ok {
		b.columnThrough, rg.From = last, last.AddDate(0, 0, 1)
	}
	b.base = rangeWhere(&b.sqlArgs, websiteID, rg, fraction)
	b.baseArgs = len(b.args)
	return b, nil
}

// runBuild compiles b's statement and runs it: the answer's rows with their metrics as the
// statement sums them (unscaled; finish scales and divides), and the rows in all.
func (r *Repository) runBuild(ctx context.Context, b *queryBuild) (QueryAnswer, error) {
	var out QueryAnswer
	q := b.q
	columnRows := b.startColumn(ctx)
	if err := b.keepRepeats(ctx); err != nil {
		return out, err
	}
	err := r.readRows(ctx, func(tx *sqlx.Tx) error {
		if err := b.readRepeats(ctx, tx); err != nil {
			return err
		}
		where, whereArgs, err := b.filterWhere(ctx, q.Filters)
		if err != nil {
			return err
		}
		b.where, b.whereArgs = where, whereArgs
		if err := columnRows(); err != nil {
			return err
		}
		grouped := b.grouped(where)
		groupedArgs := len(b.args)
		sqlText, dims := b.statement(grouped)
		rows, err := tx.QueryxContext(ctx, sqlText, b.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			row, total, err := scanQueryRow(rows, dims, q.Metrics)
			if err != nil {
				return err
			}
			out.TotalRows = total
			out.Rows = append(out.Rows, row)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if out.Rows == nil && q.Offset > 0 {
			// Past the last row: count them without the page.
			return tx.GetContext(ctx, &out.TotalRows, `SELECT count(*) FROM (`+grouped+`) AS g`, b.args[:groupedArgs]...)
		}
		return nil
	})
	return out, err
}

// finish scales a sample's counts, computes percentage from the total visitors and says what
// the numbers rest on.
func (b *queryBuild) finish(ctx context.Context, r *Repository, websiteID int64, out *QueryAnswer) error {
	var total float64
	for i, m := range b.q.Metrics {
		if m == query.Percentage && b.totalInline() {
			for _, row := range out.Rows {
				row.Metrics[i] = roundTo(row.Metrics[i], 1)
			}
			continue
		}
		if m == query.Percentage {
			if err := r.readRows(ctx, func(tx *sqlx.Tx) error {
				return tx.GetContext(ctx, &total, b.totalVisitors(), b.args[:b.whereArgs]...)
			}); err != nil {
				return err
			}
		}
		for _, row := range out.Rows {
			switch m {
			case query.Visitors, query.Visits, query.Pageviews, query.Events:
				row.Metrics[i] = float64(scale(int64(row.Metrics[i]), b.fraction))
			case query.Percentage:
				if total > 0 {
					row.Metrics[i] = roundTo(100*row.Metrics[i]/total, 1)
				}
			}
		}
	}
	from, err := r.FilteredFrom(ctx, websiteID, b.q.Range.Days())
	if err != nil {
		return err
	}
	out.Basis = Basis{Fraction: b.fraction, From: from}
	return nil
}

// rangeWhere is the condition of a website's visit rows of a range (its hours at its ends)
// and, below 1, of the sample of its visitors that fraction keeps, its arguments after a's.
func rangeWhere(a *sqlArgs, websiteID int64, rg query.Range, fraction float64) string {
	conds := []string{
		"website_id = " + a.arg(websiteID),
		fmt.Sprintf("day BETWEEN %s AND %s", a.arg(rg.From.Format(dateLayout)), a.arg(rg.To.Format(dateLayout))),
	}
	if rg.FromHour > 0 {
		conds = append(conds, fmt.Sprintf("(day > %s OR hour >= %s)", a.arg(rg.From.Format(dateLayout)), a.arg(rg.FromHour)))
	}
	if rg.ToHour < 23 {
		conds = append(conds, fmt.Sprintf("(day < %s OR hour <= %s)", a.arg(rg.To.Format(dateLayout)), a.arg(rg.ToHour)))
	}
	if fraction < 1 {
		conds = append(conds, "visitor < "+a.arg(stats.SampleCut(fraction)))
	}
	return strings.Join(conds, " AND ")
}

// storedColumn is the quoted column a field reads.
func storedColumn(f query.Field) string {
	d, _, _ := stats.DimensionOf(f.Stat)
	return pq.QuoteIdentifier(d.Column)
}

// partExpr is the SQL of a field's part of the text expression e, in our spelling.
func partExpr(f query.Field, e string) string {
	switch f.Part {
	case query.Code:
		return "split_part(" + e + ", ':', 1)"
	case query.Label:
		return "substr(" + e + ", strpos(" + e + ", ':') + 1)"
	}
	return e
}

// answerExpr is the SQL of a field's value as answered, in Plausible's spelling.
func answerExpr(f query.Field, e string) string {
	e = partExpr(f, e)
	if len(f.Spell) == 0 {
		return e
	}
	var sb strings.Builder
	sb.WriteString("CASE " + e)
	for _, ours := range sortedKeys(f.Spell) {
		fmt.Fprintf(&sb, " WHEN %s THEN %s", pq.QuoteLiteral(ours), pq.QuoteLiteral(f.Spell[ours]))
	}
	sb.WriteString(" ELSE " + e + " END")
	return sb.String()
}

// timeKey is the SQL of a visit's time bucket before it is labelled: its day, or its day and
// hour as a timestamp.
func (b *queryBuild) timeKey() string {
	if b.q.TimeUnit() == query.Hour {
		return `day + hour * interval '1 hour'`
	}
	return `day`
}

// timeLabel is the SQL of the label of time bucket key k (timeKey). A day and an hour are
// their text: lib/pq's connections always have DateStyle ISO (it refuses any other), which
// writes 2026-11-28 and 2026-11-28 05:00:00, and the cast costs less than to_char, which
// counts where a label is made for every visit (the goals' statement; docs/query.md, "Speed").
func (b *queryBuild) timeLabel(k string) string {
	switch b.q.TimeUnit() {
	case query.Hour:
		return `(` + k + `)::text`
	case query.Week:
		// Weeks start on Monday; the first week of the range starts with the range.
		return `to_char(greatest(date_trunc('week', ` + k + `)::date, ` + b.arg(b.q.Range.From.Format(dateLayout)) + `::date), 'YYYY-MM-DD')`
	case query.Month:
		return `to_char(` + k + `, 'YYYY-MM-01')`
	}
	return `(` + k + `)::text`
}

// dimensionKey is the SQL of a dimension's value as stored (k0..): what u and v group by.
func (b *queryBuild) dimensionKey(f query.Field) string {
	switch f.Level {
	case query.VisitLevel:
		return storedColumn(f)
	case query.TimeLevel:
		return b.timeKey()
	case query.GoalLevel:
		return "g.name"
	}
	return "h.v"
}

// dimensionLabel is the SQL of a dimension's value as answered, from its key k.
func (b *queryBuild) dimensionLabel(f query.Field, k string) string {
	switch f.Level {
	case query.VisitLevel:
		return answerExpr(f, k)
	case query.TimeLevel:
		return b.timeLabel(k)
	}
	return k
}

// hitLevel is the query's hit dimension (event:page, event:name, event:goal or
// event:props:KEY), if any.
func (b *queryBuild) hitLevel() query.Level {
	for _, f := range b.q.Dimensions {
		if f.Level == query.PageLevel || f.Level == query.NameLevel || f.Level == query.GoalLevel || f.Level == query.PropLevel {
			return f.Level
		}
	}
	return query.VisitLevel
}

// statement is the whole query's SQL over grouped, the answer's rows, and its number of
// dimensions.
func (b *queryBuild) statement(grouped string) (string, int) {
	order := b.orderBy()
	return `SELECT *, count(*) OVER () AS total_rows FROM (` + grouped + `) AS g
		ORDER BY ` + order + ` LIMIT ` + b.arg(b.q.Limit) + ` OFFSET ` + b.arg(b.q.Offset), len(b.q.Dimensions)
}

// grouped is the SQL of the answer's rows before order and page: d0.. and m0... The
// dimensions are grouped as stored (k0..) and labelled here, on one row a group rather than
// on every visit; labels that several stored values share (tv and desktop are both Desktop,
// the days of a week) merge here, where a visitor-day of several visits is counted once by
// its key (rkey).
func (b *queryBuild) grouped(where string) string {
	var dims, selected []string
	for i, f := range b.q.Dimensions {
		d := fmt.Sprintf("d%d", i)
		dims = append(dims, d)
		selected = append(selected, b.dimensionLabel(f, fmt.Sprintf("k%d", i))+" AS "+d)
	}
	for i, m := range b.q.Metrics {
		var sql string
		if m.IsRevenue() {
			sql = b.revenueSQL(m)
		} else {
			sql = b.metricSQL(m)
		}
		if m == query.Events && b.conversionEvents() {
			sql = "sum(events)"
		}
		if m == query.Percentage && b.totalInline() {
			sql = "coalesce(100.0 * (" + sql + ") / nullif((SELECT " + sql + " FROM v), 0), 0)"
		}
		selected = append(selected, sql+fmt.Sprintf(" AS m%d", i))
	}
	groupBy := ""
	if len(dims) > 0 {
		groupBy = " GROUP BY " + strings.Join(dims, ", ")
	}
	if b.totalInline() {
		// v once, for the groups and for percentage's whole.
		with := "WITH "
		if rep := b.withRepeats(); rep != "" {
			with = strings.TrimSuffix(rep, " ") + ", "
		}
		return with + `v AS MATERIALIZED (` + b.perVisitor(where) + `) SELECT ` + strings.Join(selected, ", ") + ` FROM v` + groupBy
	}
	return b.withRepeats() + `SELECT ` + strings.Join(selected, ", ") + ` FROM (` + b.perVisitor(where) + `) AS v` + groupBy
}

// totalInline tells whether percentage's whole is computed by the statement itself, from v:
// when a visit is one row of u (no hit dimension), v's rows hold every matching visit once.
func (b *queryBuild) totalInline() bool {
	return slices.Contains(b.q.Metrics, query.Percentage) && b.hitLevel() == query.VisitLevel
}

// needsVisitors tells whether the query counts visitors (visitors, percentage): only then
// are a visitor's visits of a day told apart from other visitors'.
func (b *queryBuild) needsVisitors() bool {
	return slices.ContainsFunc(b.q.Metrics, func(m query.Metric) bool {
		return m == query.Visitors || m == query.Percentage || m == query.ConversionRate || m == query.GroupConversionRate
	})
}

// withRepeats is the WITH clause of rep, the visitor-days of the range with more than one
// visit, when visitors are counted and no list of them tests each visit (b.repeats); else "".
// rep is the lists readRepeats passes, or, past maxRepeats, grouped from the primary key.
func (b *queryBuild) withRepeats() string {
	if !b.needsVisitors() || b.repeats != "" || b.groupVisitors {
		return ""
	}
	if b.repeatRows != "" {
		return `WITH rep AS (` + b.repeatRows + `) `
	}
	return `WITH rep AS (SELECT day, visitor FROM visit_rows WHERE ` + b.base + `
		GROUP BY day, visitor HAVING count(*) > 1) `
}

// repeatKey is the SQL of a visit row's day and visitor as one number.
const repeatKey = `((day - date '2000-01-01')::int8 << 32 | (visitor::int8 & 4294967295))`

// defaultMaxRepeats is how many visitor-days of several visits readRepeats passes to the
// statement as a list (Repository.maxRepeats); past it, the statement joins them (rep) itself.
const defaultMaxRepeats = 50_000

// repeatedVisitorDays reads the visitor-days with more than one visit among the visit rows
// where base holds (the range's, before any filter), as repeatKey numbers, from the primary key
// alone. Its index order (website, day, visitor) already groups each visitor-day, so the rows
// are counted as they stream, without hashing (pgsettings.WithoutHashAgg; docs/engine.md says what it
// saved).
func repeatedVisitorDays(ctx context.Context, tx *sqlx.Tx, base string, args []any) ([]int64, error) {
	var keys []int64
	q := `SELECT ` + repeatKey + ` FROM visit_rows WHERE ` + base + ` GROUP BY day, visitor HAVING count(*) > 1`
	if err := pgsettings.WithoutHashAgg(ctx, tx, func() error { return tx.SelectContext(ctx, &keys, q, args...) }); err != nil {
		return nil, fmt.Errorf("repeated visitors: %w", err)
	}
	return keys, nil
}

// readRepeats reads the visitor-days of the range with several visits, when visitors are
// counted (repeatedVisitorDays), and passes them to the statement as a list (b.repeats):
// PostgreSQL hashes a list of constants once, and testing each visit against it took less than
// joining rep to every visit. Not under a hit dimension: there PostgreSQL cannot tell how few
// groups the list makes of the hits, and sorts them all rather than hashing; rep is joined,
// made of the same visitor-days as two lists (b.repeatRows) rather than grouped from the rows
// in the statement, where PostgreSQL hashed them (docs/query.md, "Speed", has the figures).
func (b *queryBuild) readRepeats(ctx context.Context, tx *sqlx.Tx) error {
	if !b.needsVisitors() || b.groupVisitors {
		return nil
	}
	keys, err := b.rangeRepeats(ctx, tx)
	if err != nil {
		return err
	}
	switch {
	case len(keys) > b.repo.maxRepeats && !b.keptThrough.IsZero():
		b.repeatRows = b.keptRepeatRows()
	case len(keys) > b.repo.maxRepeats:
	case b.hitLevel() == query.VisitLevel:
		b.repeats = b.arg(pq.Array(keys)) + "::int8[]"
	default:
		days, visitors := make([]int32, len(keys)), make([]int32, len(keys))
		for i, k := range keys {
			days[i], visitors[i] = int32(k>>32), int32(uint32(k))
		}
		b.repeatRows = `SELECT date '2000-01-01' + d AS day, v AS visitor FROM unnest(` +
			b.arg(pq.Array(days)) + `::int4[], ` + b.arg(pq.Array(visitors)) + `::int4[]) AS r (d, v)`
	}
	return nil
}

// perVisitor is v: u's rows grouped by the dimensions' keys and, for a visitor-day with
// several visits (rep), by its day and visitor too (rkey). A visitor-day of one visit is one
// visitor for each (visit, dimensions) pair of it (u's first rows), one of several visits is
// one visitor for its group: only the few visitor-days of several visits are grouped one by
// one, where grouping every (dimensions, day, visitor) was most of a query's time.
func (b *queryBuild) perVisitor(where string) string {
	var keys []string
	for i := range b.q.Dimensions {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	selected := strings.Join(append(slices.Clone(keys), ""), ", ")
	visitors, from := "0 AS visitors, NULL::int8 AS rkey", ` FROM (`+b.perVisit(where)+`) AS u`
	switch {
	case b.needsVisitors() && b.groupVisitors:
		// One group a (dimensions, day, visitor): one visitor each.
		visitors = `1 AS visitors, NULL::int8 AS rkey`
		keys = append(keys, "day", "visitor")
	case b.needsVisitors() && b.repeats != "":
		visitors = `count(*) FILTER (WHERE first) AS visitors, rkey`
		keys = append(keys, "rkey")
	case b.needsVisitors():
		visitors = `count(*) FILTER (WHERE first) AS visitors,
			(rep.day - date '2000-01-01')::int8 << 32 | (rep.visitor::int8 & 4294967295) AS rkey`
		from += ` LEFT JOIN rep ON rep.day = u.day AND rep.visitor = u.visitor`
		keys = append(keys, "rep.day", "rep.visitor")
	}
	groupBy := ""
	if len(keys) > 0 {
		groupBy = " GROUP BY " + strings.Join(keys, ", ")
	}
	engagement := ""
	if b.needsEngagement() {
		engagement = engagementSums
	}
	return `SELECT ` + selected + visitors + `, count(*) FILTER (WHERE first) AS visits,
			sum(pv) AS pageviews, sum(ev) AS events, count(*) FILTER (WHERE first AND bounce) AS bounces,
			coalesce(sum(seconds) FILTER (WHERE first), 0) AS seconds` + engagement + b.revenueSums() + from + groupBy + b.columnRows
}

// perVisit is u: one row per matching visit, or (event:page) per pageview, or (event:name)
// per visit and name, with its dimensions' stored values (k0..), day and visitor, whether it
// is the first of its visit with these values (first: it counts the visit, its bounce and its
// seconds), pageviews (pv), custom events (ev), bounce and seconds.
func (b *queryBuild) perVisit(where string) string {
	var dims []string
	for i, f := range b.q.Dimensions {
		dims = append(dims, fmt.Sprintf("%s AS k%d, ", b.dimensionKey(f), i))
	}
	selected := strings.Join(dims, "") + "day, visitor"
	if b.needsVisitors() && b.repeats != "" {
		selected += ", CASE WHEN " + repeatKey + " = ANY(" + b.repeats + ") THEN " + repeatKey + " END AS rkey"
	}
	engagement, join := "", ""
	if b.needsEngagement() {
		engagement, join = engagementColumns, engagementJoin(b.engagementPages())
	}
	pages := b.pages
	pv := pageCount(b.pageIs, pages)
	switch b.hitLevel() {
	case query.PageLevel:
		hitWhere := ""
		if pages != "" {
			hitWhere = " AND " + strings.ReplaceAll(pages, element, "h.v")
		}
		// A pageview is its visit's first of its page when no earlier pageview has it.
		return `SELECT ` + selected + `, array_position(pages, h.v) = h.n AS first, bounce, seconds, 1 AS pv, 0 AS ev` + engagement + `
			FROM visit_rows CROSS JOIN LATERAL unnest(pages) WITH ORDINALITY AS h (v, n)` + join + ` WHERE ` + where + hitWhere
	case query.NameLevel:
		revenue, revenueHits := b.nameRevenue()
		return `SELECT ` + selected + `, true AS first, bool_or(bounce) AS bounce, max(seconds) AS seconds,
				count(*) FILTER (WHERE h.v = 'pageview' AND NOT h.revenue) AS pv,
				count(*) FILTER (WHERE h.v <> 'pageview' AND NOT h.revenue) AS ev` + revenue + `
			FROM visit_rows CROSS JOIN LATERAL (
				SELECT split_part(e, ':', 1), false, NULL::numeric FROM unnest(events) AS e
				UNION ALL SELECT 'pageview', false, NULL FROM generate_series(1, ` + pv + `)` + revenueHits + `
			) AS h (v, revenue, amount) WHERE ` + where + `
			GROUP BY ` + groupKeys(len(dims)) + `day, visitor, id`
	case query.GoalLevel:
		columns, revenue := "", ""
		if b.sumsRevenue() {
			columns, revenue = ", rev, revn", ", g.rev, g.revn"
		}
		return `SELECT ` + selected + `, true AS first, bounce, seconds, g.pv, g.ev` + revenue + `
			FROM visit_rows CROSS JOIN LATERAL (` + b.goalRows() + `) AS g (name, pv, ev` + columns + `) WHERE ` + where
	case query.PropLevel:
		// A visit is a row for each value of the property its hits carried, with the hits
		// that carried it as events; one whose hits carried none is "(none)" with all its
		// hits, as Plausible answers.
		values := propValues(b.propField().Key)
		return `SELECT ` + selected + `, true AS first, bounce, seconds, 0 AS pv, h.n AS ev
			FROM visit_rows CROSS JOIN LATERAL (
				SELECT x.v, count(*) FROM ` + values + ` AS x (v) GROUP BY 1
				UNION ALL SELECT '(none)', pageviews + cardinality(events) WHERE NOT EXISTS (SELECT FROM ` + values + ` AS z)
			) AS h (v, n) WHERE ` + where
	}
	ev := "cardinality(events)"
	if b.conversionEvents() {
		// events answers sum(events) alone: the conversions, pageviews included.
		ev = b.conversionHits()
	}
	revenueJoin, revenue := b.revenueJoin()
	return `SELECT ` + selected + `, true AS first, bounce, seconds, ` + pv + ` AS pv, ` + ev + ` AS ev` + engagement + revenue + `
		FROM visit_rows` + join + revenueJoin + ` WHERE ` + where
}

// propField is the query's event:props dimension.
func (b *queryBuild) propField() query.Field {
	i := slices.IndexFunc(b.q.Dimensions, func(f query.Field) bool { return f.Level == query.PropLevel })
	return b.q.Dimensions[i]
}

// groupKeys are the positions of n selected dimensions, for GROUP BY.
func groupKeys(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%d, ", i)
	}
	return sb.String()
}

// orderBy is the ORDER BY of the answer: the query's order, then every dimension ascending,
// so that pages do not overlap.
func (b *queryBuild) orderBy() string {
	var keys []string
	used := map[string]bool{}
	for _, o := range b.q.OrderBy {
		key := fmt.Sprintf("d%d", o.Dimension)
		if o.Metric >= 0 {
			key = fmt.Sprintf("m%d", o.Metric)
		}
		dir := " ASC"
		if o.Desc {
			dir = " DESC"
		}
		used[key] = true
		keys = append(keys, key+dir)
	}
	for i := range b.q.Dimensions {
		if key := fmt.Sprintf("d%d", i); !used[key] {
			keys = append(keys, key+" ASC")
		}
	}
	return strings.Join(keys, ", ")
}

// totalVisitors is the SQL of the visitors of every matching visit: percentage's whole.
func (b *queryBuild) totalVisitors() string {
	inner := *b.q
	inner.Dimensions = nil
	inner.Metrics = []query.Metric{query.Visitors}
	t := &queryBuild{q: &inner, filterBuild: filterBuild{sqlArgs: sqlArgs{args: b.args}}, base: b.base, where: b.where, fraction: b.fraction, repeats: b.repeats, repeatRows: b.repeatRows}
	return t.withRepeats() + `SELECT (` + metricSQL(query.Visitors) + `)::float8 FROM (` + t.perVisitor(b.where) + `) AS v`
}

// scanQueryRow reads a row of the statement: its dimensions, its metrics (a revenue metric as
// the text of its numeric, exact) and the rows before the page.
func scanQueryRow(rows *sqlx.Rows, dims int, metrics []query.Metric) (QueryRow, int64, error) {
	dimValues := make([]string, dims)
	// An aggregate over no rows (a range without visits) is NULL: it answers 0, as Plausible does.
	nullable := make([]sql.NullFloat64, len(metrics))
	amounts := make([]sql.NullString, len(metrics))
	var total int64
	dest := make([]any, 0, dims+len(metrics)+1)
	for i := range dimValues {
		dest = append(dest, &dimValues[i])
	}
	for i, m := range metrics {
		if m.IsRevenue() {
			dest = append(dest, &amounts[i])
		} else {
			dest = append(dest, &nullable[i])
		}
	}
	dest = append(dest, &total)
	if err := rows.Scan(dest...); err != nil {
		return QueryRow{}, 0, err
	}
	row := QueryRow{Dimensions: dimValues, Metrics: make([]float64, len(metrics))}
	for i, m := range metrics {
		row.Metrics[i] = nullable[i].Float64
		if !m.IsRevenue() {
			continue
		}
		if row.Revenue == nil {
			row.Revenue = make([]*RevenueAmount, len(metrics))
		}
		if amounts[i].Valid {
			row.Revenue[i] = &RevenueAmount{Amount: amounts[i].String}
		}
	}
	return row, total, nil
}

// QueryTimeLabels are every bucket of the range of a time unit, as the time dimension labels
// them.
func QueryTimeLabels(q *query.Query) []string {
	var out []string
	rg := q.Range
	switch q.TimeUnit() {
	case query.Hour:
		for day := rg.From; !day.After(rg.To); day = day.AddDate(0, 0, 1) {
			for h := 0; h < 24; h++ {
				if (day.Equal(rg.From) && h < rg.FromHour) || (day.Equal(rg.To) && h > rg.ToHour) {
					continue
				}
				out = append(out, fmt.Sprintf("%s %02d:00:00", day.Format(dateLayout), h))
			}
		}
	case query.Week:
		for day := rg.From; !day.After(rg.To); day = stats.WeekStart(day).AddDate(0, 0, 7) {
			out = append(out, day.Format(dateLayout))
		}
	case query.Month:
		for day := stats.MonthStart(rg.From); !day.After(rg.To); day = day.AddDate(0, 1, 0) {
			out = append(out, day.Format(dateLayout))
		}
	case query.DayUnit:
		for day := rg.From; !day.After(rg.To); day = day.AddDate(0, 0, 1) {
			out = append(out, day.Format(dateLayout))
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// roundTo rounds x to n decimals, halves away from zero.
func roundTo(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}
