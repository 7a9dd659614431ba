package repository

import (
	"fmt"
	"slices"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// The query API's revenue metrics (docs/query.md, "Revenue"), as Plausible's Stats API v2
// answers them. The revenue goals of a query are its goals with a currency that every
// top-level event:goal filter names (all of them without such a filter). Without the
// event:goal dimension their revenue is summed when they share one currency; under it each
// goal's row sums its own. Only the revenue an event carried in its goal's currency counts: no
// exchange rates are applied. Otherwise the metrics are null and the answer's meta says why,
// as Plausible's does. Amounts are summed by PostgreSQL as numeric and read as text: exact.

// MetricWarning is why a metric is null in every row, by Plausible's code and sentence.
type MetricWarning struct{ Code, Warning string }

var (
	noRevenueGoals = MetricWarning{Code: "no_revenue_goals_matching",
		Warning: "Revenue metrics are null as there are no matching revenue goals."}
	noSingleCurrency = MetricWarning{Code: "no_single_revenue_currency",
		Warning: "Revenue metrics are null as there are multiple currencies for the selected event:goals."}
)

// RevenueAmount is a row's revenue metric: an amount (a decimal, two places at most) in a
// currency.
type RevenueAmount struct{ Amount, Currency string }

// revenuePlan is what a query's revenue metrics sum, decided from its goals before the
// statement: the currency and the revenue goals' event names (no event:goal dimension), or
// each goal's currency by display name (under it); or the warning that makes them null.
type revenuePlan struct {
	currency string
	names    []string
	byGoal   map[string]string
	warning  *MetricWarning
}

// planRevenue decides b.revenue from the website's goals (those with a display name).
func (b *queryBuild) planRevenue(goals []stats.Goal) {
	var revenue []stats.Goal
	var currencies []string
	for _, g := range goals {
		if g.Currency != "" && g.Kind == stats.GoalEvent && b.goalShown(g.DisplayName) {
			revenue = append(revenue, g)
			if !slices.Contains(currencies, g.Currency) {
				currencies = append(currencies, g.Currency)
			}
		}
	}
	p := &revenuePlan{}
	switch {
	case len(currencies) == 0:
		p.warning = &noRevenueGoals
	case b.q.HasGoalDimension():
		p.byGoal = map[string]string{}
		for _, g := range revenue {
			p.byGoal[g.DisplayName] = g.Currency
		}
	case len(currencies) == 1:
		p.currency = currencies[0]
		for _, g := range revenue {
			p.names = append(p.names, g.Event)
		}
	default:
		p.warning = &noSingleCurrency
	}
	b.revenue = p
}

// sumsRevenue tells whether the statement sums revenue: a revenue metric is asked and has a
// currency to be summed in.
func (b *queryBuild) sumsRevenue() bool {
	return b.revenue != nil && b.revenue.warning == nil
}

// revenueOf is the SQL of (amount, events) of a visit row's revenue in currency carried by
// events of those names: NULL and 0 when it has none.
func (b *queryBuild) revenueOf(names []string, currency string) string {
	return `SELECT sum(r.amount), count(*) FROM unnest(revenue_names, revenue_currencies, revenue_amounts) AS r (name, currency, amount)
		WHERE r.currency = ` + b.arg(currency) + ` AND r.name = ANY(` + b.arg(pq.Array(names)) + `::text[])`
}

// revenueJoin is the lateral join of a visit row's revenue (rv) under no hit dimension, and
// its columns for u, or "" without revenue metrics.
func (b *queryBuild) revenueJoin() (join, columns string) {
	if !b.sumsRevenue() {
		return "", ""
	}
	return ` CROSS JOIN LATERAL (` + b.revenueOf(b.revenue.names, b.revenue.currency) + `) AS rv (amount, n)`,
		`, rv.amount AS rev, rv.n AS revn`
}

// nameRevenue is, under the event:name dimension, what perVisit's (visit, name) rows add to
// sum revenue: their columns, and the lateral's rows of the visit's revenue (an amount each,
// with the name as its events are counted, colons as spaces: the collector keeps an event's
// revenue in the row of the event, so each joins its event's group). Both "" without revenue
// metrics.
func (b *queryBuild) nameRevenue() (columns, hits string) {
	if !b.sumsRevenue() {
		return "", ""
	}
	return `, sum(h.amount) FILTER (WHERE h.revenue) AS rev, count(*) FILTER (WHERE h.revenue) AS revn`,
		` UNION ALL SELECT replace(r.name, ':', ' '), true, r.amount FROM unnest(revenue_names, revenue_currencies, revenue_amounts) AS r (name, currency, amount)
				WHERE r.currency = ` + b.arg(b.revenue.currency) + ` AND r.name = ANY(` + b.arg(pq.Array(b.revenue.names)) + `::text[])`
}

// goalRevenue is the SQL of a goal's revenue columns in goalRows: its events' revenue in its
// currency, or none for a goal without one.
func (b *queryBuild) goalRevenue(g stats.Goal) string {
	currency, ok := "", false
	if b.sumsRevenue() {
		currency, ok = b.revenue.byGoal[g.DisplayName]
	}
	if !ok {
		return "NULL::numeric, 0::int8"
	}
	return "rv.amount, rv.n FROM (" + b.revenueOf([]string{g.Event}, currency) + ") AS rv (amount, n)"
}

// revenueSums are v's sums of u's revenue columns, or "".
func (b *queryBuild) revenueSums() string {
	if !b.sumsRevenue() {
		return ""
	}
	return `, sum(rev) AS revenue, sum(revn) AS revenue_events`
}

// revenueSQL is a revenue metric over v's rows: numeric, rounded to two places halves away
// from zero; a sample's sum is divided by the fraction read, as counts are scaled. NULL when
// the plan has no currency.
func (b *queryBuild) revenueSQL(m query.Metric) string {
	if !b.sumsRevenue() {
		return "NULL::numeric"
	}
	if m == query.AverageRevenue {
		return "coalesce(round(sum(revenue) / nullif(sum(revenue_events), 0), 2), 0)"
	}
	return "coalesce(round(sum(revenue) / " + b.arg(fmt.Sprint(b.fraction)) + "::numeric, 2), 0)"
}

// revenueAnswer sets the currency of the rows' revenue metrics, and the warnings of a plan
// without one.
func (b *queryBuild) revenueAnswer(out *QueryAnswer) {
	if b.revenue == nil {
		return
	}
	goal := slices.IndexFunc(b.q.Dimensions, func(f query.Field) bool { return f.Level == query.GoalLevel })
	for i, m := range b.q.Metrics {
		if !m.IsRevenue() {
			continue
		}
		if w := b.revenue.warning; w != nil {
			if out.Warnings == nil {
				out.Warnings = map[query.Metric]MetricWarning{}
			}
			out.Warnings[m] = *w
		}
		for _, row := range out.Rows {
			currency := b.revenue.currency
			if goal >= 0 {
				currency = b.revenue.byGoal[row.Dimensions[goal]]
			}
			if currency == "" || row.Revenue[i] == nil {
				row.Revenue[i] = nil
				continue
			}
			row.Revenue[i].Currency = currency
		}
	}
}
