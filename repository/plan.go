package repository

import (
	"context"
	"slices"
	"time"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/stats"
)

// The planner: the one place that decides which store answers a read, from what the read
// needs (as Plausible's table_decider). Two stores hold the numbers:
//   - the daily counters and their weekly and monthly rollups (stats.go), which count every
//     visit of every day, imported days and days before the visit rows included, exactly,
//     and read a month in milliseconds; they hold per day the totals, the hourly totals and,
//     for each statistic's value, its visits (its pageviews for pages, its events for events);
//   - the visit rows (visit_rows), which can tell the visits that match filters and hold what
//     no counter does (visitors per value, custom properties, revenue, the order of a visit's
//     hits, the hour of a day), sampled past stats.MaxExactPageviews in a view.
//
// A third, the column store (package column), answers the closed days it holds of a query of
// the visit-level values (columnDays); the rows the rest, summed before shaping (startColumn).

// readStore is a store that answers reads.
type readStore uint8

const (
	counterStore readStore = iota
	rowStore
	columnStore // with rowStore: the days it holds (columnDays)
)

// needs is what a read asks of a store.
type needs struct {
	filters  stats.Filters // v1's: the visits to count; none: every visit
	filtered bool          // the query API's filters keep some visits only
	rowsOnly bool          // something only the visit rows hold (custom properties; a range of hours, percentage, revenue)
	events   bool          // the counters' series sum the event counter too (EventsReader)
}

// storeFor is the store that answers a read of these needs: every decision between the
// stores, v1's (reader) and the query API's (planQuery), is this one.
func storeFor(n needs) readStore {
	if len(n.filters) > 0 || n.filtered || n.rowsOnly {
		return rowStore
	}
	return counterStore
}

// reader is the Reader of a website's range for a read of these needs.
func (r *Repository) reader(websiteID int64, days stats.Range, n needs) Reader {
	if storeFor(n) == rowStore || days.Hours.Set { // the daily counters have no part of a day
		return aliasReader{r.rows(websiteID, days, n.filters)}
	}
	return aliasReader{counterReader{repo: r, websiteID: websiteID, days: days, events: n.events}}
}

// rows is the reader of the visit rows of a website's range that match the filters: what the
// planner chose, or what only the rows can answer (funnels, revenue, goals' conversions).
func (r *Repository) rows(websiteID int64, days stats.Range, filters stats.Filters) rowReader {
	return rowReader{repo: r, websiteID: websiteID, days: days, filters: filters.Canonical(), goal: &goalFilter{}}
}

// queryPlan is how a query of the query API runs.
type queryPlan struct {
	store readStore
	// interval: the counters' time series (one time dimension); "" for their totals.
	interval stats.Interval
	// breakdown: the counters' list of one statistic (one visit dimension, or event:page),
	// whose count is the query's one metric; nil otherwise.
	breakdown *query.Field
	// goalsList: the goals list's keyed statement answers (goalsListQuery), not the union
	// of one part a goal that the other queries of the event:goal dimension compile to.
	goalsList bool
}

// planQuery decides how q runs. The counters answer what needs no visit row - no filter,
// whole days, no percentage or revenue, and no dimension but one time dimension the counters'
// series has (hour, day, month), or one statistic whose counted number is every metric asked
// (visits of a visit-level name, pageviews of a page) - counting every visit, imported days
// included, as v1 does. Everything else reads the visit rows.
func (r *Repository) planQuery(q *query.Query) queryPlan {
	n := needs{filtered: len(q.Filters) > 0, rowsOnly: !q.Range.WholeDays() || slices.Contains(q.Metrics, query.Percentage) || q.HasRevenue()}
	if storeFor(n) == counterStore {
		switch len(q.Dimensions) {
		case 0:
			return queryPlan{store: counterStore}
		case 1:
			if interval, ok := counterInterval(q); ok {
				return queryPlan{store: counterStore, interval: interval}
			}
			if f := q.Dimensions[0]; countedBreakdown(f, q.Metrics) {
				return queryPlan{store: counterStore, breakdown: &f}
			}
		}
	}
	return queryPlan{store: rowStore, goalsList: goalsListQuery(q)}
}

// counterInterval is the counters' series interval of q's one time dimension, if they have it
// for q's range.
func counterInterval(q *query.Query) (stats.Interval, bool) {
	interval := map[query.TimeUnit]stats.Interval{query.Hour: stats.Hour, query.DayUnit: stats.Daily, query.Month: stats.Month}[q.TimeUnit()]
	if interval == "" || q.TimeIndex() != 0 {
		return "", false
	}
	ok, _ := interval.Allows(q.Range.Days())
	return interval, ok
}

// countedBreakdown tells whether the counters hold f's values with every metric asked: a
// visit-level statistic counts each value's visits, and holds every value (not OnlyGiven,
// whose counters leave out visits without one); the page statistic counts each page's
// pageviews.
func countedBreakdown(f query.Field, metrics []query.Metric) bool {
	var counted query.Metric
	switch f.Level {
	case query.VisitLevel:
		d, _, _ := stats.DimensionOf(f.Stat)
		if d.OnlyGiven {
			return false
		}
		counted = query.Visits
	case query.PageLevel:
		counted = query.Pageviews
	default:
		return false
	}
	return !slices.ContainsFunc(metrics, func(m query.Metric) bool { return m != counted })
}

// UseColumnStore makes the engine read the closed days that s holds from it.
func (r *Repository) UseColumnStore(s *column.Store) { r.column = s }

// SyncColumnStore copies the days closed in every zone (UTC-12's today a day behind UTC's;
// repository/closed) to the store, then counts the funnels of the days it copied.
func (r *Repository) SyncColumnStore(ctx context.Context) error {
	closed, err := r.closing.Last(ctx, dayOf(r.now().UTC()).AddDate(0, 0, -1))
	if err != nil {
		return err
	}
	if err := r.column.Sync(ctx, r.db.DB, closed); err != nil {
		return err
	}
	_, err = r.CountColumnFunnels(ctx, closed)
	return err
}

// columnDays is the last day of b's range, from its first on, that the column store answers:
// whole days of a query of the values it holds (column.Supports), closed, held, and still as
// PostgreSQL's rows (column.Forget: one primary-key probe, so that a stats reset or retention
// on any node counts at once). A sampled query reads the same visitors there (column.Part's
// Fraction) as in the rows of its other days.
func (b *queryBuild) columnDays(ctx context.Context) (time.Time, bool, error) {
	if q := b.q; b.repo.column == nil || b.groupVisitors || !q.Range.WholeDays() || !column.Supports(q.Dimensions, q.Filters, q.Metrics, goalsListQuery(q)) {
		return time.Time{}, false, nil
	}
	closed, err := b.lastClosedDay(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	return b.repo.columnHeld(ctx, b.websiteID, b.q.Range.From, b.q.Range.To, closed)
}

// columnHeld is the last day of from..to, from its first on, that the column store holds of
// the website, closed by closed and still as PostgreSQL's rows (column.Forget: one
// primary-key probe, so that a stats reset or retention on any node counts at once).
func (r *Repository) columnHeld(ctx context.Context, websiteID int64, from, to, closed time.Time) (time.Time, bool, error) {
	generation, err := column.GenerationOf(ctx, r.db.DB, websiteID)
	if err != nil {
		return time.Time{}, false, err
	}
	r.column.Forget(websiteID, generation)
	last, ok := r.column.HeldThrough(websiteID, from, to, closed)
	return last, ok, nil
}

// listColumnDays is the last day of v's range that the column store answers for v1's lists
// and the pages' engagement (columnPart), zero for none: as columnDays, whole days of a read
// whose filters (translated) it holds, the days closed in UTC.
func (v rowReader) listColumnDays(ctx context.Context, filters []query.Filter) (time.Time, error) {
	r := v.repo
	if r.column == nil || v.days.Hours.Set || v.filters.MatchesNothing() || !column.Supports(nil, filters, []query.Metric{query.Visits}, false) {
		return time.Time{}, nil
	}
	last, ok, err := r.columnHeldUTC(ctx, v.websiteID, v.days.From, v.days.To)
	if err != nil || !ok {
		return time.Time{}, err
	}
	return last, nil
}

// columnHeldUTC is columnHeld of the days closed in UTC: v1's reads and the goals' pages,
// whose days are not of a zone the query names.
func (r *Repository) columnHeldUTC(ctx context.Context, websiteID int64, from, to time.Time) (time.Time, bool, error) {
	closed, err := r.closing.Last(ctx, dayOf(r.now().UTC()))
	if err != nil {
		return time.Time{}, false, err
	}
	return r.columnHeld(ctx, websiteID, from, to, closed)
}

// countNarrow counts the visitors of a read of v1's filtered rows: the column store's days are
// counted as every read of it is, the rows' alone by grouping the matching (day, visitor)
// pairs (groupVisitors), as v1's narrow filters keep few rows and the repeat keys would be
// read for nothing.
func (b *queryBuild) countNarrow() { b.groupVisitors = b.columnThrough.IsZero() }

// columnGoals are the goals a goal filter names (goalFilterCond), for the column store.
func (b *queryBuild) columnGoals(f query.Filter) []column.Goal {
	return b.goalsFor(func(name string) bool { return goalNamed(f, name) })
}

// columnConversions are the goals whose hits the events are (conversionHits), or nil.
func (b *queryBuild) columnConversions() []column.Goal {
	if !b.conversionEvents() {
		return nil
	}
	return append(b.goalsFor(b.goalShown), []column.Goal{}...)
}

func (b *queryBuild) goalsFor(named func(name string) bool) []column.Goal {
	var out []column.Goal
	for _, m := range b.goals {
		if named(m.goal.DisplayName) {
			out = append(out, m.columnGoal())
		}
	}
	return out
}

// columnGoal is m as the column store's condition on a visit.
func (m goalMatch) columnGoal() column.Goal {
	return column.Goal{Pageview: m.goal.Kind == stats.GoalPageview, Pages: m.pages, Event: m.goal.Event, Encoded: encodedEventName(m.goal.Event)}
}

// startColumnGoals starts the column store's part of the goals list's counts (queryGoalCounts)
// when it answers days of the range; the function it returns adds its rows to t.
func (b *queryBuild) startColumnGoals(ctx context.Context, others []query.Filter, pages, names, oldNames *maskTable) func(t *goalTable, goals int) error {
	if b.columnThrough.IsZero() {
		return func(*goalTable, int) error { return nil }
	}
	p := column.GoalPart{Part: column.Part{WebsiteID: b.websiteID, From: b.q.Range.From, To: b.columnThrough, Filters: others,
		Fraction: b.fraction, Matched: b.matched, Like: likePattern, Goals: b.columnGoals}, RangeFrom: b.q.Range.From, Pages: column.MaskTable{Texts: pages.texts, Words: pages.words},
		Names: column.MaskTable{Texts: names.texts, Words: names.words}, OldNames: column.MaskTable{Texts: oldNames.texts, Words: oldNames.words}}
	if i := slices.IndexFunc(b.q.Dimensions, func(f query.Field) bool { return f.Level != query.GoalLevel }); i >= 0 {
		p.Key = &b.q.Dimensions[i]
	}
	wait := b.repo.column.StartGoalCounts(ctx, p)
	return func(t *goalTable, goals int) error {
		rows, err := wait()
		for _, row := range rows {
			if row.Part == "total" {
				t.total += row.Count
			} else {
				t.counts(row.Key, goals).addRow(row.Part, row.Mask, row.Count)
			}
		}
		return err
	}
}

// startColumn starts the column store's part (columnDays) beside the statement's other reads;
// the function it returns waits for it and makes its groups rows of v, as lists.
func (b *queryBuild) startColumn(ctx context.Context) func() error {
	if b.columnThrough.IsZero() {
		return func() error { return nil }
	}
	wait := b.repo.column.Start(ctx, column.Part{WebsiteID: b.websiteID, From: b.q.Range.From, To: b.columnThrough,
		Dimensions: b.q.Dimensions, Filters: b.q.Filters, Visitors: b.needsVisitors(), Fraction: b.fraction, Matched: b.matched, Like: likePattern,
		Goals: b.columnGoals, Conversions: b.columnConversions()})
	return func() error {
		rows, err := wait()
		if err == nil {
			b.columnRows = " UNION ALL " + rows.SQL(b.q.Dimensions, b.q.TimeUnit() == query.Hour, b.arg)
		}
		return err
	}
}
