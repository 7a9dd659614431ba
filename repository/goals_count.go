package repository

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// The goals list (docs/goals.md) counts every goal in two statements run at once, one for the
// pageview goals and one for the event goals. The pageview goals' needs the distinct pages of
// the rows with their pageviews first (goal_pages.go): the patterns are matched with them
// here, in Go, and a goal's events are the pageviews of the pages it matches. Each statement
// joins every hit (a page, an event name) on its text with a small table of the texts that
// convert and the goals they convert on, as bits; the bits are or-ed per (day, visitor), and
// those are counted per combination of bits: one hash probe a hit and one group a converting
// visitor whatever the number of goals, and an answer of a few hundred rows that Go adds up
// per bit. Goal i is bit i%64 of the word i/64.

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

// pageGoals is the table of the pages that match a pageview goal, and the pageviews of each
// goal: those of the pages it matches.
func pageGoals(goals []stats.Goal, pageviews map[string]int64) (*maskTable, []int64) {
	t, events := newMaskTable(goalMaskWords(len(goals))), make([]int64, len(goals))
	for i, g := range goals {
		if g.Kind != stats.GoalPageview {
			continue
		}
		re := stats.GoalPattern(g.Page)
		for p, n := range pageviews {
			if re.MatchString(stats.GoalPath(p)) {
				t.add(p, i)
				events[i] += n
			}
		}
	}
	return t, events
}

// eventGoals are the tables of the event goals' names, as sent and as rows written before
// names were kept hold them (encodedEventName).
func eventGoals(goals []stats.Goal) (names, oldNames *maskTable) {
	names, oldNames = newMaskTable(goalMaskWords(len(goals))), newMaskTable(goalMaskWords(len(goals)))
	for i, g := range goals {
		if g.Kind == stats.GoalEvent {
			names.add(g.Event, i)
			oldNames.add(encodedEventName(g.Event), i)
		}
	}
	return names, oldNames
}

// The statements below give rows of (part, m0, m1, ..., count): the visitors of all rows
// (part "base"), the visitors whose hits convert on exactly the goals of the bits (part
// "visitors"), or the events that convert on exactly those goals (part "events"). The hits of
// each come ordered by (day, visitor), as a closed day's rows lie, so that they are grouped by
// a sort of sorted rows rather than a hash table as large as the visitors.

// pageGoalsSQL is the visitors of the pageview goals.
func (s *rowSource) pageGoalsSQL(pages *maskTable) string {
	words := len(pages.words)
	return `SELECT 'visitors' AS part, ` + maskColumns(words, "") + `, count(*) AS count
		FROM (
			SELECT ` + maskColumns(words, "bit_or(%[1]s) AS %[1]s") + `
			FROM (
				SELECT day, visitor, ` + maskColumns(words, "p.%s") + `
				FROM (SELECT day, visitor, unnest(pages) AS page FROM visit_rows WHERE ` + s.where + `) AS h
				JOIN ` + pages.from(s, "p") + ` ON p.text = h.page
				ORDER BY day, visitor
			) AS e
			GROUP BY day, visitor
		) AS v
		GROUP BY ` + maskColumns(words, "")
}

// baseAndEventGoalsSQL is the base visitors, and the visitors and events of the event goals.
func (s *rowSource) baseAndEventGoalsSQL(names, oldNames *maskTable) string {
	words := len(names.words)
	base := `SELECT 'base' AS part, ` + strings.TrimSuffix(strings.Repeat("0::bigint, ", words), ", ") + `, count(*) AS count
		FROM (SELECT FROM visit_rows WHERE ` + s.where + ` GROUP BY day, visitor) AS b`
	if len(names.texts) == 0 {
		return base
	}
	// A row's event names and its old events (oldRow) side by side: one of the two is empty.
	return base + `
		UNION ALL
		SELECT part, ` + maskColumns(words, "") + `, sum(count)::bigint
		FROM (
			SELECT CASE WHEN GROUPING(day, visitor) = 0 THEN 'visitors' ELSE 'events' END AS part,
				` + maskColumns(words, "bit_or(%[1]s) AS %[1]s") + `, CASE WHEN GROUPING(day, visitor) = 0 THEN 1 ELSE count(*) END AS count
			FROM (
				SELECT day, visitor, ` + maskColumns(words, "coalesce(n.%[1]s, o.%[1]s) AS %[1]s") + `
				FROM (
					SELECT day, visitor, unnest(event_names) AS name,
						unnest(CASE WHEN ` + oldRow + ` THEN events END) AS old
					FROM visit_rows WHERE ` + s.where + ` AND events <> '{}'
				) AS h
				LEFT JOIN ` + names.from(s, "n") + ` ON n.text = h.name
				LEFT JOIN ` + oldNames.from(s, "o") + ` ON o.text = ` + oldEventName("h.old") + `
				WHERE n.text IS NOT NULL OR o.text IS NOT NULL
				ORDER BY day, visitor
			) AS e
			GROUP BY GROUPING SETS ((day, visitor), (` + maskColumns(words, "") + `))
		) AS v
		GROUP BY part, ` + maskColumns(words, "")
}

// goalCounts are the numbers of each goal and the base visitors, as the statements' rows add
// up.
type goalCounts struct {
	visitors, events []int64
	base             int64
}

func newGoalCounts(goals int) *goalCounts {
	return &goalCounts{visitors: make([]int64, goals), events: make([]int64, goals)}
}

// add adds o's numbers to c's; o may be nil.
func (c *goalCounts) add(o *goalCounts) {
	if o == nil {
		return
	}
	for i := range c.visitors {
		c.visitors[i] += o.visitors[i]
		c.events[i] += o.events[i]
	}
	c.base += o.base
}

// addMaskCounts runs one of the statements above and adds its rows to c, each count to every
// goal of its bits.
func (r *Repository) addMaskCounts(ctx context.Context, s *rowSource, query string, words int, c *goalCounts) error {
	return r.readRows(ctx, func(tx *sqlx.Tx) error {
		rows, err := tx.QueryContext(ctx, query, s.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		row, dest := newCountedRow(words, false)
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			c.addRow(row.part, row.mask, row.count)
		}
		return rows.Err()
	})
}

// countedRow is a row of the goals' counting statements: its part, its key when the statement
// groups by one, its words of goal bits and its count.
type countedRow struct {
	part  string
	key   sql.NullString
	mask  []int64
	count int64
}

// newCountedRow makes a countedRow of words words of bits and the Scan destinations of its columns.
func newCountedRow(words int, keyed bool) (*countedRow, []any) {
	r := &countedRow{mask: make([]int64, words)}
	dest := []any{&r.part}
	if keyed {
		dest = append(dest, &r.key)
	}
	for w := range r.mask {
		dest = append(dest, &r.mask[w])
	}
	return r, append(dest, &r.count)
}

// addRow adds a row of the goals' counting statements: the visitors of the base ("base"), or
// count for each goal bit of mask, to the goals' visitors or to their events ("events").
func (c *goalCounts) addRow(part string, mask []int64, count int64) {
	sums := c.visitors
	switch part {
	case "base":
		c.base += count
		return
	case "events":
		sums = c.events
	}
	for w, m := range mask {
		addBits(sums, w, m, count)
	}
}

// addBits adds count to the sum of every goal whose bit is set in word w of a mask.
func addBits(sums []int64, w int, m, count int64) {
	for b := 0; m != 0; b++ {
		if m&1 != 0 {
			sums[w*64+b] += count
		}
		m = int64(uint64(m) >> 1)
	}
}
