package repository

import (
	"context"
	"database/sql"
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
// visitor), never a count(DISTINCT), which sorts. Past stats.ExactFilterDays the rows of the
// visitors below a cut of the day number are read (a range of the key) and counts scaled.

// rowSource is the WHERE clause over visit_rows of one filtered read, with its arguments.
type rowSource struct {
	where    string
	args     []any
	page     string  // the page filter's value as a literal; "" without one
	fraction float64 // of the visitors read: 1, or stats.SampleFraction's sample
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

func (s *rowSource) arg(v any) string {
	s.args = append(s.args, v)
	return fmt.Sprintf("$%d", len(s.args))
}

// newRowSource selects the website's rows of the days that match every filter, sampled when
// fraction is under 1 (stats.SampleFraction: a range longer than stats.ExactFilterDays). The
// range, the sample and the filters' conditions are the query engine's (rangeWhere,
// filtered_conds.go). Filters that match nothing ((other)) select no row, so every read
// answers its zeros and empty lists as for an unknown value.
func newRowSource(ctx context.Context, websiteID int64, days stats.Range, fraction float64, filters stats.Filters, goal *goalMatch) (*rowSource, error) {
	b := &queryBuild{q: &query.Query{Range: query.Range{From: days.From, To: days.To, ToHour: 23}}, fraction: fraction}
	conds := []string{b.rangeWhere(websiteID)}
	if filters.MatchesNothing() {
		conds = append(conds, "false")
	}
	filterConds, err := engineConds(ctx, b, filters, goal)
	if err != nil {
		return nil, err
	}
	s := &rowSource{where: strings.Join(append(conds, filterConds...), " AND "), args: b.args, fraction: fraction}
	if page, ok := filters.Get(stats.Page); ok {
		// Under filter[page] a visit's pageviews are that page's (pageviews, valueTotals): a
		// literal, as a statement that does not count pageviews must not take it as an argument.
		s.page = pq.QuoteLiteral(page)
	}
	return s, nil
}

// pageviews is a row's pageviews as counted: with a page filter, that page's only.
func (s *rowSource) pageviews() string {
	if s.page != "" {
		return "cardinality(array_positions(pages, " + s.page + "))"
	}
	return "pageviews"
}

// sampleCut maps a fraction onto the day numbers (signed 32 bits): the rows whose visitor is
// below it are that fraction of the visitors, whole visitors each.
func sampleCut(fraction float64) int64 {
	return math.MinInt32 + int64(math.Round(fraction*(1<<32)))
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

// readRows runs a filtered read in a read-only transaction of its own settings: memory enough
// for its hash tables and sorts (a month of a busy website's pages sorts about 4 MB, past the
// default work_mem), and no parallel workers, which on a small server slowed one read down
// (the workers contend with the dashboard's other reads for the same cores) rather than up.
func (r *Repository) readRows(ctx context.Context, read func(tx *sqlx.Tx) error) error {
	tx, err := r.reads.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true)`); err != nil {
		return err
	}
	if err := read(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// valueTotals is the SQL of one name's (value, count) over the matching rows.
func (s *rowSource) valueTotals(name stats.Name) (string, error) {
	switch name {
	case stats.Page:
		onlyPage := ""
		if s.page != "" {
			onlyPage = " AND u.value = " + s.page
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

func (v rowReader) Top(ctx context.Context, names []stats.Name, limit int) (map[stats.Name]StatList, error) {
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
	s, err := v.source(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	totals, err := s.valueTotals(stats.Event)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
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

// visitorTotals is the SQL of the totals of the matching rows grouped by groupBy (columns of
// visit_rows, "" for all of them): visitors are the groups of (day, visitor) within, so that
// they are summed over days; timed visits are the visits (every row has its duration).
func (s *rowSource) visitorTotals(groupBy string) string {
	inner, outer, selected := "day, visitor", "", ""
	if groupBy != "" {
		inner = groupBy + ", visitor"
		outer = " GROUP BY " + groupBy
		selected = groupBy + ", "
	}
	return `SELECT ` + selected + `count(*) AS visitors, coalesce(sum(visits), 0)::bigint AS visits,
			coalesce(sum(pageviews), 0)::bigint AS pageviews, coalesce(sum(events), 0)::bigint AS events,
			coalesce(sum(bounces), 0)::bigint AS bounces, coalesce(sum(seconds), 0)::bigint AS seconds
		FROM (
			SELECT ` + inner + `, count(*) AS visits, sum(` + s.pageviews() + `) AS pageviews, sum(cardinality(events)) AS events,
				count(*) FILTER (WHERE bounce) AS bounces, sum(seconds) AS seconds
			FROM visit_rows WHERE ` + s.where + `
			GROUP BY ` + inner + `
		) AS v` + outer
}

// rowTotals is one row of visitorTotals.
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

func (v rowReader) Totals(ctx context.Context) (stats.Totals, error) {
	s, err := v.source(ctx)
	if err != nil {
		return stats.Totals{}, fmt.Errorf("stats.summary: %w", err)
	}
	var t rowTotals
	if err := v.repo.readRows(ctx, func(tx *sqlx.Tx) error { return tx.GetContext(ctx, &t, s.visitorTotals(""), s.args...) }); err != nil {
		return stats.Totals{}, fmt.Errorf("stats.summary: %w", err)
	}
	return t.totals(s.fraction), nil
}

func (v rowReader) Series(ctx context.Context, interval stats.Interval, zone stats.Zone) ([]Bucket, error) {
	s, err := v.source(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats.timeseries: %w", err)
	}
	groupBy := "day"
	if interval == stats.Hour {
		groupBy = "day, hour"
	}
	var rows []struct {
		Day  time.Time `db:"day"`
		Hour int       `db:"hour"`
		rowTotals
	}
	if err := v.repo.readRows(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &rows, s.visitorTotals(groupBy), s.args...) }); err != nil {
		return nil, fmt.Errorf("stats.timeseries: %w", err)
	}
	sums := map[string]rowTotals{} // by bucket key
	for _, row := range rows {
		key := bucketKey(interval, stats.Day(row.Day), stats.HourValue(row.Hour))
		sums[key] = sums[key].add(row.rowTotals)
	}
	starts := interval.ZoneBuckets(v.days, zone)
	out := make([]Bucket, len(starts))
	for i, start := range starts {
		t := sums[startKey(interval, start)].totals(s.fraction)
		t.Events = 0 // as the counters' series, which have none
		out[i] = Bucket{Start: start.Start, Totals: t}
	}
	return out, nil
}
