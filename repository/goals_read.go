package repository

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/stats"
)

// Conversions (docs/goals.md) are read from visit_rows when asked: a visit converts on a goal
// when one of its pageviews matches the goal's pattern or one of its events has the goal's
// name. A pattern is matched here, in Go, against the distinct pages of the range; only the
// matching page values reach SQL, as arrays. A user's pattern never reaches
// PostgreSQL.

// goalMatch is a goal as a condition on visit rows: for a pageview goal, the pages of the
// range that match its pattern.
type goalMatch struct {
	goal  stats.Goal
	pages []string
}

// matchGoals makes each goal a goalMatch, reading the range's pages once when a goal needs
// them.
func (r *Repository) matchGoals(ctx context.Context, websiteID int64, days stats.Range, goals []stats.Goal) ([]goalMatch, error) {
	out := make([]goalMatch, len(goals))
	// pages are in order: the same goals make the same statements (the column store keeps a
	// funnel's counts by its statement).
	var pages []string
	read := false
	for i, g := range goals {
		out[i].goal = g
		if g.Kind != stats.GoalPageview {
			continue
		}
		if !read {
			counts, err := r.goalPages(ctx, websiteID, days)
			if err != nil {
				return nil, err
			}
			pages, read = slices.Sorted(maps.Keys(counts)), true
		}
		re := stats.GoalPattern(g.Page)
		for _, p := range pages {
			if re.MatchString(stats.GoalPath(p)) {
				out[i].pages = append(out[i].pages, p)
			}
		}
	}
	return out, nil
}

// goalFilter resolves a read's filter[goal] once, however many reads of the dashboard share
// its Reader.
type goalFilter struct {
	once  sync.Once
	match *goalMatch // nil: no such goal, which matches nothing
	err   error
}

func (f *goalFilter) resolve(ctx context.Context, r *Repository, websiteID int64, days stats.Range, name string) (*goalMatch, error) {
	f.once.Do(func() {
		g, ok, err := r.GoalByName(ctx, websiteID, name)
		if err != nil || !ok {
			f.err = err
			return
		}
		matches, err := r.matchGoals(ctx, websiteID, days, []stats.Goal{g})
		if err != nil {
			f.err = err
			return
		}
		f.match = &matches[0]
	})
	return f.match, f.err
}

// encodedEventName is an event name as the event statistic writes it (a ':' as a space): how
// rows written before event_names existed hold it.
func encodedEventName(name string) string { return strings.ReplaceAll(name, ":", " ") }

// The rule for rows written before event_names was kept (docs/goals.md), written here only:
// such a row (oldRow, SQL) has events but no event names, and each of its events holds its
// name encoded (encodedEventName) before the first ':' (oldEventName, the SQL of the name in
// one of its events e). A goal's event name is compared with a newer row's event_names, and
// encoded with an old row's events.
const oldRow = "event_names = '{}' AND events <> '{}'"

func oldEventName(e string) string { return "split_part(" + e + ", ':', 1)" }

// goalCond is the condition of a row that converts on m, its arguments after a's.
func (a *sqlArgs) goalCond(m *goalMatch) string {
	if m == nil {
		return "false"
	}
	if m.goal.Kind == stats.GoalPageview {
		if len(m.pages) == 0 {
			return "false"
		}
		// = ANY of a bound array is hashed by PostgreSQL (15); && compares every pair. The
		// first pages are compared one by one, which costs a third less than a subquery a row
		// (most visits have a few pageviews); the rest, if any, in one.
		pages := a.arg(pq.Array(m.pages)) + "::text[]"
		return "coalesce(pages[1] = ANY(" + pages + ") OR pages[2] = ANY(" + pages + ") OR pages[3] = ANY(" + pages + ")" +
			" OR (cardinality(pages) > 3 AND EXISTS (SELECT FROM unnest(pages[4:]) AS x WHERE x = ANY(" + pages + "))), false)"
	}
	name, encoded := a.arg(m.goal.Event), a.arg(encodedEventName(m.goal.Event))
	return "(" + name + " = ANY(event_names) OR (" + oldRow + " AND EXISTS (" +
		"SELECT FROM unnest(events) AS e WHERE " + oldEventName("e") + " = " + encoded + ")))"
}

// GoalConversion is one goal's numbers over a range.
type GoalConversion struct {
	Goal     stats.Goal
	Visitors int64 // distinct visitors a day of the converting visits, summed over the days
	Events   int64 // the matching pageviews or events
}

// Conversions are the numbers of a website's goals over a range, with the filters of the read
// (sampled past stats.MaxExactPageviews, as every filtered read), by visitors descending, then
// display name, and the
// visitors of the same rows, which conversion rates divide by. Days without visit rows count
// nothing (Basis says from which day they count).
func (v rowReader) Conversions(ctx context.Context, goals []stats.Goal) ([]GoalConversion, int64, error) {
	counts, fraction, err := v.conversionCounts(ctx, goals)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.goals: %w", err)
	}
	out := make([]GoalConversion, len(goals))
	for i, g := range goals {
		out[i] = GoalConversion{Goal: g, Visitors: scale(counts.visitors[i], fraction), Events: scale(counts.events[i], fraction)}
	}
	slices.SortStableFunc(out, func(a, b GoalConversion) int {
		if a.Visitors != b.Visitors {
			return cmp.Compare(b.Visitors, a.Visitors)
		}
		return strings.Compare(a.Goal.DisplayName, b.Goal.DisplayName)
	})
	return out, scale(counts.base, fraction), nil
}

// conversionCounts are the goals' numbers before scaling, and the fraction of the visitors
// read. Without filters nor sample, those of the closed days are kept in memory as their
// pages are (closedConversions), and only the other days are read; with either, the query
// engine's goals list counts them (engineGoalCounts), the column store's days there.
func (v rowReader) conversionCounts(ctx context.Context, goals []stats.Goal) (*goalCounts, float64, error) {
	fraction, err := v.repo.sampleFraction(ctx, v.websiteID, v.days)
	if err != nil {
		return nil, 0, err
	}
	if len(v.filters) > 0 || fraction < 1 || v.days.Hours.Set { // part of a day: never kept
		if c, ok, err := v.engineGoalCounts(ctx, goals); ok || err != nil {
			return c, fraction, err
		}
		return v.countGoals(ctx, goals, nil, nil)
	}
	closed, err := v.repo.closedDays(ctx, v.days)
	if err != nil {
		return nil, 0, err
	}
	var closedDays, openDays []string
	for _, day := range rangeDays(v.days) {
		if closed[day] {
			closedDays = append(closedDays, day)
		} else {
			openDays = append(openDays, day)
		}
	}
	generation, err := column.GenerationOf(ctx, v.repo.db.DB, v.websiteID)
	if err != nil {
		return nil, 0, err
	}
	now := v.repo.now()
	key := conversionKey(v.websiteID, generation, closedDays, goals)
	fromClosed, ok := v.repo.conversions.Get(key, now)
	var fromOpen *goalCounts
	g, gctx := errgroup.WithContext(ctx)
	if !ok && len(closedDays) > 0 {
		g.Go(func() (err error) {
			if fromClosed, _, err = v.countGoals(gctx, goals, closedDays, closed); err == nil {
				v.repo.conversions.Put(key, fromClosed, now)
			}
			return err
		})
	}
	if len(openDays) > 0 {
		g.Go(func() (err error) {
			fromOpen, err = v.openConversions(gctx, goals, openDays, closed)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	total := newGoalCounts(len(goals))
	total.add(fromClosed)
	total.add(fromOpen)
	return total, 1, nil
}

// openConversions are the goals' numbers of the open days of an unfiltered, unsampled read:
// when they are one run of days (the last ones, as a rule), the engine's goals list of them
// (engineGoalCounts), which reads the days the column store holds there; else the rows'.
func (v rowReader) openConversions(ctx context.Context, goals []stats.Goal, openDays []string, closed map[string]bool) (*goalCounts, error) {
	first, err := time.Parse(dateLayout, openDays[0])
	if err != nil {
		return nil, err
	}
	last := first.AddDate(0, 0, len(openDays)-1)
	if last.Format(dateLayout) == openDays[len(openDays)-1] && !v.days.Hours.Set {
		run := v
		run.days = stats.Range{From: first, To: last}
		if c, ok, err := run.engineGoalCounts(ctx, goals); ok || err != nil {
			return c, err
		}
	}
	c, _, err := v.countGoals(ctx, goals, openDays, closed)
	return c, err
}

// engineGoalCounts are the goals' numbers of v's whole days, unscaled, as the query engine's
// goals list counts them (queryGoalCounts), with v's filters translated: a goal filter keeps
// the visits that convert on the goal, as v1's does. ok is false for a read it does not take:
// part of a day, filters that match nothing, or a goal filter on a goal not listed.
func (v rowReader) engineGoalCounts(ctx context.Context, goals []stats.Goal) (*goalCounts, bool, error) {
	if v.days.Hours.Set || v.filters.MatchesNothing() {
		return nil, false, nil
	}
	for _, f := range v.filters {
		if f.Name == stats.GoalName && (f.Op != stats.Is || !slices.ContainsFunc(goals, func(g stats.Goal) bool { return g.DisplayName == f.Value })) {
			return nil, false, nil
		}
	}
	filters, err := engineFilters(v.filters)
	if err != nil {
		return nil, false, err
	}
	q := &query.Query{Range: engineRange(v.days), Filters: filters, Dimensions: []query.Field{{Name: "event:goal", Level: query.GoalLevel}},
		Metrics: []query.Metric{query.Visitors, query.Events}}
	t, _, err := v.repo.queryGoalCounts(ctx, v.websiteID, q, filters, goals, stats.FixedZone(time.UTC))
	if err != nil {
		return nil, false, err
	}
	return t.counts("", len(goals)), true, nil
}

// countGoals reads the goals' numbers of the reader's rows: of those days only when days is
// not nil (then without filters nor sample, so that the pages of closed days come from
// memory). Two statements run at once, on two connections: the event goals' (with the base
// visitors) and the pageview goals', which first needs the pages.
func (v rowReader) countGoals(ctx context.Context, goals []stats.Goal, days []string, closed map[string]bool) (*goalCounts, float64, error) {
	source := func(ctx context.Context) (*rowSource, error) {
		s, err := v.source(ctx)
		if err == nil && days != nil {
			s.where += " AND day = ANY(" + s.arg(pq.Array(days)) + "::date[])"
		}
		return s, err
	}
	pages, events := newGoalCounts(len(goals)), newGoalCounts(len(goals))
	var pageviews []int64
	var fraction float64
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		s, err := source(gctx)
		if err != nil {
			return err
		}
		fraction = s.fraction
		names, oldNames := eventGoals(goals)
		return v.repo.addMaskCounts(gctx, s, s.baseAndEventGoalsSQL(names, oldNames), len(names.words), events)
	})
	g.Go(func() error {
		if !slices.ContainsFunc(goals, func(g stats.Goal) bool { return g.Kind == stats.GoalPageview }) {
			return nil
		}
		s, err := source(gctx)
		if err != nil {
			return err
		}
		var counts map[string]int64
		if days != nil {
			counts, err = v.repo.dayPages.Pageviews(gctx, v.websiteID, days, closed)
		} else {
			counts, err = v.repo.pageCounts(gctx, s)
		}
		if err != nil {
			return err
		}
		var table *maskTable
		table, pageviews = pageGoals(goals, counts)
		if len(table.texts) == 0 {
			return nil
		}
		return v.repo.addMaskCounts(gctx, s, s.pageGoalsSQL(table), len(table.words), pages)
	})
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	events.add(pages)
	for i, n := range pageviews {
		events.events[i] += n
	}
	return events, fraction, nil
}

// Conversions are the numbers of a website's goals over a range (rowReader.Conversions), read
// from the visit rows with or without filters, and what they rest on.
func (r *Repository) Conversions(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, goals []stats.Goal) ([]GoalConversion, int64, Basis, error) {
	v := r.rows(websiteID, days, filters)
	out, visitors, err := v.Conversions(ctx, goals)
	if err != nil {
		return nil, 0, Basis{}, err
	}
	basis, err := v.Basis(ctx)
	if err != nil {
		return nil, 0, Basis{}, err
	}
	return out, visitors, basis, nil
}

// SummaryConversionRate is the conversion rate of a range's summary under filter[goal]: its
// visitors (read with every filter, the goal's included) as a percentage of goalFilterBase,
// one decimal, 0 when the base has none (stats.ConversionRate). The API's summary and the
// dashboard's headline numbers both show this one; ok is false without a goal filter, when a
// summary has no rate.
func (r *Repository) SummaryConversionRate(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, visitors int64) (rate float64, ok bool, err error) {
	if _, ok := filters.Get(stats.GoalName); !ok {
		return 0, false, nil
	}
	base, err := r.goalFilterBase(ctx, websiteID, days, filters)
	if err != nil {
		return 0, false, err
	}
	return stats.ConversionRate(visitors, base), true, nil
}

// goalFilterBase is the visitors that a rate under filter[goal] divides by: those of the same
// range and the other filters, read from the visit rows as the goal's own visitors are (the
// engine's totals: the column store's days there).
func (r *Repository) goalFilterBase(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters) (int64, error) {
	n, err := r.rows(websiteID, days, filters.Canonical().Without(stats.GoalName)).Visitors(ctx)
	if err != nil {
		return 0, fmt.Errorf("stats.conversion_base: %w", err)
	}
	return n, nil
}
