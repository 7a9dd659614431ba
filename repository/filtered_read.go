package repository

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// Filtered reads (docs/filters.md): the numbers of the visits that
// match every filter, read from visit_rows: rowReader, the Reader that Repository.Reader
// chooses when given filters; the daily counters answer otherwise.
//
// Every read is one statement over the website's rows of the range's days (the primary key's
// prefix: each day's partition, a closed day clustered so the website's rows are together),
// with the filters as conditions of the scan, aggregated by hash. Lists of several visit-level
// names are one scan with GROUPING SETS; distinct visitors a day are the groups of (day,
// visitor), never a count(DISTINCT), which sorts. Past stats.MaxExactPageviews the rows of the
// visitors below a cut of the day number are read (a range of the key) and counts scaled.

// rowSource is the WHERE clause over visit_rows of one filtered read, with its arguments.
type rowSource struct {
	where string
	sqlArgs
	// page is the predicate on a pageview's page (element) that the page filters make, with
	// literals: a statement that does not count pageviews leaves it out. "" without one.
	page     string
	pageIs   []string // the pages of a lone is among the page filters (pagesIs), or nil
	fraction float64  // of the visitors read: 1, or stats.SampleFraction's sample
}

// visitColumn is the quoted column of visit_rows of a visit-level name (stats.Dimensions), one
// value per visit; ok is false for any other name.
func visitColumn(name stats.Name) (column string, d stats.Dimension, ok bool) {
	d, _, ok = stats.DimensionOf(name)
	return pq.QuoteIdentifier(d.Column), d, ok
}

// uncountedNone are the names whose counters count nothing for a visit that has none
// (stats.Dimension.OnlyGiven), so their filtered lists leave out "" too (a filter on "" still
// matches those visits), as quoted literals.
func uncountedNone() []string {
	var out []string
	for _, d := range stats.Dimensions {
		if d.OnlyGiven {
			out = append(out, pq.QuoteLiteral(string(d.Name)))
		}
	}
	return out
}

// newRowSource selects the website's rows of the days that match every filter, sampled when
// fraction is under 1 (stats.SampleFraction: a view of more than stats.MaxExactPageviews). The
// range, the sample and the filters' conditions are the query engine's (rangeWhere,
// filtered_conds.go). Filters that match nothing ((other)) select no row, so every read
// answers its zeros and empty lists as for an unknown value.
func newRowSource(ctx context.Context, websiteID int64, days stats.Range, fraction float64, filters stats.Filters, goal *goalMatch) (*rowSource, error) {
	b := &filterBuild{}
	conds := []string{rangeWhere(&b.sqlArgs, websiteID, engineRange(days), fraction)}
	if filters.MatchesNothing() {
		conds = append(conds, "false")
	}
	filterConds, err := engineConds(ctx, b, filters, goal)
	if err != nil {
		return nil, err
	}
	s := &rowSource{where: strings.Join(append(conds, filterConds...), " AND "), sqlArgs: b.sqlArgs, fraction: fraction}
	// Under page filters (filter, filter_any, filter_contains) a visit's pageviews are those of
	// the pages they keep (pageviews, valueTotals), by the query engine's rule.
	var pages []query.Filter
	for _, f := range filters {
		if f.Name == stats.Page {
			ef, err := engineFilter(f)
			if err != nil {
				return nil, err
			}
			pages = append(pages, ef)
		}
	}
	inline := &filterBuild{sqlArgs: sqlArgs{inline: true}}
	if s.page, err = inline.pagesKept(ctx, pages); err != nil {
		return nil, err
	}
	s.pageIs = pagesIs(pages)
	return s, nil
}

// engineRange is a range as the query engine takes it: its days, narrowed to its hours.
func engineRange(r stats.Range) query.Range {
	if !r.Hours.Set {
		return query.Range{From: r.From, To: r.To, ToHour: 23}
	}
	return query.Range{From: r.From, To: r.To, FromHour: r.Hours.From, ToHour: r.Hours.To}
}

// pageOf is the page predicate on the page expression e: "" without page filters.
func (s *rowSource) pageOf(e string) string {
	return strings.ReplaceAll(s.page, element, e)
}

// pageviews is a row's pageviews as counted: with page filters, those of the pages they keep.
func (s *rowSource) pageviews() string {
	return pageCount(s.pageIs, s.page)
}

// scale is a count of the sample as an estimate of the whole, rounded half up.
func scale(n int64, fraction float64) int64 {
	if fraction >= 1 {
		return n
	}
	// In millionths, so that 1/10 is exact and the result an integer.
	den := int64(math.Round(fraction * 1e6))
	return (2*n*1_000_000 + den) / (2 * den)
}

// valueTotals is the SQL of one name's (value, count) over the matching rows.
func (s *rowSource) valueTotals(name stats.Name) (string, error) {
	switch name {
	case stats.Page:
		onlyPage := ""
		if s.page != "" {
			onlyPage = " AND " + s.pageOf("u.value")
		}
		return `SELECT u.value, count(*) AS count FROM visit_rows CROSS JOIN LATERAL unnest(pages) AS u (value)
			WHERE ` + s.where + onlyPage + ` GROUP BY u.value`, nil
	case stats.Event:
		return `SELECT u.value, count(*) AS count FROM visit_rows CROSS JOIN LATERAL unnest(events) AS u (value)
			WHERE ` + s.where + ` GROUP BY u.value`, nil
	case stats.Pageview:
		pv := s.pageviews()
		return `SELECT to_char(day, 'YYYY-MM-DD') AS value, sum(` + pv + `)::bigint AS count FROM visit_rows
			WHERE ` + s.where + ` GROUP BY day HAVING sum(` + pv + `) > 0`, nil
	case stats.Visit:
		return `SELECT to_char(day, 'YYYY-MM-DD') AS value, count(*) AS count FROM visit_rows
			WHERE ` + s.where + ` GROUP BY day`, nil
	case stats.Visitor:
		return `SELECT to_char(day, 'YYYY-MM-DD') AS value, count(*) AS count
			FROM (SELECT day, visitor FROM visit_rows WHERE ` + s.where + ` GROUP BY day, visitor) AS v
			GROUP BY day`, nil
	}
	column, d, ok := visitColumn(name)
	if !ok {
		return "", fmt.Errorf("%q is not a statistic", name)
	}
	none := ""
	if d.OnlyGiven {
		none = " AND " + column + " <> ''"
	}
	return `SELECT ` + column + ` AS value, count(*) AS count FROM visit_rows
		WHERE ` + s.where + none + ` GROUP BY ` + column, nil
}

// nameTotals is the SQL of (name, value, count) of the names over the matching rows: the
// visit-level names in one scan (GROUPING SETS, a hash table each), every other name in one
// more.
func (s *rowSource) nameTotals(names []stats.Name) (string, error) {
	var columns, parts []string
	var name strings.Builder // the name of a row of the GROUPING SETS: its set's column
	for _, n := range names {
		if c, _, ok := visitColumn(n); ok {
			columns = append(columns, c)
			fmt.Fprintf(&name, " WHEN GROUPING(%s) = 0 THEN %s", c, pq.QuoteLiteral(string(n)))
			continue
		}
		totals, err := s.valueTotals(n)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf(`SELECT %s::text AS name, value, count FROM (%s) AS t`, pq.QuoteLiteral(string(n)), totals))
	}
	if len(columns) > 0 {
		none := append(uncountedNone(), "''") // '': no name, so that the list is never empty
		parts = append(parts, `SELECT name, value, count FROM (
				SELECT CASE`+name.String()+` END AS name, coalesce(`+strings.Join(columns, ", ")+`) AS value, count(*) AS count
				FROM visit_rows WHERE `+s.where+`
				GROUP BY GROUPING SETS ((`+strings.Join(columns, "), (")+`))
			) AS g WHERE value <> '' OR name NOT IN (`+strings.Join(none, ", ")+`)`)
	}
	return strings.Join(parts, "\n\t\t\tUNION ALL "), nil
}

// scaleEntries scales a sample's counts in place. No estimate is 0: a value read counts at
// least 1, which scales to at least 1.
func scaleEntries(entries []StatEntry, fraction float64) {
	for i := range entries {
		entries[i].Count = scale(entries[i].Count, fraction)
	}
}

func (v rowReader) List(ctx context.Context, q StatQuery) ([]StatEntry, int64, error) {
	var col *columnTotals
	if q.Name == stats.Property || columnName(q.Name) {
		through, counts, err := v.columnList(ctx, q)
		if err != nil {
			return nil, 0, fmt.Errorf("stats.list: %w", err)
		}
		if !through.IsZero() {
			v, col = v.after(through), counts
		}
	}
	s, err := v.source(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
	}
	var totals string
	if q.Name == stats.Property {
		totals = s.propTotals(q.Property)
	} else if totals, err = s.valueTotals(q.Name); err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
	}
	if col != nil {
		totals = s.sumValues(totals, col)
	}
	if q.Search != "" {
		totals = `SELECT value, count FROM (` + totals + `) AS t WHERE value ILIKE ` + s.arg(likePattern(q.Search))
	}
	var entries []StatEntry
	var total int64
	err = v.repo.readRows(ctx, func(tx *sqlx.Tx) (err error) {
		entries, total, err = listPage(ctx, tx, totals, s.args, q)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("stats.list: %w", err)
	}
	scaleEntries(entries, s.fraction)
	return entries, total, nil
}

// Top reads the names the column store counts (columnName) from its days and the rows of the
// others, every other name from the rows alone.
func (v rowReader) Top(ctx context.Context, names []stats.Name, limit int) (map[stats.Name]StatList, error) {
	var counted, rest []stats.Name
	for _, n := range names {
		if columnName(n) {
			counted = append(counted, n)
		} else {
			rest = append(rest, n)
		}
	}
	through, col, err := v.columnCounts(ctx, counted)
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	if through.IsZero() {
		return v.top(ctx, names, limit, nil)
	}
	out, err := v.after(through).top(ctx, counted, limit, col)
	if err != nil || len(rest) == 0 {
		return out, err
	}
	more, err := v.top(ctx, rest, limit, nil)
	if err != nil {
		return nil, err
	}
	for n, l := range more {
		out[n] = l
	}
	return out, nil
}

// top ranks names' values over v's rows, summed with col's counts (nil: none).
func (v rowReader) top(ctx context.Context, names []stats.Name, limit int, col *columnTotals) (map[stats.Name]StatList, error) {
	if len(names) == 0 {
		return map[stats.Name]StatList{}, nil
	}
	s, err := v.source(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	totals, err := s.nameTotals(names)
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	if col != nil {
		totals = `SELECT name, value, sum(count)::bigint AS count FROM (` + totals + `
			UNION ALL ` + col.sql(&s.sqlArgs) + `) AS t GROUP BY name, value`
	}
	var out map[stats.Name]StatList
	err = v.repo.readRows(ctx, func(tx *sqlx.Tx) (err error) {
		out, err = topLists(ctx, tx, totals, s.args, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("stats.top: %w", err)
	}
	for _, l := range out {
		scaleEntries(l.Entries, s.fraction)
	}
	return out, nil
}

func (v rowReader) Events(ctx context.Context, limit, valuesEach int) ([]EventGroup, int64, error) {
	through, col, err := v.columnCounts(ctx, []stats.Name{stats.Event})
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	if !through.IsZero() {
		v = v.after(through)
	}
	s, err := v.source(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	totals, err := s.valueTotals(stats.Event)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	if col != nil {
		totals = s.sumValues(totals, col)
	}
	var groups []EventGroup
	var distinct int64
	err = v.repo.readRows(ctx, func(tx *sqlx.Tx) (err error) {
		groups, distinct, err = eventGroups(ctx, tx, totals, s.args, limit, valuesEach)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	for i := range groups {
		groups[i].Total = scale(groups[i].Total, s.fraction)
		scaleEntries(groups[i].Values, s.fraction)
	}
	return groups, distinct, nil
}

// rowTotals are the parts of stats.Totals as the engine sums them (totalsMetrics, in order).
type rowTotals struct {
	Visitors  int64 `db:"visitors"`
	Visits    int64 `db:"visits"`
	Pageviews int64 `db:"pageviews"`
	Events    int64 `db:"events"`
	Bounces   int64 `db:"bounces"`
	Seconds   int64 `db:"seconds"`
}

func (t rowTotals) add(o rowTotals) rowTotals {
	return rowTotals{t.Visitors + o.Visitors, t.Visits + o.Visits, t.Pageviews + o.Pageviews, t.Events + o.Events,
		t.Bounces + o.Bounces, t.Seconds + o.Seconds}
}

func (t rowTotals) totals(fraction float64) stats.Totals {
	return stats.Totals{
		Visitors: scale(t.Visitors, fraction), Visits: scale(t.Visits, fraction),
		Pageviews: scale(t.Pageviews, fraction), Events: scale(t.Events, fraction),
		Bounces: scale(t.Bounces, fraction), VisitSeconds: scale(t.Seconds, fraction),
		TimedVisits: scale(t.Visits, fraction),
	}
}

// totalsBuild is the engine's build of v1's summary (unit query.NoTime) or its series by day or
// hour: the query value of the range's whole days, v1's filters translated (engineFilter) and
// metrics (the parts of stats.Totals, or fewer); nil when the filters match nothing.
func (v rowReader) totalsBuild(ctx context.Context, unit query.TimeUnit, metrics []query.Metric) (*queryBuild, float64, error) {
	q := &query.Query{Range: engineRange(v.days), Metrics: metrics,
		OrderBy: []query.Order{{Metric: 0, Dimension: -1, Desc: true}}, Limit: math.MaxInt32}
	if unit != query.NoTime {
		q.Dimensions = []query.Field{{Name: "time", Level: query.TimeLevel, Time: unit}}
		q.OrderBy = []query.Order{{Metric: -1, Dimension: 0}}
	}
	var err error
	if q.Filters, err = engineFilters(v.filters); err != nil {
		return nil, 0, err
	}
	b, err := v.repo.newBuild(ctx, v.websiteID, q, stats.Zone{})
	if err != nil {
		return nil, 0, err
	}
	if v.filters.MatchesNothing() {
		return nil, b.fraction, nil // (other): no row holds it
	}
	b.countNarrow()
	if name, ok := v.filters.Get(stats.GoalName); ok {
		goal, err := v.goal.resolve(ctx, v.repo, v.websiteID, v.days, name)
		if err != nil {
			return nil, 0, err
		}
		if goal != nil {
			b.goals = []goalMatch{*goal}
		}
	}
	return b, b.fraction, nil
}

// totalsRows runs totalsBuild's statement: each row's parts with its time dimension's label.
func (v rowReader) totalsRows(ctx context.Context, unit query.TimeUnit) ([]QueryRow, float64, error) {
	return v.metricRows(ctx, unit, totalsMetrics)
}

func (v rowReader) metricRows(ctx context.Context, unit query.TimeUnit, metrics []query.Metric) ([]QueryRow, float64, error) {
	b, fraction, err := v.totalsBuild(ctx, unit, metrics)
	if err != nil || b == nil {
		return nil, fraction, err
	}
	out, err := v.repo.runBuild(ctx, b)
	return out.Rows, fraction, err
}

// rowTotalsOf are a row's parts.
func rowTotalsOf(row QueryRow) rowTotals {
	m := row.Metrics
	return rowTotals{Visitors: int64(m[0]), Visits: int64(m[1]), Pageviews: int64(m[2]), Events: int64(m[3]),
		Bounces: int64(m[4]), Seconds: int64(m[5])}
}

func (v rowReader) Totals(ctx context.Context) (stats.Totals, error) {
	rows, fraction, err := v.totalsRows(ctx, query.NoTime)
	if err != nil {
		return stats.Totals{}, fmt.Errorf("stats.summary: %w", err)
	}
	var t rowTotals
	for _, row := range rows {
		t = t.add(rowTotalsOf(row))
	}
	return t.totals(fraction), nil
}

// Visitors are the totals' visitors alone: the engine's statement without the other sums,
// which on PostgreSQL's rows cost as much again as the count (bench-goals, docs/goals.md).
func (v rowReader) Visitors(ctx context.Context) (int64, error) {
	rows, fraction, err := v.metricRows(ctx, query.NoTime, []query.Metric{query.Visitors})
	if err != nil {
		return 0, fmt.Errorf("stats.visitors: %w", err)
	}
	var n int64
	for _, row := range rows {
		n += int64(row.Metrics[0])
	}
	return scale(n, fraction), nil
}

func (v rowReader) Series(ctx context.Context, interval stats.Interval, zone stats.Zone) ([]Bucket, error) {
	unit := query.DayUnit
	if interval == stats.Hour {
		unit = query.Hour
	}
	rows, fraction, err := v.totalsRows(ctx, unit)
	if err != nil {
		return nil, fmt.Errorf("stats.timeseries: %w", err)
	}
	sums := map[string]rowTotals{} // by bucket key
	for _, row := range rows {
		// The label is the day, or the day and hour ("2026-03-04 05:00:00").
		label := row.Dimensions[0]
		day, err := time.Parse(dateLayout, label[:len(dateLayout)])
		if err != nil {
			return nil, fmt.Errorf("stats.timeseries: %w", err)
		}
		hour := 0
		if len(label) > len(dateLayout) {
			fmt.Sscanf(label[len(dateLayout)+1:], "%d", &hour)
		}
		key := bucketKey(interval, stats.Day(day), stats.HourValue(hour))
		sums[key] = sums[key].add(rowTotalsOf(row))
	}
	starts := interval.ZoneBuckets(v.days, zone)
	out := make([]Bucket, len(starts))
	for i, start := range starts {
		out[i] = Bucket{Start: start.Start, Totals: sums[startKey(interval, start)].totals(fraction)}
	}
	return out, nil
}
