package repository

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// goalsListQuery tells whether q asks what the goals list's statements answer
// (goalsListAnswer): the event:goal dimension, alone or with one visit-level or time
// dimension; top-level event:goal filters that name goals (is, contains) and any filters
// without event:goal (visit-level, event:page, properties, and/or/not of them); the metrics
// visitors, events and the conversion rates. Such a query is answered from the range's hits
// with goal bits (docs/goals.md) rather than one union part a goal, which took 3.5 s for 20
// goals over a month (6 s with a country dimension).
func goalsListQuery(q *query.Query) bool {
	goal, other := 0, 0
	for _, f := range q.Dimensions {
		switch f.Level {
		case query.GoalLevel:
			goal++
		case query.VisitLevel, query.TimeLevel:
			other++
		default:
			return false
		}
	}
	if goal != 1 || other > 1 {
		return false
	}
	for _, f := range q.Filters {
		if f.IsGoal() && f.Negated() || !f.IsGoal() && usesGoals([]query.Filter{f}) {
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

// goalsListAnswer answers a goalsListQuery: a row for each goal (and value of the other
// dimension) that a visit converts on and every top-level event:goal filter names. The goal
// filters only pick the goals shown: a visit that converts on a shown goal converts on a goal
// that each of them names. conversion_rate divides by the visitors of the other filters,
// group_conversion_rate by those of the row's other dimension.
func (r *Repository) goalsListAnswer(ctx context.Context, websiteID int64, q *query.Query, zone stats.Zone) (QueryAnswer, error) {
	goals, err := r.Goals(ctx, websiteID)
	if err != nil {
		return QueryAnswer{}, fmt.Errorf("goals: %w", err)
	}
	goals = slices.DeleteFunc(goals, func(g stats.Goal) bool { return g.DisplayName == "" })
	others := slices.DeleteFunc(slices.Clone(q.Filters), query.Filter.IsGoal)
	var t *goalTable
	var basis Basis
	if len(q.Dimensions) == 1 && len(others) == 0 && q.Range.WholeDays() {
		t, basis, err = r.unfilteredGoals(ctx, websiteID, q, goals)
	} else {
		t, basis, err = r.queryGoalCounts(ctx, websiteID, q, others, goals, zone)
	}
	if err != nil {
		return QueryAnswer{}, err
	}
	out := pageOf(q, t.rows(q, goals))
	out.Basis, out.FromCounters = basis, false
	return out, nil
}

// goalTable are the goals' counts by the label of the other dimension ("" without one), the
// visitors of the range whole, and the fraction of the visitors read, which scales them.
type goalTable struct {
	byKey    map[string]*goalCounts
	total    int64
	fraction float64
}

// unfilteredGoals are the goals list's numbers (Conversions, whose closed days are kept in
// memory) as a goalTable of one key.
func (r *Repository) unfilteredGoals(ctx context.Context, websiteID int64, q *query.Query, goals []stats.Goal) (*goalTable, Basis, error) {
	conversions, visitors, basis, err := r.Conversions(ctx, websiteID, q.Range.Days(), nil, goals)
	if err != nil {
		return nil, Basis{}, err
	}
	c := newGoalCounts(len(goals))
	for _, conv := range conversions {
		i := slices.IndexFunc(goals, func(g stats.Goal) bool { return g.ID == conv.Goal.ID })
		c.visitors[i], c.events[i] = conv.Visitors, conv.Events
	}
	// Conversions' numbers are scaled already.
	c.base = visitors
	return &goalTable{byKey: map[string]*goalCounts{"": c}, total: visitors, fraction: 1}, basis, nil
}

// rows are the answer's rows of t, unordered.
func (t *goalTable) rows(q *query.Query, goals []stats.Goal) []QueryRow {
	var rows []QueryRow
	for key, c := range t.byKey {
		for i, g := range goals {
			if c.visitors[i] == 0 || !namedByFilters(q.Filters, g.DisplayName) {
				continue
			}
			visitors := scale(c.visitors[i], t.fraction)
			metrics := make([]float64, len(q.Metrics))
			for j, m := range q.Metrics {
				whole := t.total
				if m == query.GroupConversionRate {
					whole = c.base
				}
				switch m {
				case query.Visitors:
					metrics[j] = float64(visitors)
				case query.Events:
					metrics[j] = float64(scale(c.events[i], t.fraction))
				default: // the conversion rates
					if whole > 0 {
						metrics[j] = roundTo(100*float64(visitors)/float64(scale(whole, t.fraction)), 1)
					}
				}
			}
			dims := make([]string, len(q.Dimensions))
			for d, f := range q.Dimensions {
				dims[d] = key
				if f.Level == query.GoalLevel {
					dims[d] = g.DisplayName
				}
			}
			rows = append(rows, QueryRow{Dimensions: dims, Metrics: metrics})
		}
	}
	return rows
}

// namedByFilters tells whether every top-level event:goal filter names the goal.
func namedByFilters(filters []query.Filter, name string) bool {
	for _, f := range filters {
		if f.IsGoal() && !goalNamed(f, name) {
			return false
		}
	}
	return true
}

// queryGoalCounts counts the goals over the rows of the range that the filters (others: the
// query's without event:goal; v1's may hold one, which keeps the visits that convert on it)
// keep, compiled as the query engine compiles them, by the label of the query's
// other dimension: the goals list's counts (docs/goals.md) in one statement (goalsByKeySQL),
// which reads the matching rows once. The pageview goals' patterns are matched here with the
// range's pages (matchGoals, the closed days' kept in memory).
func (r *Repository) queryGoalCounts(ctx context.Context, websiteID int64, q *query.Query, others []query.Filter,
	goals []stats.Goal, zone stats.Zone) (*goalTable, Basis, error) {
	b, err := r.newBuild(ctx, websiteID, q, zone)
	if err != nil {
		return nil, Basis{}, err
	}
	key := ""
	for _, f := range q.Dimensions {
		if f.Level != query.GoalLevel {
			key = b.dimensionLabel(f, b.dimensionKey(f))
		}
	}
	if err := b.readValues(ctx, others); err != nil {
		return nil, Basis{}, err
	}
	matches, err := r.matchGoals(ctx, websiteID, q.Range.Days(), goals)
	if err != nil {
		return nil, Basis{}, fmt.Errorf("goals of the query: %w", err)
	}
	b.goals = matches // for a goal filter among others (v1's: the visits that convert on it)
	pages := newMaskTable(goalMaskWords(len(goals)))
	for i, m := range matches {
		for _, p := range m.pages {
			pages.add(p, i)
		}
	}
	names, oldNames := eventGoals(goals)
	t := &goalTable{byKey: map[string]*goalCounts{}, fraction: b.fraction}
	columnCounts := b.startColumnGoals(ctx, others, pages, names, oldNames)
	if err := b.keepRepeats(ctx); err != nil {
		return nil, Basis{}, err
	}
	err = r.readRows(ctx, func(tx *sqlx.Tx) error {
		// The visitor-days of several visits (the closed days' kept, the others' from the
		// primary key alone): only they are grouped one by one to count the base visitors (as
		// the engine's statement does).
		repeats, err := b.rangeRepeats(ctx, tx)
		if err != nil {
			return err
		}
		where, whereArgs, err := b.filterWhere(ctx, others)
		if err != nil {
			return err
		}
		s := &rowSource{where: where, sqlArgs: sqlArgs{args: slices.Clone(b.args[:whereArgs])}, fraction: b.fraction}
		statement := s.goalsByKeySQL(key, s.arg(pq.Array(repeats))+"::int8[]", pages, names, oldNames)
		return t.add(ctx, tx, statement, s.args, len(pages.words), len(goals))
	})
	if err == nil {
		err = columnCounts(t, len(goals))
	}
	if err != nil {
		return nil, Basis{}, fmt.Errorf("goals by key: %w", err)
	}
	if key == "" {
		t.total = t.counts("", len(goals)).base
	}
	from, err := r.FilteredFrom(ctx, websiteID, q.Range.Days())
	if err != nil {
		return nil, Basis{}, err
	}
	return t, Basis{Fraction: b.fraction, From: from}, nil
}

// goalsByKeySQL is the goals list's counts of the source's rows by key (the SQL of the key's
// value on a visit row, or "" for none) in one statement over the rows read once (m). Its
// rows are (part, k, m0, m1, ..., count): "base" the visitors of a key, "total" those of all
// rows, and as in goals_count.go "visitors" the visitors whose hits convert on exactly the
// goals of the bits, "events" the hits (pageviews of the pages table, event names) that
// convert on exactly those.
func (s *rowSource) goalsByKeySQL(key, repeats string, pages, names, oldNames *maskTable) string {
	words := len(pages.words)
	zeros := strings.TrimSuffix(strings.Repeat("0::bigint, ", words), ", ")
	// A visitor-day once in its key's base, and once in the whole (unless the key is too): a
	// row of a visitor-day of one visit (rk NULL) is one, a visitor-day of several (rk) one
	// whatever its rows.
	sets := "(k, rk)"
	if key == "" {
		key = "''"
	} else {
		sets += ", (rk)"
	}
	parts := []string{`SELECT CASE WHEN whole = 0 THEN 'base' ELSE 'total' END AS part, k, ` + zeros + `, sum(n)::bigint AS count
		FROM (SELECT k, GROUPING(k) AS whole, CASE WHEN rk IS NULL THEN count(*) ELSE 1 END AS n FROM m GROUP BY GROUPING SETS (` + sets + `)) AS b
		GROUP BY whole, k`}
	// The hits of each kind with their goals' bits, hashed by (day, visitor, k) and by bits
	// (PostgreSQL hashes both sets: a sort by (day, visitor) first took a tenth of the time).
	hits := func(from string) string {
		return `SELECT part, k, ` + maskColumns(words, "") + `, sum(count)::bigint
		FROM (
			SELECT CASE WHEN GROUPING(day, visitor) = 0 THEN 'visitors' ELSE 'events' END AS part, k,
				` + maskColumns(words, "bit_or(%[1]s) AS %[1]s") + `, CASE WHEN GROUPING(day, visitor) = 0 THEN 1 ELSE count(*) END AS count
			FROM (` + from + `) AS e
			GROUP BY GROUPING SETS ((day, visitor, k), (k, ` + maskColumns(words, "") + `))
		) AS v
		GROUP BY part, k, ` + maskColumns(words, "")
	}
	if len(pages.texts) > 0 {
		parts = append(parts, hits(`SELECT k, day, visitor, `+maskColumns(words, "p.%s")+`
			FROM (SELECT k, day, visitor, unnest(pages) AS page FROM m) AS h
			JOIN `+pages.from(s, "p")+` ON p.text = h.page`))
	}
	if len(names.texts) > 0 {
		// A row's event names and its old events (oldRow) side by side: one of the two is
		// empty. Most visits have neither: they are left out before the unnest, which took a
		// row of each.
		parts = append(parts, hits(`SELECT k, day, visitor, `+maskColumns(words, "coalesce(n.%[1]s, o.%[1]s) AS %[1]s")+`
			FROM (SELECT k, day, visitor, unnest(event_names) AS name, unnest(old) AS old FROM m
				WHERE event_names <> '{}' OR old <> '{}') AS h
			LEFT JOIN `+names.from(s, "n")+` ON n.text = h.name
			LEFT JOIN `+oldNames.from(s, "o")+` ON o.text = `+oldEventName("h.old")+`
			WHERE n.text IS NOT NULL OR o.text IS NOT NULL`))
	}
	return `WITH m AS MATERIALIZED (
			SELECT (` + key + `) COLLATE "C" AS k, day, visitor, CASE WHEN ` + repeatKey + ` = ANY(` + repeats + `) THEN ` + repeatKey + ` END AS rk,
				pages, event_names, CASE WHEN ` + oldRow + ` THEN events END AS old
			FROM visit_rows WHERE ` + s.where + `
		) ` + strings.Join(parts, " UNION ALL ")
}

// counts are t's counts of a key, made when absent.
func (t *goalTable) counts(key string, goals int) *goalCounts {
	c := t.byKey[key]
	if c == nil {
		c = newGoalCounts(goals)
		t.byKey[key] = c
	}
	return c
}

// add runs a goalsByKeySQL statement and adds its rows to t: each count to every goal of its
// bits, "base" to the key's visitors, "total" to the whole's.
func (t *goalTable) add(ctx context.Context, tx *sqlx.Tx, query string, args []any, words, goals int) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	row, dest := newCountedRow(words, true)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if row.part == "total" {
			t.total += row.count
			continue
		}
		t.counts(row.key.String, goals).addRow(row.part, row.mask, row.count)
	}
	return rows.Err()
}
