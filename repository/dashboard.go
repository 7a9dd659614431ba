package repository

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// EventGroup is one event name with its total over a range and its most counted values
// (each `value:unit`, "" for none) beneath.
type EventGroup struct {
	Name   string
	Total  int64
	Values []StatEntry
}

// Events groups the event counters by event name. An event name never holds ':' (the
// collector makes it a space), so the name is the value up to the first one.
func (c counterReader) Events(ctx context.Context, limit, valuesEach int) ([]EventGroup, int64, error) {
	rows, args, err := c.repo.rangeRows(ctx, c.websiteID, "name = $2", string(stats.Event), c.days)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	totals := `SELECT value, sum(count)::bigint AS count FROM (` + rows + `) AS rows GROUP BY value`
	groups, distinct, err := eventGroups(ctx, c.repo.reads, totals, args, limit, valuesEach)
	if err != nil {
		return nil, 0, fmt.Errorf("stats.top_events: %w", err)
	}
	return groups, distinct, nil
}

// eventGroups groups what totals (SQL of distinct event values with their counts, on args)
// yields by event name: the outer query of Events, on the counters or on filtered rows.
func eventGroups(ctx context.Context, db sqlx.QueryerContext, totals string, args []any, limit, valuesEach int) ([]EventGroup, int64, error) {
	args = append(args, limit, valuesEach)
	query := fmt.Sprintf(`
		SELECT event, event_total, detail AS value, count, distinct_events
		FROM (
			SELECT *, max(event_rank) OVER () AS distinct_events
			FROM (
			SELECT event, event_total, detail, count,
				dense_rank() OVER (ORDER BY event_total DESC, event ASC) AS event_rank,
				row_number() OVER (PARTITION BY event ORDER BY count DESC, detail ASC) AS value_rank
			FROM (
				SELECT event, detail, count, sum(count) OVER (PARTITION BY event)::bigint AS event_total
				FROM (
					SELECT split_part(value, ':', 1) AS event,
						substr(value, length(split_part(value, ':', 1)) + 2) AS detail,
						count
					FROM (`+totals+`) AS totals
				) AS totals
			) AS named
			) AS ranked
		) AS counted
		WHERE event_rank <= $%d AND value_rank <= $%d
		ORDER BY event_rank, value_rank`, len(args)-1, len(args))
	var found []struct {
		Event    string `db:"event"`
		Total    int64  `db:"event_total"`
		Distinct int64  `db:"distinct_events"`
		StatEntry
	}
	if err := sqlx.SelectContext(ctx, db, &found, query, args...); err != nil {
		return nil, 0, err
	}
	var groups []EventGroup
	var distinct int64
	for _, f := range found {
		if len(groups) == 0 || groups[len(groups)-1].Name != f.Event {
			groups = append(groups, EventGroup{Name: f.Event, Total: f.Total})
		}
		g := &groups[len(groups)-1]
		g.Values = append(g.Values, f.StatEntry)
		distinct = f.Distinct
	}
	return groups, distinct, nil
}

// HasStats says whether a website has any counter at all: a website without one shows its
// owner how to start instead of an empty dashboard. One index probe.
func (r *Repository) HasStats(ctx context.Context, websiteID int64) (bool, error) {
	var has bool
	err := r.reads.GetContext(ctx, &has, `SELECT EXISTS (SELECT 1 FROM stats WHERE website_id = $1)`, websiteID)
	if err != nil {
		return false, fmt.Errorf("stats.has: %w", err)
	}
	return has, nil
}
