package repository

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/stats"
)

// v1's filtered lists over the column store: each value's count of a visit-level name (its
// visits), of pages (their pageviews, of the pages the page filters keep) or of events is a
// sum over days, so the column store's closed days (listColumnDays) are counted by the
// engine's part (column.Part: the pages; column.StartCounts: the visit-level names in one
// scan; column.StartEvents: the events), the other
// days by the visit rows' statement, and the two summed by value before the list is ranked
// and paged (listPage, topLists, eventGroups); so are the pages' engagement sums (Engagement)
// and the properties' lists (column.StartProps: the hits that carried each key or value).

// columnName tells whether the column store counts name's values.
func columnName(n stats.Name) bool {
	_, _, ok := visitColumn(n)
	return ok || n == stats.Page || n == stats.Event
}

// columnTotals are (name, value, count) rows read from the column store.
type columnTotals struct {
	names, values []string
	counts        []int64
}

// sql is the rows as a SELECT of (name, value, count), their lists arguments of a.
func (c *columnTotals) sql(a *sqlArgs) string {
	return `SELECT name, value, count FROM unnest(` + a.arg(pq.Array(c.names)) + `::text[], ` + a.arg(pq.Array(c.values)) +
		`::text[], ` + a.arg(pq.Array(c.counts)) + `::int8[]) AS c (name, value, count)`
}

// columnPart is the column store's part of v's reads: its days of the range through through
// (listColumnDays), with v's filters; through is zero when it answers none.
func (v rowReader) columnPart(ctx context.Context) (through time.Time, p column.Part, err error) {
	filters, err := engineFilters(v.filters)
	if err != nil {
		return time.Time{}, p, err
	}
	if through, err = v.listColumnDays(ctx, filters); err != nil || through.IsZero() {
		return time.Time{}, p, err
	}
	var goals []column.Goal
	if name, ok := v.filters.Get(stats.GoalName); ok {
		// Resolved over the whole range, before a read of the other days shares it.
		m, err := v.goal.resolve(ctx, v.repo, v.websiteID, v.days, name)
		if err != nil {
			return time.Time{}, p, err
		}
		if m != nil {
			goals = []column.Goal{m.columnGoal()}
		}
	}
	fraction, err := v.fraction(ctx)
	if err != nil {
		return time.Time{}, p, err
	}
	p = column.Part{WebsiteID: v.websiteID, From: v.days.From, To: through, Filters: filters, Fraction: fraction, Like: likePattern,
		Matched: func(_ context.Context, f query.Filter) ([]string, error) {
			return nil, fmt.Errorf("%s: v1 has no matches filter", f.Field.Name)
		},
		Goals: func(query.Filter) []column.Goal { return goals }}
	return through, p, nil
}

// columnCounts reads the counts of names' values (each a columnName) over the column store's
// days of v's range; through is the last of them, zero when it answers none (nothing read).
func (v rowReader) columnCounts(ctx context.Context, names []stats.Name) (through time.Time, totals *columnTotals, err error) {
	if len(names) == 0 {
		return time.Time{}, nil, nil
	}
	through, p, err := v.columnPart(ctx)
	if err != nil || through.IsZero() {
		return time.Time{}, nil, err
	}
	// The visit-level names in one scan, pages and events in one each.
	var visitLevel []query.Field
	var visitNames []stats.Name
	waits := make([]func() (column.Counts, error), len(names))
	for i, n := range names {
		switch n {
		case stats.Event:
			waits[i] = v.repo.column.StartEvents(ctx, p)
		case stats.Page:
			p := p
			p.Dimensions = []query.Field{{Name: "event:page", Level: query.PageLevel}}
			waits[i] = pageCounts(v.repo.column.Start(ctx, p))
		default:
			visitLevel, visitNames = append(visitLevel, listField(n)), append(visitNames, n)
		}
	}
	if len(visitLevel) > 0 {
		waitSets := v.repo.column.StartCounts(ctx, p, visitLevel)
		for j, n := range visitNames {
			waits[slices.Index(names, n)] = func() (column.Counts, error) {
				sets, err := waitSets()
				if err != nil {
					return column.Counts{}, err
				}
				return sets[j], nil
			}
		}
	}
	totals = &columnTotals{}
	for i, wait := range waits {
		c, err := wait()
		if err != nil {
			return time.Time{}, nil, err
		}
		_, d, visitLevel := visitColumn(names[i])
		for j, value := range c.Values {
			if c.Counts[j] == 0 || value == "" && visitLevel && d.OnlyGiven {
				continue // as valueTotals: no row of its own, or not counted (uncountedNone)
			}
			totals.names, totals.values = append(totals.names, string(names[i])), append(totals.values, value)
			totals.counts = append(totals.counts, c.Counts[j])
		}
	}
	return through, totals, nil
}

// columnList reads the counts of a list's values over the column store's days of v's range
// (columnCounts; a property list's with column.StartProps); through is the last of them, zero
// when it answers none.
func (v rowReader) columnList(ctx context.Context, q StatQuery) (through time.Time, totals *columnTotals, err error) {
	if q.Name != stats.Property {
		return v.columnCounts(ctx, []stats.Name{q.Name})
	}
	through, p, err := v.columnPart(ctx)
	if err != nil || through.IsZero() {
		return time.Time{}, nil, err
	}
	c, err := v.repo.column.StartProps(ctx, p, q.Property)()
	if err != nil {
		return time.Time{}, nil, err
	}
	totals = &columnTotals{values: c.Values, counts: c.Counts, names: make([]string, len(c.Values))}
	for i := range totals.names {
		totals.names[i] = string(stats.Property)
	}
	return through, totals, nil
}

// pageCounts are the pages and pageviews of a part of the event:page dimension.
func pageCounts(wait func() (column.Rows, error)) func() (column.Counts, error) {
	return func() (column.Counts, error) {
		rows, err := wait()
		if err != nil {
			return column.Counts{}, err
		}
		return column.Counts{Values: rows.Keys[0], Counts: rows.Pageviews}, nil
	}
}

// sumValues is the (value, count) SQL totals of s's rows summed with col's, by value.
func (s *rowSource) sumValues(totals string, col *columnTotals) string {
	return `SELECT value, sum(count)::bigint AS count FROM (` + totals + `
		UNION ALL SELECT value, count FROM (` + col.sql(&s.sqlArgs) + `) AS c) AS t GROUP BY value`
}

// listField is the engine's dimension of a visit-level name.
func listField(n stats.Name) query.Field {
	_, d, _ := visitColumn(n)
	return query.Field{Name: string(d.Name), Level: query.VisitLevel, Stat: d.Name}
}

// after is v's reader of the days after through (none when through is its last: its rows'
// condition holds for no day), sampled as the whole range is.
func (v rowReader) after(through time.Time) rowReader {
	if v.view == nil {
		view := v.days
		v.view = &view
	}
	v.days = stats.Range{From: through.AddDate(0, 0, 1), To: v.days.To}
	return v
}
