package repository

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// PageListWithEngagement is one page of the page list with the time on page and scroll depth
// of its pages, as the reader's store reads them together (Reader.ListEngaged).
func PageListWithEngagement(ctx context.Context, r Reader, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error) {
	return r.ListEngaged(ctx, q)
}

// ListEngaged over the counters reads the list and then the engagement of its pages.
func (c counterReader) ListEngaged(ctx context.Context, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error) {
	entries, total, err := c.List(ctx, q)
	if err != nil {
		return nil, 0, nil, err
	}
	pages := make([]string, len(entries))
	for i, e := range entries {
		pages[i] = e.Value
	}
	engaged, err := c.Engagement(ctx, pages)
	return entries, total, engaged, err
}

// ListEngaged over the visit rows reads both from one scan of the matching rows, materialised
// once in the statement: as a list and then an engagement read, the rows were scanned twice
// and the list took twice as long (docs/tracker.md).
func (v rowReader) ListEngaged(ctx context.Context, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error) {
	return v.listEngaged(ctx, q)
}

// listEngaged is PageListWithEngagement over the visit rows: m the matching rows' arrays, page
// the list's page as List reads it, eng the engagement of those pages as Engagement reads it.
func (v rowReader) listEngaged(ctx context.Context, q StatQuery) ([]StatEntry, int64, map[string]PageEngagement, error) {
	s, err := v.source(ctx)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("stats.list_engaged: %w", err)
	}
	matching := `m AS MATERIALIZED (SELECT pages, engaged_pages, engaged_ms, scroll_depth FROM visit_rows WHERE ` + s.where + `)`
	onlyPage := ""
	if s.page != "" {
		onlyPage = " WHERE " + s.pageOf("u.value")
	}
	totals := `SELECT u.value, count(*) AS count FROM m CROSS JOIN LATERAL unnest(m.pages) AS u (value)` + onlyPage + ` GROUP BY u.value`
	if q.Search != "" {
		totals = `SELECT value, count FROM (` + totals + `) AS t WHERE value ILIKE ` + s.arg(likePattern(q.Search))
	}
	order := listOrder(q)
	query := `WITH ` + matching + `,
		page AS (SELECT value, count, count(*) OVER () AS total FROM (` + totals + `) AS totals
			ORDER BY ` + order + limitOffset(q.Limit, q.Offset) + `),
		eng AS (SELECT e.page, count(e.ms) AS engaged_visit, coalesce(sum(e.ms), 0)::bigint AS engaged_ms,
				count(e.depth) AS scroll_visit, coalesce(sum(e.depth), 0)::bigint AS scroll_sum
			FROM m CROSS JOIN LATERAL unnest(m.engaged_pages, m.engaged_ms, m.scroll_depth) AS e (page, ms, depth)
			WHERE m.engaged_pages IS NOT NULL AND e.page IN (SELECT value FROM page)
			GROUP BY e.page)
		SELECT value, count, total, coalesce(engaged_visit, 0) AS engaged_visit, coalesce(eng.engaged_ms, 0) AS engaged_ms,
			coalesce(scroll_visit, 0) AS scroll_visit, coalesce(scroll_sum, 0) AS scroll_sum
		FROM page LEFT JOIN eng ON eng.page = page.value
		ORDER BY ` + order
	var rows []struct {
		StatEntry
		Total        int64 `db:"total"`
		EngagedVisit int64 `db:"engaged_visit"`
		EngagedMs    int64 `db:"engaged_ms"`
		ScrollVisit  int64 `db:"scroll_visit"`
		ScrollSum    int64 `db:"scroll_sum"`
	}
	var total int64
	err = v.repo.readRows(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &rows, query, s.args...); err != nil {
			return err
		}
		if len(rows) > 0 || q.Offset == 0 {
			return nil
		}
		// A page past the end has no row to carry the total; count separately.
		return tx.GetContext(ctx, &total, `WITH `+matching+` SELECT count(*) FROM (`+totals+`) AS totals`, s.args...)
	})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("stats.list_engaged: %w", err)
	}
	entries := make([]StatEntry, len(rows))
	engaged := make(map[string]PageEngagement, len(rows))
	for i, r := range rows {
		entries[i], total = r.StatEntry, r.Total
		if r.EngagedVisit > 0 || r.ScrollVisit > 0 {
			engaged[r.Value] = PageEngagement{TimeOnPage: mean(r.EngagedMs, r.EngagedVisit, 1000), ScrollDepth: mean(r.ScrollSum, r.ScrollVisit, 1)}
		}
	}
	scaleEntries(entries, s.fraction)
	return entries, total, engaged, nil
}
