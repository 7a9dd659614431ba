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
	Dimensions []query.Field // visit-level, time-level or event:page (Supports)
	Filters    []query.Filter
	Visitors   bool // count visitors: group the visitor-days of several visits by rkey
	// Fraction, when above 0 and below 1, reads only a sample: the visitors below
	// stats.SampleCut, as PostgreSQL's rows of the same view are read; the caller scales.
	Fraction float64
	// Matched are the stored values a matches filter keeps (the engine matches RE2 patterns
	// in Go, over the range's distinct values).
	Matched func(ctx context.Context, f query.Filter) ([]string, error)
	// Like is a contains filter's value as a LIKE pattern whose escape is a backslash.
	Like func(v string) string
	// Goals are the goals an event:goal filter names, their patterns matched with the range's
	// pages (the engine's rule).
	Goals func(f query.Filter) []Goal
	// Conversions, when not nil, are the goals whose converting hits the events are (the
	// engine's conversion events under goal filters), in place of every custom event.
	Conversions []Goal
}

// Goal is a goal as a condition on a visit: a pageview goal's matching pages, or an event
// goal's name as sent and as rows written before names were kept hold it.
type Goal struct {
	Pageview       bool
	Pages          []string
	Event, Encoded string
}

// Rows are a Part's groups, column by column: Keys[i] the text of dimension i's key (a time
// dimension's day as 2026-11-28, or its hour as 2026-11-28 05:00:00), then the sums.
type Rows struct {
	Keys                                                  [][]string
	Visitors, Visits, Pageviews, Events, Bounces, Seconds []int64
	RKey                                                  []sql.NullInt64
}

// metrics are the metrics the store's sums make (the conversion rates are visitors here), v1's
// parts among them.
var metrics = []query.Metric{query.Visitors, query.Visits, query.Pageviews, query.Events, query.BounceRate,
	query.VisitDuration, query.ViewsPerVisit, query.Percentage, query.ConversionRate, query.GroupConversionRate,
	query.CustomEvents, query.Bounces, query.VisitSeconds}

// Supports tells whether the store answers reads of these dimensions, filters and metrics:
// those on the visit-level values, time and pages (event:page), filtered by those, by goals and
// by a custom property's values (is), of the metrics its sums make. goals: the read is the goals list's (GoalCounts), whose
// event:goal dimension and top-level goal filters pick the goals counted.
func Supports(dims []query.Field, filters []query.Filter, asked []query.Metric, goals bool) bool {
	if slices.ContainsFunc(asked, func(m query.Metric) bool { return !slices.Contains(metrics, m) }) {
		return false
	}
	for _, f := range dims {
		switch {
		case f.Level == query.VisitLevel || f.Level == query.TimeLevel:
		case f.Level == query.PageLevel && !goals, f.Level == query.GoalLevel && goals:
		default:
			return false
		}
	}
	var held func(f query.Filter) bool
	held = func(f query.Filter) bool {
		if f.Op == query.And || f.Op == query.Or || f.Op == query.Not {
			return !slices.ContainsFunc(f.Children, func(c query.Filter) bool { return !held(c) })
		}
		return f.Field.Level == query.VisitLevel || f.Field.Level == query.PageLevel || f.Field.Level == query.GoalLevel ||
			f.Field.Level == query.PropLevel && f.Op == query.Is && !f.IgnoreCase // propCond
	}
	return !slices.ContainsFunc(filters, func(f query.Filter) bool { return !held(f) })
}

// partBuild collects a Part's SQL arguments (DuckDB's numbered placeholders) and the
// selections its statement joins with (selections.go), which s keeps.
type partBuild struct {
	p    Part
	s    *Store
	args []any
	sels []selection
}

func (b *partBuild) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

// Start builds the part's statement (calling p.Matched now, never beside the caller) and runs
// it beside the caller, which reads the other days meanwhile; wait returns its rows.
func (s *Store) Start(ctx context.Context, p Part) (wait func() (Rows, error)) {
	b := &partBuild{p: p, s: s}
	sqlText, err := b.statement(ctx)
	if err != nil {
		return func() (Rows, error) { return Rows{}, err }
	}
	return runBeside(ctx, b, sqlText, func(sqlText string) (Rows, error) { return s.read(ctx, sqlText, b.args, len(p.Dimensions)) })
}

// runBeside runs, beside the caller, run with the build's statement naming its selections'
// tables, made first when they are not kept.
func runBeside[T any](ctx context.Context, b *partBuild, sqlText string, run func(sqlText string) (T, error)) (wait func() (T, error)) {
	return beside(func() (T, error) {
		named, release, err := b.s.withSelections(ctx, sqlText, b.sels)
		if err != nil {
			var zero T
			return zero, err
		}
		defer release()
		return run(named)
	})
}

// beside runs run in a goroutine of its own; the function returned waits for its answer.
func beside[T any](run func() (T, error)) (wait func() (T, error)) {
	done := make(chan struct{})
	var out T
	var err error
	go func() {
		defer close(done)
		out, err = run()
	}()
	return func() (T, error) {
		<-done
		return out, err
	}
}

// scanEach runs a statement and calls scan on each of its rows.
func (s *Store) scanEach(ctx context.Context, sqlText string, args []any, scan func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return fmt.Errorf("column store: read: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("column store: read: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("column store: read: %w", err)
	}
	return nil
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

// statement is the part's SQL: the visits of the website's days that the filters keep (u: one
// row a visit, or under event:page a pageview of the pages the page filters keep, first
// when its visit has no earlier pageview of its page), grouped by the dimensions' keys and,
// counting visitors, by rkey, as the engine's perVisit and perVisitor.
func (b *partBuild) statement(ctx context.Context) (string, error) {
	where, err := b.where(ctx)
	if err != nil {
		return "", err
	}
	pagesFrom := len(b.args) // pages' arguments: a selection takes them (a long list)
	pages, err := b.pagesKept(ctx)
	if err != nil {
		return "", err
	}
	var keys, outer []string
	page := slices.ContainsFunc(b.p.Dimensions, func(f query.Field) bool { return f.Level == query.PageLevel })
	for i, f := range b.p.Dimensions {
		keys, outer = append(keys, fmt.Sprintf("%s AS k%d, ", b.key(f), i)), append(outer, fmt.Sprintf("k%d", i))
	}
	var u string
	if page {
		hits := ""
		if pages != "" {
			hits = " WHERE " + strings.ReplaceAll(pages, element, "page")
		}
		u = `SELECT ` + strings.Join(keys, "") + `rkey, list_position(pages, page) = n AS first, bounce, seconds, 1 AS pv, 0 AS ev
			FROM (SELECT *, unnest(pages) AS page, unnest(range(1, len(pages) + 1)) AS n FROM visits WHERE ` + where + `) AS h` + hits
	} else {
		pv, ev := "pageviews", "events"
		switch {
		case strings.Contains(pages, "SELECT"): // a long list, which a lambda cannot join
			pv = b.selectedHits(strings.ReplaceAll(pages, element, "x"), pagesFrom)
		case pages != "":
			pv = "len(list_filter(pages, lambda x: " + strings.ReplaceAll(pages, element, "x") + "))"
		}
		if b.p.Conversions != nil {
			ev = b.conversionHits()
		}
		u = `SELECT ` + strings.Join(keys, "") + `rkey, true AS first, bounce, seconds, ` + pv + ` AS pv, ` + ev + ` AS ev
			FROM visits WHERE ` + where
	}
	groups := slices.Clone(outer)
	rkey := "NULL::BIGINT"
	if b.p.Visitors {
		rkey = "rkey"
		groups = append(groups, "rkey")
	}
	groupBy := ""
	if len(groups) > 0 {
		groupBy = " GROUP BY " + strings.Join(groups, ", ")
	}
	return `SELECT ` + strings.Join(append(outer, ""), ", ") + `count(*) FILTER (WHERE first), ` + rkey + `,
		count(*) FILTER (WHERE first), coalesce(sum(pv), 0)::BIGINT, coalesce(sum(ev), 0)::BIGINT,
		count(*) FILTER (WHERE first AND bounce), coalesce(sum(seconds) FILTER (WHERE first), 0)::BIGINT
		FROM (` + u + `) AS u` + groupBy, nil
}

// where is the condition of the part's visits: its website, days and filters.
func (b *partBuild) where(ctx context.Context) (string, error) {
	conds := []string{b.rangeCond()}
	for _, f := range b.p.Filters {
		c, err := b.cond(ctx, f)
		if err != nil {
			return "", err
		}
		conds = append(conds, c)
	}
	return strings.Join(conds, " AND "), nil
}

// Counts are values with a count each.
type Counts struct {
	Values []string
	Counts []int64
}

// StartEvents counts, beside the caller, the values of the event statistic (name:value:unit,
// as v1's event lists read them) of the part's visits (p.Dimensions unused).
func (s *Store) StartEvents(ctx context.Context, p Part) (wait func() (Counts, error)) {
	b := &partBuild{p: p, s: s}
	where, err := b.where(ctx)
	if err != nil {
		return func() (Counts, error) { return Counts{}, err }
	}
	sqlText := `SELECT e, count(*)::BIGINT FROM (SELECT unnest(evs) AS e FROM visits WHERE ` + where + `) AS u GROUP BY e`
	return s.startValueCounts(ctx, b, sqlText)
}

// startValueCounts runs, beside the caller, a statement of (value, count) rows.
func (s *Store) startValueCounts(ctx context.Context, b *partBuild, sqlText string) (wait func() (Counts, error)) {
	return runBeside(ctx, b, sqlText, func(sqlText string) (Counts, error) {
		var out Counts
		err := s.scanEach(ctx, sqlText, b.args, func(rows *sql.Rows) error {
			var v string
			var n int64
			err := rows.Scan(&v, &n)
			out.Values, out.Counts = append(out.Values, v), append(out.Counts, n)
			return err
		})
		return out, err
	})
}

// StartProps counts, beside the caller, the custom properties of the part's visits' hits
// (p.Dimensions unused), as v1's property lists read them: the keys, each with the hits that
// carried it, when key is "", else the values of key.
func (s *Store) StartProps(ctx context.Context, p Part, key string) (wait func() (Counts, error)) {
	b := &partBuild{p: p, s: s}
	where, err := b.where(ctx)
	if err != nil {
		return func() (Counts, error) { return Counts{}, err }
	}
	value, only := `split_part(u.p, chr(31), 1)`, ``
	if key != "" {
		prefix := b.arg(stats.PropPair(key, ""))
		value, only = `substr(u.p, length(`+prefix+`) + 1)`, ` WHERE starts_with(u.p, `+prefix+`)`
	}
	sqlText := `SELECT ` + value + `, count(*)::BIGINT FROM (SELECT unnest(props) AS p FROM visits WHERE ` + where + `) AS u` + only + ` GROUP BY 1`
	return s.startValueCounts(ctx, b, sqlText)
}

// StartCounts counts, beside the caller, the part's visits by each value of each of the
// visit-level fields (p.Dimensions unused) in one scan of them (GROUPING SETS, as v1's lists of
// several names are read from the rows), so that the filters are tested once; wait returns
// each field's counts, in fields' order.
func (s *Store) StartCounts(ctx context.Context, p Part, fields []query.Field) (wait func() ([]Counts, error)) {
	b := &partBuild{p: p, s: s}
	where, err := b.where(ctx)
	if err != nil {
		return func() ([]Counts, error) { return nil, err }
	}
	var cols, sets []string
	var which strings.Builder
	for i, f := range fields {
		c := column(f)
		cols, sets = append(cols, c), append(sets, "("+c+")")
		fmt.Fprintf(&which, " WHEN GROUPING(%s) = 0 THEN %d", c, i)
	}
	sqlText := `SELECT CASE` + which.String() + ` END, coalesce(` + strings.Join(cols, ", ") + `), count(*)::BIGINT
		FROM visits WHERE ` + where + ` GROUP BY GROUPING SETS (` + strings.Join(sets, ", ") + `)`
	return runBeside(ctx, b, sqlText, func(sqlText string) ([]Counts, error) {
		out := make([]Counts, len(fields))
		err := s.scanEach(ctx, sqlText, b.args, func(rows *sql.Rows) error {
			var set int
			var v string
			var n int64
			if err := rows.Scan(&set, &v, &n); err != nil {
				return err
			}
			out[set].Values, out[set].Counts = append(out[set].Values, v), append(out[set].Counts, n)
			return nil
		})
		return out, err
	})
}

// PageEngagement are a page's engagement sums over a part's visits: how many sent engaged
// time for it and its sum in milliseconds, how many sent a scroll depth and its sum.
type PageEngagement struct {
	Page                     string
	EngagedVisits, EngagedMs int64
	ScrollVisits, ScrollSum  int64
}

// StartEngagement sums, beside the caller, the engagement of the part's visits on the pages
// (p.Dimensions unused); wait returns the pages' that have some.
func (s *Store) StartEngagement(ctx context.Context, p Part, pages []string) (wait func() ([]PageEngagement, error)) {
	b := &partBuild{p: p, s: s}
	where, err := b.where(ctx)
	if err != nil {
		return func() ([]PageEngagement, error) { return nil, err }
	}
	sqlText := `SELECT page, count(*) FILTER (WHERE ms >= 0), coalesce(sum(ms) FILTER (WHERE ms >= 0), 0)::BIGINT,
			count(*) FILTER (WHERE depth >= 0), coalesce(sum(depth) FILTER (WHERE depth >= 0), 0)::BIGINT
		FROM (SELECT unnest(eng_pages) AS page, unnest(eng_ms) AS ms, unnest(eng_depth) AS depth
			FROM visits WHERE ` + where + ` AND len(eng_pages) > 0) AS e
		WHERE ` + b.inList("page", pages) + ` GROUP BY page`
	return runBeside(ctx, b, sqlText, func(sqlText string) ([]PageEngagement, error) {
		var out []PageEngagement
		err := s.scanEach(ctx, sqlText, b.args, func(rows *sql.Rows) error {
			var e PageEngagement
			err := rows.Scan(&e.Page, &e.EngagedVisits, &e.EngagedMs, &e.ScrollVisits, &e.ScrollSum)
			out = append(out, e)
			return err
		})
		return out, err
	})
}

// rangeCond is the condition of the part's website and days, and of its sample.
func (b *partBuild) rangeCond() string {
	cond := "website_id = " + b.arg(b.p.WebsiteID) + " AND day BETWEEN " + b.arg(b.p.From) + " AND " + b.arg(b.p.To)
	if b.p.Fraction > 0 && b.p.Fraction < 1 {
		cond += " AND visitor < " + b.arg(stats.SampleCut(b.p.Fraction))
	}
	return cond
}

// element stands for a pageview's page in a predicate until it is placed.
const element = "$EL"

// pagesKept is the predicate on a pageview's page of the top-level event:page leaves, or "":
// with them only the pageviews they keep count (the engine's pagesKept).
func (b *partBuild) pagesKept(ctx context.Context) (string, error) {
	var preds []string
	for _, f := range b.p.Filters {
		if f.Field.Level != query.PageLevel || f.Op == query.And || f.Op == query.Or || f.Op == query.Not {
			continue
		}
		pred, err := b.leaf(ctx, f, element)
		if err != nil {
			return "", err
		}
		if f.Negated() {
			pred = "NOT (" + pred + ")"
		}
		preds = append(preds, pred)
	}
	return strings.Join(preds, " AND "), nil
}

// with is the statement's WITH clause of the tables, or "".
func (b *partBuild) with(tables ...string) string {
	if len(tables) == 0 {
		return ""
	}
	return "WITH " + strings.Join(tables, ", ") + " "
}

// hasPage is the condition of a visit one of whose pages pred (on element; its arguments
// b.args[from:]) holds: a join with its selection, where testing each visit's list against a
// long list of pages compared every pair.
func (b *partBuild) hasPage(pred string, from int) string {
	return "vid IN (SELECT vid FROM " + b.selectionOf(strings.ReplaceAll(pred, element, "x"), from) + ")"
}

// selectedHits is the SQL of a visit's pageviews whose page (x) pred holds, pred's arguments
// b.args[from:].
func (b *partBuild) selectedHits(pred string, from int) string {
	return "coalesce((SELECT n FROM " + b.selectionOf(pred, from) + " AS sel WHERE sel.vid = visits.vid), 0)"
}

// inList is the condition of x being one of the values: an IN list of a few, a join with the
// list's rows (outside a lambda) for more.
func (b *partBuild) inList(x string, values []string) string {
	if len(values) <= 8 {
		return x + " IN " + b.list(values)
	}
	return x + " IN (SELECT unnest(" + b.arg(values) + "::VARCHAR[]))"
}

// conversionHits is the SQL of a visit's hits that convert on the Conversions goals: its
// pageviews of their pages and its events of their names.
func (b *partBuild) conversionHits() string {
	parts := []string{"0"}
	for _, g := range b.p.Conversions {
		parts = append(parts, b.goalHits(g))
	}
	return "(" + strings.Join(parts, " + ") + ")"
}

// goalHits is the SQL of a visit's pageviews (a pageview goal) or events (an event goal) that
// convert on g.
func (b *partBuild) goalHits(g Goal) string {
	if g.Pageview {
		if len(g.Pages) == 0 {
			return "0"
		}
		from := len(b.args)
		return b.selectedHits(b.inList("x", g.Pages), from)
	}
	return "len(list_filter(names, lambda x: x = " + b.arg(g.Event) + ")) + len(list_filter(oldnames, lambda x: x = " + b.arg(g.Encoded) + "))"
}

// goalCond is the condition of a visit that converts on g.
func (b *partBuild) goalCond(g Goal) string {
	if g.Pageview {
		if len(g.Pages) == 0 {
			return "false"
		}
		if len(g.Pages) <= b.s.ListedPages {
			return b.hasAny("pages", g.Pages)
		}
		from := len(b.args)
		return b.hasPage(b.inList(element, g.Pages), from)
	}
	return "(list_contains(names, " + b.arg(g.Event) + ") OR list_contains(oldnames, " + b.arg(g.Encoded) + "))"
}

// key is the text of a dimension's key, as the engine's statement keys it: a visit-level
// value as stored, a time dimension's day, or its day and hour.
func (b *partBuild) key(f query.Field) string {
	if f.Level == query.PageLevel {
		return "page"
	}
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
	switch f.Field.Level {
	case query.GoalLevel:
		var conds []string
		for _, g := range b.p.Goals(f) {
			conds = append(conds, b.goalCond(g))
		}
		if len(conds) == 0 {
			return "false", nil
		}
		return "(" + strings.Join(conds, " OR ") + ")", nil
	case query.PageLevel:
		return b.pageCond(ctx, f)
	case query.PropLevel:
		return b.propCond(f), nil
	}
	pred, err := b.leaf(ctx, f, column(f.Field))
	if err != nil {
		return "", err
	}
	if f.Negated() {
		return "NOT (" + pred + ")", nil
	}
	return pred, nil
}

// propCond is the condition of a visit one of whose hits carried the property with one of the
// values (an is filter, case-sensitive: the one Supports lets in), as the engine's.
func (b *partBuild) propCond(f query.Filter) string {
	pairs := make([]string, len(f.Values))
	for i, v := range f.Values {
		pairs[i] = stats.PropPair(f.Field.Key, v)
	}
	if len(pairs) > 8 {
		return "list_has_any(props, " + b.arg(pairs) + "::VARCHAR[])"
	}
	return b.hasAny("props", pairs)
}

// hasAny is the condition of the list column holding one of a few values: one list_contains
// each, which DuckDB tests about three times faster than list_has_any with a list of one or
// two (docs/big-sites.md, "v1's reads").
func (b *partBuild) hasAny(column string, values []string) string {
	if len(values) == 0 {
		return "false"
	}
	ors := make([]string, len(values))
	for i, v := range values {
		ors[i] = "list_contains(" + column + ", " + b.arg(v) + ")"
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// pageCond is the condition of a visit one of whose pages a leaf on event:page keeps (a
// negated one: one of whose pages is not a value), as the engine's.
func (b *partBuild) pageCond(ctx context.Context, f query.Filter) (string, error) {
	if !f.Negated() && (f.Op == query.Is && !f.IgnoreCase || f.Op == query.Matches) {
		list := f.Values
		if f.Op == query.Matches {
			var err error
			if list, err = b.p.Matched(ctx, f); err != nil {
				return "", err
			}
		}
		if len(list) == 0 {
			return "false", nil
		}
		if len(list) <= b.s.ListedPages {
			return b.hasAny("pages", list), nil
		}
	}
	from := len(b.args)
	pred, err := b.leaf(ctx, f, element)
	if err != nil {
		return "", err
	}
	if f.Negated() {
		pred = "NOT (" + pred + ")"
	}
	return b.hasPage(pred, from), nil
}

// leaf is the positive predicate of a leaf on the stored value e (a visit-level column, or a
// pageview's page), as the engine's (leafPredicate) on PostgreSQL.
func (b *partBuild) leaf(ctx context.Context, f query.Filter, e string) (string, error) {
	part := e
	if f.Field.Level == query.VisitLevel {
		part = b.partOf(f.Field, e)
	}
	switch f.Positive() {
	case query.Is:
		if f.IgnoreCase {
			lowered := make([]string, len(f.Values))
			for i, v := range f.Values {
				lowered[i] = strings.ToLower(v)
			}
			return "lower(" + part + ") IN " + b.list(lowered), nil
		}
		if f.Field.Level == query.VisitLevel && f.Field.Part == query.Code {
			return b.codeIs(e, f.Values), nil
		}
		return b.inList(part, f.Values), nil
	case query.Contains:
		like := "LIKE"
		if f.IgnoreCase {
			like = "ILIKE"
		}
		var ors []string
		for _, v := range f.Values {
			p := b.p.Like(v)
			ors = append(ors, fmt.Sprintf("%s %s %s ESCAPE '\\'", part, like, b.arg(p)))
			if f.Field.Level == query.VisitLevel && len(f.Field.Spell) > 0 {
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
	return b.inList(e, matched), nil
}

// codeIs is the condition of the code of the stored value e (before its first colon) being
// one of the values: e is the value or starts with it and a colon, which DuckDB tests on the
// stored text, where cutting each value's code (split_part) cost most of a query filtered so.
// A value with a colon is no code.
func (b *partBuild) codeIs(e string, values []string) string {
	var ors []string
	for _, v := range values {
		if !strings.Contains(v, ":") {
			ors = append(ors, fmt.Sprintf("%s = %s OR starts_with(%s, %s)", e, b.arg(v), e, b.arg(v+":")))
		}
	}
	if len(ors) == 0 {
		return "false"
	}
	return "(" + strings.Join(ors, " OR ") + ")"
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
