package repository

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/stats"
)

// PageEngagement is a page's time on page and scroll depth over a range (ingest/engagement.go
// counts them): nil where no visit sent them.
type PageEngagement struct {
	TimeOnPage  *int // the mean engaged seconds of the visits that sent engaged time for it
	ScrollDepth *int // the mean of those visits' deepest scroll depth on it, 0..100
}

// engagementNames are the counters behind PageEngagement.
var engagementNames = []string{string(stats.EngagedVisit), string(stats.EngagedMillis), string(stats.ScrollVisit), string(stats.ScrollSum)}

// Engagement reads the engagement counters of the pages over the range, from the counters and
// their rollups as List reads the pages themselves: one query for a page of the list.
func (c counterReader) Engagement(ctx context.Context, pages []string) (map[string]PageEngagement, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	from, args, err := c.repo.rangeRows(ctx, c.websiteID, "name = ANY($2)", pq.Array(engagementNames), c.days)
	if err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	args = append(args, pq.Array(pages))
	from = strings.ReplaceAll(from, "/*filter*/", fmt.Sprintf("AND value = ANY($%d)", len(args)))
	var rows []struct {
		Value string `db:"value"`
		Name  string `db:"name"`
		Count int64  `db:"count"`
	}
	query := `SELECT value, name, sum(count)::bigint AS count FROM (` + from + `) AS rows GROUP BY value, name`
	if err := c.repo.reads.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	sums := map[string]map[stats.Name]int64{}
	for _, r := range rows {
		if sums[r.Value] == nil {
			sums[r.Value] = map[stats.Name]int64{}
		}
		sums[r.Value][stats.Name(r.Name)] = r.Count
	}
	out := make(map[string]PageEngagement, len(sums))
	for page, s := range sums {
		out[page] = PageEngagement{
			TimeOnPage:  mean(s[stats.EngagedMillis], s[stats.EngagedVisit], 1000),
			ScrollDepth: mean(s[stats.ScrollSum], s[stats.ScrollVisit], 1),
		}
	}
	return out, nil
}

// Engagement of the matching visits, from their rows (engaged_pages, engaged_ms,
// scroll_depth: one element a page the visit sent engagement for, its totals), by the same
// definition as the counters': a page's time on page is the sum of the visits' engaged time
// over the number of visits that sent some for it, its scroll depth the mean of their deepest.
// Rows without engagement (NULL, those written before migration 0025 too) count in neither.
// A sample's means need no scaling: the fraction cancels out.
func (v rowReader) Engagement(ctx context.Context, pages []string) (map[string]PageEngagement, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	// The column store's days (columnPart) and the rows' of the others: the four numbers are
	// sums over days.
	through, p, err := v.columnPart(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	columnSums := func() ([]column.PageEngagement, error) { return nil, nil }
	if !through.IsZero() {
		columnSums, v = v.repo.column.StartEngagement(ctx, p, pages), v.after(through)
	}
	s, err := v.source(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	query := `SELECT e.page AS value, count(e.ms) AS engaged_visit, coalesce(sum(e.ms), 0)::bigint AS engaged_ms,
			count(e.depth) AS scroll_visit, coalesce(sum(e.depth), 0)::bigint AS scroll_sum
		FROM visit_rows CROSS JOIN LATERAL unnest(engaged_pages, engaged_ms, scroll_depth) AS e (page, ms, depth)
		WHERE ` + s.where + ` AND engaged_pages IS NOT NULL AND e.page = ANY(` + s.arg(pq.Array(pages)) + `)
		GROUP BY e.page`
	var rows []struct {
		Value        string `db:"value"`
		EngagedVisit int64  `db:"engaged_visit"`
		EngagedMs    int64  `db:"engaged_ms"`
		ScrollVisit  int64  `db:"scroll_visit"`
		ScrollSum    int64  `db:"scroll_sum"`
	}
	if err := v.repo.readRows(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &rows, query, s.args...) }); err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	sums := make(map[string]column.PageEngagement, len(rows))
	for _, r := range rows {
		sums[r.Value] = column.PageEngagement{EngagedVisits: r.EngagedVisit, EngagedMs: r.EngagedMs, ScrollVisits: r.ScrollVisit, ScrollSum: r.ScrollSum}
	}
	more, err := columnSums()
	if err != nil {
		return nil, fmt.Errorf("stats.engagement: %w", err)
	}
	for _, m := range more {
		e := sums[m.Page]
		e.EngagedVisits, e.EngagedMs, e.ScrollVisits, e.ScrollSum = e.EngagedVisits+m.EngagedVisits, e.EngagedMs+m.EngagedMs,
			e.ScrollVisits+m.ScrollVisits, e.ScrollSum+m.ScrollSum
		sums[m.Page] = e
	}
	out := make(map[string]PageEngagement, len(sums))
	for page, e := range sums {
		out[page] = PageEngagement{
			TimeOnPage:  mean(e.EngagedMs, e.EngagedVisits, 1000),
			ScrollDepth: mean(e.ScrollSum, e.ScrollVisits, 1),
		}
	}
	return out, nil
}

// mean is sum/n/unit rounded to a whole number; nil when n is 0.
func mean(sum, n, unit int64) *int {
	if n <= 0 {
		return nil
	}
	m := int(math.Round(float64(sum) / float64(n) / float64(unit)))
	return &m
}
