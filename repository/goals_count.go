package repository

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// The goals list counts every goal in two passes over the range's rows (docs/goals.md). The
// first reads the distinct pages of the matching rows with how many pageviews each has: the
// pageview goals' patterns are matched with them here, in Go, and their events are the sums of
// the counts of the pages they match. The second reads the visitors: each hit is joined on its
// text with a small table of the hits that convert (a page, an event name) and the goals they
// convert on, as bits; the bits are or-ed per (day, visitor), and those are counted per
// combination of bits, so the statement's work is one hash probe a hit and one group a
// converting visitor whatever the number of goals, and its answer a few hundred rows that Go
// adds up per bit. Goal i is bit i%64 of the word i/64.

// goalMaskWords is how many 64-bit words hold one bit per goal.
func goalMaskWords(goals int) int { return max(1, (goals+63)/64) }

// maskTable maps the text of a hit to the goals it converts on. It is bound as arrays (the
// texts, and a bigint[] per word) that the statement unnests into a table.
type maskTable struct {
	texts []string
	words [][]int64 // words[w][i]: word w of the goals of texts[i]
	index map[string]int
}

func newMaskTable(words int) *maskTable {
	return &maskTable{words: make([][]int64, words), index: map[string]int{}}
}

func (t *maskTable) add(text string, goal int) {
	i, ok := t.index[text]
	if !ok {
		i = len(t.texts)
		t.index[text] = i
		t.texts = append(t.texts, text)
		for w := range t.words {
			t.words[w] = append(t.words[w], 0)
		}
	}
	t.words[goal/64][i] |= int64(uint64(1) << (goal % 64))
}

// from is the table in a FROM clause, with columns text, m0, m1, ...
func (t *maskTable) from(s *rowSource, alias string) string {
	arrays := []string{s.arg(pq.Array(t.texts)) + "::text[]"}
	for _, w := range t.words {
		arrays = append(arrays, s.arg(pq.Array(w))+"::bigint[]")
	}
	return "unnest(" + strings.Join(arrays, ", ") + ") AS " + alias + " (text, " + maskColumns(len(t.words), "") + ")"
}

// maskColumns is "m0, m1, ..." with each name wrapped in f ("%s" when f is empty).
func maskColumns(words int, f string) string {
	if f == "" {
		f = "%s"
	}
	cols := make([]string, words)
	for w := range cols {
		cols[w] = fmt.Sprintf(f, fmt.Sprintf("m%d", w))
	}
	return strings.Join(cols, ", ")
}

// pageCounts is every distinct page of the source's rows with its pageviews.
func (r *Repository) pageCounts(ctx context.Context, s *rowSource) (map[string]int64, error) {
	// unnest in the select list (a ProjectSet) costs half of a lateral join with it.
	query := `SELECT page, count(*) AS count
		FROM (SELECT unnest(pages) AS page FROM visit_rows WHERE ` + s.where + `) AS h
		GROUP BY page`
	var rows []struct {
		Page  string `db:"page"`
		Count int64  `db:"count"`
	}
	if err := r.readRows(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &rows, query, s.args...) }); err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(rows))
	for _, row := range rows {
		counts[row.Page] = row.Count
	}
	return counts, nil
}

// goalTables are the hits that convert, by kind: the pages that match a pageview goal, the
// event names of the event goals, and those names as rows written before names were kept hold
// them (encodedEventName).
type goalTables struct {
	pages, names, oldNames *maskTable
	pageviews              []int64 // of each goal: the pageviews of the pages it matches
}

func newGoalTables(goals []stats.Goal, pageviews map[string]int64) goalTables {
	words := goalMaskWords(len(goals))
	t := goalTables{pages: newMaskTable(words), names: newMaskTable(words), oldNames: newMaskTable(words),
		pageviews: make([]int64, len(goals))}
	for i, g := range goals {
		if g.Kind != stats.GoalPageview {
			t.names.add(g.Event, i)
			t.oldNames.add(encodedEventName(g.Event), i)
			continue
		}
		re := stats.GoalPattern(g.Page)
		for p, n := range pageviews {
			if re.MatchString(stats.GoalPath(p)) {
				t.pages.add(p, i)
				t.pageviews[i] += n
			}
		}
	}
	return t
}

// conversionSQL is the second pass: the base visitors, then those of the pageview goals and
// those (and the events) of the event goals. Each part's hits come ordered by (day, visitor),
// as a closed day's rows lie, so that they are grouped by a sort of sorted rows rather than a
// hash table as large as the visitors.
func (s *rowSource) conversionSQL(t goalTables) string {
	words := len(t.pages.words)
	zeros := strings.TrimSuffix(strings.Repeat("0::bigint, ", words), ", ")
	parts := []string{`SELECT 'base' AS part, ` + zeros + `, count(*) AS count
		FROM (SELECT FROM visit_rows WHERE ` + s.where + ` GROUP BY day, visitor) AS b`}
	if len(t.pages.texts) > 0 {
		parts = append(parts, `SELECT 'visitors', `+maskColumns(words, "")+`, count(*)
		FROM (
			SELECT `+maskColumns(words, "bit_or(%[1]s) AS %[1]s")+`
			FROM (
				SELECT day, visitor, `+maskColumns(words, "p.%s")+`
				FROM (SELECT day, visitor, unnest(pages) AS page FROM visit_rows WHERE `+s.where+`) AS h
				JOIN `+t.pages.from(s, "p")+` ON p.text = h.page
				ORDER BY day, visitor
			) AS e
			GROUP BY day, visitor
		) AS v
		GROUP BY `+maskColumns(words, ""))
	}
	if len(t.names.texts) > 0 {
		// A row's event names and, when it has none (written before they were kept), its
		// events side by side: one of the two is empty.
		parts = append(parts, `SELECT part, `+maskColumns(words, "")+`, sum(count)::bigint
		FROM (
			SELECT CASE WHEN GROUPING(day, visitor) = 0 THEN 'visitors' ELSE 'events' END AS part,
				`+maskColumns(words, "bit_or(%[1]s) AS %[1]s")+`, CASE WHEN GROUPING(day, visitor) = 0 THEN 1 ELSE count(*) END AS count
			FROM (
				SELECT day, visitor, `+maskColumns(words, "coalesce(n.%[1]s, o.%[1]s) AS %[1]s")+`
				FROM (
					SELECT day, visitor, unnest(event_names) AS name,
						unnest(CASE WHEN event_names = '{}' THEN events END) AS old
					FROM visit_rows WHERE `+s.where+` AND events <> '{}'
				) AS h
				LEFT JOIN `+t.names.from(s, "n")+` ON n.text = h.name
				LEFT JOIN `+t.oldNames.from(s, "o")+` ON o.text = split_part(h.old, ':', 1)
				WHERE n.text IS NOT NULL OR o.text IS NOT NULL
				ORDER BY day, visitor
			) AS e
			GROUP BY GROUPING SETS ((day, visitor), (`+maskColumns(words, "")+`))
		) AS v
		GROUP BY part, `+maskColumns(words, ""))
	}
	return strings.Join(parts, "\n\t\tUNION ALL ")
}

// countConversions runs conversionSQL and adds its rows up per goal: each goal's visitors
// and events (those of event goals: pageview goals' are goalTables.pageviews), and the base
// visitors.
func (r *Repository) countConversions(ctx context.Context, s *rowSource, t goalTables, goals int) (visitors, events []int64, base int64, err error) {
	query := s.conversionSQL(t)
	words := len(t.pages.words)
	visitors, events = make([]int64, goals), make([]int64, goals)
	err = r.readRows(ctx, func(tx *sqlx.Tx) error {
		rows, err := tx.QueryContext(ctx, query, s.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]any, words+2)
		var part string
		var count int64
		mask := make([]int64, words)
		dest[0], dest[words+1] = &part, &count
		for w := range mask {
			dest[w+1] = &mask[w]
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			sums := visitors
			switch part {
			case "base":
				base += count
				continue
			case "events":
				sums = events
			}
			for w, m := range mask {
				for b := 0; b < 64 && m != 0; b++ {
					if m&1 != 0 {
						sums[w*64+b] += count
					}
					m = int64(uint64(m) >> 1)
				}
			}
		}
		return rows.Err()
	})
	return visitors, events, base, err
}
