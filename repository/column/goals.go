package column

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/analytics-service/analytics/query"
)

// GoalPart is a read of the goals list's counts (the query engine's goalsByKeySQL) over a
// website's days that the file holds: its Part's filters (none on event:goal) keep the
// visits, Key (nil for none) is the query's other dimension, whose label the counts are by.
type GoalPart struct {
	Part
	Key       *query.Field
	RangeFrom time.Time // the query's first day: a week's label is never before it
	// Pages, Names and OldNames map a page, an event name as sent and one as rows written
	// before names were kept hold it to the goals it converts on, as bits.
	Pages, Names, OldNames MaskTable
}

// MaskTable is the texts that convert and, by word w, Words[w][i] the goals of Texts[i]: goal
// g is bit g%64 of word g/64.
type MaskTable struct {
	Texts []string
	Words [][]int64
}

// GoalRow is a row of the goals' counts, as the engine's statement's: Part "base" the
// visitors of Key, "total" those of every key, "visitors" the visitors whose hits convert on
// exactly the goals of Mask, "events" the hits that do.
type GoalRow struct {
	Part, Key string
	Mask      []int64
	Count     int64
}

// StartGoalCounts builds the part's statement and runs it beside the caller; wait returns its
// rows.
func (s *Store) StartGoalCounts(ctx context.Context, p GoalPart) (wait func() ([]GoalRow, error)) {
	b := &partBuild{p: p.Part, s: s}
	sqlText, err := b.goalStatement(ctx, p)
	if err != nil {
		return func() ([]GoalRow, error) { return nil, err }
	}
	return runBeside(ctx, b, sqlText, func(sqlText string) ([]GoalRow, error) {
		return s.readGoalRows(ctx, sqlText, b.args, len(p.Pages.Words))
	})
}

func (s *Store) readGoalRows(ctx context.Context, sqlText string, args []any, words int) ([]GoalRow, error) {
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, fmt.Errorf("column store: goals: %w", err)
	}
	defer rows.Close()
	var out []GoalRow
	for rows.Next() {
		var part string
		var key sql.NullString
		var count int64
		mask := make([]int64, words)
		dest := []any{&part, &key}
		for w := range mask {
			dest = append(dest, &mask[w])
		}
		if err := rows.Scan(append(dest, &count)...); err != nil {
			return nil, fmt.Errorf("column store: goals: %w", err)
		}
		out = append(out, GoalRow{Part: part, Key: key.String, Mask: mask, Count: count})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("column store: goals: %w", err)
	}
	return out, nil
}

// label is the SQL of the key's value as answered: a visit-level value in Plausible's
// spelling, a time bucket's label.
func (b *partBuild) label(f query.Field, rangeFrom time.Time) string {
	if f.Level != query.TimeLevel {
		return b.answer(f, column(f))
	}
	switch f.Time {
	case query.Hour:
		return `strftime(day + to_hours(hour), '%Y-%m-%d %H:%M:%S')`
	case query.Week:
		return `strftime(greatest(date_trunc('week', day), ` + b.arg(rangeFrom) + `::DATE), '%Y-%m-%d')`
	case query.Month:
		return `strftime(day, '%Y-%m-01')`
	}
	return `strftime(day, '%Y-%m-%d')`
}

// from is the mask table as a FROM item with columns text, m0, m1, ...
func (b *partBuild) from(t MaskTable) string {
	cols := []string{"unnest(" + b.arg(t.Texts) + "::VARCHAR[]) AS text"}
	for w, words := range t.Words {
		cols = append(cols, fmt.Sprintf("unnest(%s::BIGINT[]) AS m%d", b.arg(words), w))
	}
	return "(SELECT " + strings.Join(cols, ", ") + ")"
}

// words is "f(0), f(1), ..." for each word of the masks.
func words(n int, f string) string {
	out := make([]string, n)
	for w := range out {
		out[w] = strings.ReplaceAll(f, "#", fmt.Sprint(w))
	}
	return strings.Join(out, ", ")
}

// goalStatement is the engine's goalsByKeySQL over the file: the filtered visits once (m),
// their visitors by key (base, total), and their hits joined with the mask tables, or-ed per
// visitor-day and counted by combination of bits.
func (b *partBuild) goalStatement(ctx context.Context, p GoalPart) (string, error) {
	conds := []string{b.rangeCond()}
	for _, f := range p.Filters {
		c, err := b.cond(ctx, f)
		if err != nil {
			return "", err
		}
		conds = append(conds, c)
	}
	key, sets := "''", "(k, rk)"
	if p.Key != nil {
		key, sets = b.label(*p.Key, p.RangeFrom), "(k, rk), (rk)"
	}
	n := len(p.Pages.Words)
	parts := []string{`SELECT CASE WHEN whole = 0 THEN 'base' ELSE 'total' END, k, ` + words(n, "0::BIGINT") + `, sum(n)::BIGINT
		FROM (SELECT k, GROUPING(k) AS whole, CASE WHEN rk IS NULL THEN count(*) ELSE 1 END AS n FROM m GROUP BY GROUPING SETS (` + sets + `)) AS b
		GROUP BY whole, k`}
	hits := func(from string) string {
		return `SELECT part, k, ` + words(n, "m#") + `, sum(count)::BIGINT FROM (
			SELECT CASE WHEN GROUPING(day, visitor) = 0 THEN 'visitors' ELSE 'events' END AS part, k,
				` + words(n, "bit_or(w#) AS m#") + `, CASE WHEN GROUPING(day, visitor) = 0 THEN 1 ELSE count(*) END AS count
			FROM (` + from + `) AS e GROUP BY GROUPING SETS ((day, visitor, k), (k, ` + words(n, "w#") + `))
		) AS v GROUP BY part, k, ` + words(n, "m#")
	}
	if len(p.Pages.Texts) > 0 {
		parts = append(parts, hits(`SELECT k, day, visitor, `+words(n, "p.m# AS w#")+`
			FROM (SELECT k, day, visitor, unnest(pages) AS page FROM m) AS h JOIN `+b.from(p.Pages)+` AS p ON p.text = h.page`))
	}
	if len(p.Names.Texts) > 0 {
		parts = append(parts, hits(`SELECT k, day, visitor, `+words(n, "coalesce(n.m#, o.m#) AS w#")+`
			FROM (SELECT k, day, visitor, unnest(names) AS name, NULL::VARCHAR AS old FROM m WHERE len(names) > 0
				UNION ALL SELECT k, day, visitor, NULL, unnest(oldnames) FROM m WHERE len(oldnames) > 0) AS h
			LEFT JOIN `+b.from(p.Names)+` AS n ON n.text = h.name LEFT JOIN `+b.from(p.OldNames)+` AS o ON o.text = h.old
			WHERE n.text IS NOT NULL OR o.text IS NOT NULL`))
	}
	// m is read three or four times. Unfiltered, reading the file again costs less than
	// keeping every visit's lists; a filter is tested once (docs/big-sites.md, "The goals'
	// statement: read again or kept").
	mat := "MATERIALIZED"
	if len(p.Filters) == 0 {
		mat = "NOT MATERIALIZED"
	}
	m := `m AS ` + mat + ` (SELECT (` + key + `) AS k, day, visitor, rkey AS rk, pages, names, oldnames
		FROM visits WHERE ` + strings.Join(conds, " AND ") + `)`
	return b.with(m) + strings.Join(parts, " UNION ALL "), nil
}
