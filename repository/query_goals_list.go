package repository

import (
	"context"
	"fmt"

	"github.com/analytics-service/analytics/query"
)

// goalsListQuery tells whether q asks what the goals list answers: the event:goal dimension
// alone, over whole days, filtered by nothing but top-level event:goal filters that name goals
// (is, contains), for visitors, events and conversion rates. Such a query is answered by the
// goals list's read (Conversions: one pass over the range's hits with goal bits, closed days
// kept in memory; docs/goals.md) rather than one union part a goal, which took 3.5 s for 20
// goals over a month.
func goalsListQuery(q *query.Query) bool {
	if len(q.Dimensions) != 1 || q.Dimensions[0].Level != query.GoalLevel || !q.Range.WholeDays() {
		return false
	}
	for _, f := range q.Filters {
		if !f.IsGoal() || f.Negated() {
			return false
		}
	}
	for _, m := range q.Metrics {
		switch m {
		case query.Visitors, query.Events, query.ConversionRate, query.GroupConversionRate:
		default:
			return false
		}
	}
	return true
}

// goalsListAnswer answers a goalsListQuery: a row for each goal that a visit converts on and
// every top-level filter names. Both rates divide by the visitors of the range (the only
// group is the whole: event:goal is not part of it).
func (r *Repository) goalsListAnswer(ctx context.Context, websiteID int64, q *query.Query) (QueryAnswer, error) {
	goals, err := r.Goals(ctx, websiteID)
	if err != nil {
		return QueryAnswer{}, fmt.Errorf("goals: %w", err)
	}
	conversions, visitors, basis, err := r.Conversions(ctx, websiteID, q.Range.Days(), nil, goals)
	if err != nil {
		return QueryAnswer{}, err
	}
	var rows []QueryRow
	for _, c := range conversions {
		if c.Visitors == 0 || !namedByFilters(q.Filters, c.Goal.DisplayName) {
			continue
		}
		metrics := make([]float64, len(q.Metrics))
		for i, m := range q.Metrics {
			switch m {
			case query.Visitors:
				metrics[i] = float64(c.Visitors)
			case query.Events:
				metrics[i] = float64(c.Events)
			default: // the conversion rates
				if visitors > 0 {
					metrics[i] = roundTo(100*float64(c.Visitors)/float64(visitors), 1)
				}
			}
		}
		rows = append(rows, QueryRow{Dimensions: []string{c.Goal.DisplayName}, Metrics: metrics})
	}
	out := pageOf(q, rows)
	out.Basis, out.FromCounters = basis, false
	return out, nil
}

// namedByFilters tells whether every filter names the goal.
func namedByFilters(filters []query.Filter, name string) bool {
	for _, f := range filters {
		if !goalNamed(f, name) {
			return false
		}
	}
	return true
}
