package repository

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/ttlcache"
	"github.com/analytics-service/analytics/stats"
)

// The goals' reads start from the distinct pages of the range (goals_read.go), which costs a
// read of every pageview of the range: as much as the rest of a goal-filtered summary. A
// closed day's pages never change (the job rewrites a day's partition in key order, and marks
// it clustered, once no flush writes it any more), so they are kept in memory per website and
// day, with their pageviews (Repository.pages), and only the days still open are read again.
// Entries expire after closedTTL all the same, and the cache is emptied past closedPagesMax
// pages. The days the column store holds have their pages in its file (column.Store.Pages),
// which goalPages reads first: a table of each day's distinct pages, so no pageview is read.

const (
	closedTTL      = 10 * time.Minute
	closedPagesMax = 500_000
)

// websiteDay names a closed day's pages: the website's rows_generation is in it, as every
// deletion of its rows (a stats reset, retention, on any node) raises it.
type websiteDay struct {
	website    int64
	generation int64
	day        string // YYYY-MM-DD
}

// newClosedPages is the cache of closed days' pages, each day weighing its pages.
func newClosedPages() *ttlcache.Cache[websiteDay, map[string]int64] {
	return ttlcache.New[websiteDay](closedTTL, closedPagesMax, func(p map[string]int64) int { return len(p) })
}

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
// days the column store holds from its file, the others' from the rows (rangePageviews).
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
	pages, err := r.rangePageviews(ctx, websiteID, rows, closed)
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

// rangePageviews is every distinct page of a website's rows of the days with its pageviews:
// those of closed days from memory when there, the others read (and the closed days among
// them kept).
func (r *Repository) rangePageviews(ctx context.Context, websiteID int64, days []string, closed map[string]bool) (map[string]int64, error) {
	generation, err := column.GenerationOf(ctx, r.db.DB, websiteID)
	if err != nil {
		return nil, fmt.Errorf("goals.pages: %w", err)
	}
	now := r.now()
	out := map[string]int64{}
	var read []string
	for _, day := range days {
		if pageviews, ok := r.pages.Get(websiteDay{websiteID, generation, day}, now); ok && closed[day] {
			for p, n := range pageviews {
				out[p] += n
			}
			continue
		}
		read = append(read, day)
	}
	if len(read) == 0 {
		return out, nil
	}
	perDay, err := r.dayPageviews(ctx, websiteID, read)
	if err != nil {
		return nil, fmt.Errorf("goals.pages: %w", err)
	}
	for _, day := range read {
		for p, n := range perDay[day] {
			out[p] += n
		}
		if closed[day] {
			r.pages.Put(websiteDay{websiteID, generation, day}, perDay[day], now)
		}
	}
	return out, nil
}

// dayPageviews reads the distinct pages of a website's rows of the days, with their pageviews,
// per day.
func (r *Repository) dayPageviews(ctx context.Context, websiteID int64, days []string) (map[string]map[string]int64, error) {
	// unnest in the select list (a ProjectSet) costs half of a lateral join with it.
	const query = `
		SELECT to_char(day, 'YYYY-MM-DD') AS day, page, count(*) AS count
		FROM (SELECT day, unnest(pages) AS page FROM visit_rows WHERE website_id = $1 AND day = ANY($2::date[])) AS h
		GROUP BY day, page`
	var rows []struct {
		Day   string `db:"day"`
		Page  string `db:"page"`
		Count int64  `db:"count"`
	}
	err := r.readRows(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &rows, query, websiteID, pq.Array(days))
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]int64, len(days))
	for _, d := range days {
		out[d] = map[string]int64{}
	}
	for _, row := range rows {
		out[row.Day][row.Page] = row.Count
	}
	return out, nil
}
