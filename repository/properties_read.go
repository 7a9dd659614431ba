package repository

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// Custom properties and revenue are read from the visit rows (docs/properties.md), with or
// without filters, as goals are: days without rows are left out (Basis.From) and ranges past
// stats.MaxExactPageviews are sampled.

// RowReader is the reader of a website's range for what only the rows hold (custom
// properties), with or without filters, as the planner chooses it (plan.go).
func (r *Repository) RowReader(websiteID int64, days stats.Range, filters stats.Filters) Reader {
	return r.reader(websiteID, days, needs{filters: filters, rowsOnly: true})
}

// propTotals is the SQL of (value, count) of the properties of the matching rows: the keys
// with the hits that carried each when key is "", else the values of key.
func (s *rowSource) propTotals(key string) string {
	if key == "" {
		return `SELECT split_part(u.p, chr(31), 1) AS value, count(*) AS count
			FROM visit_rows CROSS JOIN LATERAL unnest(props) AS u (p)
			WHERE ` + s.where + ` GROUP BY 1`
	}
	prefix := s.arg(stats.PropPair(key, ""))
	return `SELECT substr(u.p, char_length(` + prefix + `) + 1) AS value, count(*) AS count
		FROM visit_rows CROSS JOIN LATERAL unnest(props) AS u (p)
		WHERE ` + s.where + ` AND starts_with(u.p, ` + prefix + `) GROUP BY 1`
}

// GoalRevenue is the revenue of an event goal's events in one currency over a range.
type GoalRevenue struct {
	Goal     stats.Goal
	Currency string
	Events   int64  // the events that carried revenue in the currency (scaled when sampled)
	Amount   string // their sum, two decimals, halves away from zero (scaled when sampled)
	Average  string // the sum over the events, two decimals
}

// Revenue is the revenue of the event goals' events over a range, per goal and currency, with
// the filters of the read, by display name then currency, and what it rests on. Amounts are
// summed as numeric, never as floating point.
func (r *Repository) Revenue(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters, goals []stats.Goal) ([]GoalRevenue, Basis, error) {
	v := r.rows(websiteID, days, filters)
	s, err := v.source(ctx)
	if err != nil {
		return nil, Basis{}, fmt.Errorf("stats.revenue: %w", err)
	}
	var names []string
	var ids []int64
	for i, g := range goals {
		if g.Kind == stats.GoalEvent {
			names, ids = append(names, g.Event), append(ids, int64(i))
		}
	}
	var out []GoalRevenue
	if len(names) > 0 {
		if out, err = v.revenue(ctx, s, goals, names, ids); err != nil {
			return nil, Basis{}, err
		}
	}
	basis, err := v.Basis(ctx)
	if err != nil {
		return nil, Basis{}, err
	}
	return out, basis, nil
}

func (v rowReader) revenue(ctx context.Context, s *rowSource, goals []stats.Goal, names []string, ids []int64) ([]GoalRevenue, error) {
	// A sample's sum is scaled as its counts are: divided by the fraction read (a plain
	// decimal: 1/2, 1/5 ... 1/100), then rounded.
	fraction := s.arg(fmt.Sprint(s.fraction))
	query := `
		SELECT m.goal, r.currency, count(*) AS events,
			round(sum(r.amount) / ` + fraction + `::numeric, 2)::text AS amount,
			round(sum(r.amount) / count(*), 2)::text AS average
		FROM visit_rows
		CROSS JOIN LATERAL unnest(revenue_names, revenue_currencies, revenue_amounts) AS r (name, currency, amount)
		JOIN unnest(` + s.arg(pq.Array(names)) + `::text[], ` + s.arg(pq.Array(ids)) + `::int[]) AS m (name, goal) ON m.name = r.name
		WHERE ` + s.where + ` AND revenue_names IS NOT NULL
		GROUP BY m.goal, r.currency`
	var rows []struct {
		Goal     int    `db:"goal"`
		Currency string `db:"currency"`
		Events   int64  `db:"events"`
		Amount   string `db:"amount"`
		Average  string `db:"average"`
	}
	if err := v.repo.readRows(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &rows, query, s.args...) }); err != nil {
		return nil, fmt.Errorf("stats.revenue: %w", err)
	}
	out := make([]GoalRevenue, len(rows))
	for i, row := range rows {
		out[i] = GoalRevenue{Goal: goals[row.Goal], Currency: row.Currency, Events: scale(row.Events, s.fraction),
			Amount: row.Amount, Average: row.Average}
	}
	slices.SortFunc(out, func(a, b GoalRevenue) int {
		return cmp.Or(strings.Compare(a.Goal.DisplayName, b.Goal.DisplayName), strings.Compare(a.Currency, b.Currency))
	})
	return out, nil
}

// PropertyPair is one key and value of a range's custom properties with the hits that carried
// it.
type PropertyPair struct {
	Key, Value string
	Hits       int64
}

// PropertyPairs are every key and value of a range's custom properties, with the filters, by
// hits descending then key and value (the CSV export), and what they rest on.
func (r *Repository) PropertyPairs(ctx context.Context, websiteID int64, days stats.Range, filters stats.Filters) ([]PropertyPair, Basis, error) {
	v := r.rows(websiteID, days, filters)
	s, err := v.source(ctx)
	if err != nil {
		return nil, Basis{}, fmt.Errorf("stats.property_pairs: %w", err)
	}
	query := `
		SELECT split_part(u.p, chr(31), 1) AS key, substr(u.p, strpos(u.p, chr(31)) + 1) AS value, count(*) AS hits
		FROM visit_rows CROSS JOIN LATERAL unnest(props) AS u (p)
		WHERE ` + s.where + `
		GROUP BY u.p
		ORDER BY hits DESC, u.p COLLATE "C"` // by key, then value: chr(31) sorts before any character of a value
	var rows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
		Hits  int64  `db:"hits"`
	}
	if err := r.readRows(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &rows, query, s.args...) }); err != nil {
		return nil, Basis{}, fmt.Errorf("stats.property_pairs: %w", err)
	}
	out := make([]PropertyPair, len(rows))
	for i, row := range rows {
		out[i] = PropertyPair{Key: row.Key, Value: row.Value, Hits: scale(row.Hits, s.fraction)}
	}
	basis, err := v.Basis(ctx)
	if err != nil {
		return nil, Basis{}, err
	}
	return out, basis, nil
}

// HasProperties tells whether a hit of the website carried a custom property on a day of the
// range: whether the flush registered a key for it (property_keys, written in the flush's
// transaction with the rows). The dashboard asks before it reads the keys from the rows, so
// that a website without properties (most) does not pay a month's scan on every view.
func (r *Repository) HasProperties(ctx context.Context, websiteID int64, days stats.Range) (bool, error) {
	var has bool
	err := r.reads.GetContext(ctx, &has, `SELECT EXISTS (SELECT FROM property_keys WHERE website_id = $1 AND day BETWEEN $2 AND $3)`,
		websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout))
	if err != nil {
		return false, fmt.Errorf("properties.has: %w", err)
	}
	return has, nil
}
