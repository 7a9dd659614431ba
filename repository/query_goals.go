package repository

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// The query API's goals: an event:goal filter names goals by display name; a visit matches
// when it converts on one of them, as filter[goal] decides (goalCond: a pageview goal's
// pattern is matched here, in Go, against the range's distinct pages, and only the matching
// pages reach SQL). conversion_rate and group_conversion_rate divide a row's visitors by those
// of the same query without its event:goal filters (conversionBase).

// readGoals reads the website's goals and the pages of the range their patterns match, once a
// query, before its statement's transaction (matchGoals reads on connections of its own).
// With revenue metrics the goals decide what they sum (planRevenue); their pages are read only
// for goal filters or the goal dimension.
func (b *queryBuild) readGoals(ctx context.Context) error {
	matched := usesGoals(b.q.Filters) || b.q.HasGoalDimension()
	if !matched && !b.q.HasRevenue() {
		return nil
	}
	goals, err := b.repo.Goals(ctx, b.websiteID)
	if err != nil {
		return err
	}
	goals = slices.DeleteFunc(goals, func(g stats.Goal) bool { return g.DisplayName == "" })
	if b.q.HasRevenue() {
		b.planRevenue(goals)
	}
	if !matched {
		return nil
	}
	b.goals, err = b.repo.matchGoals(ctx, b.websiteID, b.q.Range.Days(), goals)
	if err != nil {
		return fmt.Errorf("goals of the query: %w", err)
	}
	return nil
}

// usesGoals tells whether one of the filters, at any depth, is on event:goal.
func usesGoals(filters []query.Filter) bool {
	return slices.ContainsFunc(filters, func(f query.Filter) bool { return f.IsGoal() || usesGoals(f.Children) })
}

// goalNamed tells whether a goal's display name is one of a goal filter's values.
func goalNamed(f query.Filter, name string) bool {
	if f.IgnoreCase {
		name = strings.ToLower(name)
	}
	return slices.ContainsFunc(f.Values, func(v string) bool {
		if f.IgnoreCase {
			v = strings.ToLower(v)
		}
		if f.Op == query.Contains {
			return strings.Contains(name, v)
		}
		return name == v
	})
}

// goalFilterCond is the condition of a visit row that converts on one of the goals a filter
// names; none named (or no such goal) matches nothing.
func (b *filterBuild) goalFilterCond(f query.Filter) string {
	var conds []string
	for i := range b.goals {
		if goalNamed(f, b.goals[i].goal.DisplayName) {
			conds = append(conds, b.goalCond(&b.goals[i]))
		}
	}
	if len(conds) == 0 {
		return "false"
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// conversionMetrics sets the conversion rates of out's rows: each row's visitors (the
// statement's, before scaling) over those of the query without its event:goal filters, whole
// (conversion_rate) or of the row's dimensions (group_conversion_rate), in percent with one
// decimal.
func (r *Repository) conversionMetrics(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone, fraction float64, out *QueryAnswer) error {
	for i, m := range q.Metrics {
		if m != query.ConversionRate && m != query.GroupConversionRate {
			continue
		}
		base, err := r.conversionBase(ctx, websiteID, q, zone, m == query.GroupConversionRate)
		if err != nil {
			return fmt.Errorf("conversion base: %w", err)
		}
		for _, row := range out.Rows {
			key := ""
			if m == query.GroupConversionRate {
				key = groupKey(q, row.Dimensions)
			}
			converting, whole := float64(scale(int64(row.Metrics[i]), fraction)), base[key]
			row.Metrics[i] = 0
			if whole > 0 {
				row.Metrics[i] = roundTo(100*converting/whole, 1)
			}
		}
	}
	return nil
}

// conversionBase are the visitors of q without its top-level event:goal filters (and without
// the event:goal dimension), by groupKey: of the row's dimensions when byGroup, else one
// whole under "".
func (r *Repository) conversionBase(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone, byGroup bool) (map[string]float64, error) {
	base := *q
	base.Metrics = []query.Metric{query.Visitors}
	base.Filters = slices.DeleteFunc(slices.Clone(q.Filters), query.Filter.IsGoal)
	base.Dimensions = nil
	if byGroup {
		base.Dimensions = slices.DeleteFunc(slices.Clone(q.Dimensions), func(f query.Field) bool { return f.Level == query.GoalLevel })
	}
	base.OrderBy = []query.Order{{Metric: 0, Dimension: -1, Desc: true}}
	base.Limit, base.Offset = 1<<31-1, 0
	answer, err := r.runRows(ctx, websiteID, &base, zone)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, row := range answer.Rows {
		out[strings.Join(row.Dimensions, "\x00")] = row.Metrics[0]
	}
	return out, nil
}

// groupKey is the key of a row of q in conversionBase's answer: its dimensions but
// event:goal, or "" for the whole.
func groupKey(q *query.Query, dims []string) string {
	var keep []string
	for i, f := range q.Dimensions {
		if f.Level != query.GoalLevel {
			keep = append(keep, dims[i])
		}
	}
	return strings.Join(keep, "\x00")
}

// goalRows is the SQL of a visit row's goals under the event:goal dimension: one row (name,
// pv, ev) for each goal it converts on, with its matching pageviews (pv) or events (ev), for
// the goals the top-level event:goal filters name (all without one).
func (b *queryBuild) goalRows() string {
	var parts []string
	for i := range b.goals {
		m := &b.goals[i]
		if !b.goalShown(m.goal.DisplayName) {
			continue
		}
		cond := b.goalCond(m)
		pv, ev := "0::int8", "0::int8"
		if m.goal.Kind == stats.GoalPageview {
			pv = b.goalHits(m)
		} else {
			ev = b.goalHits(m)
		}
		revenue := ""
		if b.sumsRevenue() {
			revenue = ", " + b.goalRevenue(m.goal)
		}
		parts = append(parts, "SELECT "+b.arg(m.goal.DisplayName)+"::text, "+pv+", "+ev+revenue+" WHERE "+cond)
	}
	if len(parts) == 0 {
		if b.sumsRevenue() {
			return "SELECT NULL::text, 0::int8, 0::int8, NULL::numeric, 0::int8 WHERE false"
		}
		return "SELECT NULL::text, 0::int8, 0::int8 WHERE false"
	}
	return strings.Join(parts, " UNION ALL ")
}

// goalShown tells whether the event:goal dimension has a row for the goal of that name: every
// top-level event:goal filter names it.
func (b *queryBuild) goalShown(name string) bool {
	for _, f := range b.q.Filters {
		if f.IsGoal() && !goalNamed(f, name) {
			return false
		}
	}
	return true
}

// goalHits is the SQL of a visit row's pageviews (pageview goal) or events (event goal) that
// match m.
func (b *queryBuild) goalHits(m *goalMatch) string {
	if m.goal.Kind == stats.GoalPageview {
		if len(m.pages) == 0 {
			return "0::int8"
		}
		return "(SELECT count(*) FROM unnest(pages) AS x (v) WHERE x.v = ANY(" + b.arg(pq.Array(m.pages)) + "::text[]))"
	}
	return "CASE WHEN " + oldRow + " THEN (SELECT count(*) FROM unnest(events) AS e WHERE " + oldEventName("e") + " = " +
		b.arg(encodedEventName(m.goal.Event)) + ") ELSE (SELECT count(*) FROM unnest(event_names) AS n WHERE n = " +
		b.arg(m.goal.Event) + ") END"
}

// conversionEvents tells whether events are the conversions, as Plausible counts them under
// an event:goal filter: one row a visit (no hit dimension), with top-level goal filters.
func (b *queryBuild) conversionEvents() bool {
	return b.q.HasGoalFilter() && b.hitLevel() == query.VisitLevel && slices.Contains(b.q.Metrics, query.Events)
}

// conversionHits is the SQL of a visit row's conversions on the goals every top-level
// event:goal filter names: its matching pageviews and events, summed over those goals.
func (b *queryBuild) conversionHits() string {
	var parts []string
	for i := range b.goals {
		if b.goalShown(b.goals[i].goal.DisplayName) {
			parts = append(parts, b.goalHits(&b.goals[i]))
		}
	}
	if len(parts) == 0 {
		return "0::int8"
	}
	return "(" + strings.Join(parts, " + ") + ")"
}
