package repository

import (
	"context"
	"fmt"

	"github.com/analytics-service/analytics/stats"
)

// The goals' reads start from the distinct pages of the range (goals_read.go): the days the
// column store holds from its file (column.Store.Pages: a table of each day's distinct pages,
// so no pageview is read), the others from the rows, the closed days' kept (package daypages).

// closedDays are the days of the range that are closed: the job has rewritten them in key
// order, and no flush writes them any more.
func (r *Repository) closedDays(ctx context.Context, days stats.Range) (map[string]bool, error) {
	var closed []string
	const query = `
		SELECT to_char(day, 'YYYY-MM-DD') FROM visit_row_partitions
		WHERE clustered AND day BETWEEN $1 AND $2`
	if err := r.reads.SelectContext(ctx, &closed, query, days.From.Format(dateLayout), days.To.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("goals.closed_days: %w", err)
	}
	out := make(map[string]bool, len(closed))
	for _, d := range closed {
		out[d] = true
	}
	return out, nil
}

// rowDays are the days of the range that can hold visit rows (those with a partition),
// YYYY-MM-DD: at most FACTS_RETENTION of them whatever the range, where listing every day of
// 0001-01-01 to 9999-12-31 (rangeDays) made 3.65 million of them, and a map each.
func (r *Repository) rowDays(ctx context.Context, days stats.Range) ([]string, error) {
	var out []string
	const query = `
		SELECT to_char(day, 'YYYY-MM-DD') FROM visit_row_partitions
		WHERE day BETWEEN $1 AND $2 ORDER BY day`
	if err := r.reads.SelectContext(ctx, &out, query, days.From.Format(dateLayout), days.To.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("goals.row_days: %w", err)
	}
	return out, nil
}

// goalPages are the distinct pages of the range's rows with their pageviews: those of the
// days the column store holds from its file, the others' from the rows (daypages.Reader.Pageviews).
func (r *Repository) goalPages(ctx context.Context, websiteID int64, days stats.Range) (map[string]int64, error) {
	held := map[string]int64{}
	if r.column != nil {
		through, ok, err := r.columnHeldUTC(ctx, websiteID, days.From, days.To)
		if err != nil {
			return nil, err
		}
		if ok {
			if held, err = r.column.Pages(ctx, websiteID, days.From, through); err != nil {
				return nil, err
			}
			days.From = through.AddDate(0, 0, 1)
		}
	}
	if days.From.After(days.To) {
		return held, nil
	}
	closed, err := r.closedDays(ctx, days)
	if err != nil {
		return nil, err
	}
	rows, err := r.rowDays(ctx, days)
	if err != nil {
		return nil, err
	}
	pages, err := r.dayPages.Pageviews(ctx, websiteID, rows, closed)
	if err != nil {
		return nil, err
	}
	for p, n := range held {
		pages[p] += n
	}
	return pages, nil
}

// rangeDays are the days of the range, YYYY-MM-DD.
func rangeDays(days stats.Range) []string {
	var out []string
	for day := stats.Day(days.From); !day.After(stats.Day(days.To)); day = day.AddDate(0, 0, 1) {
		out = append(out, day.Format(dateLayout))
	}
	return out
}
