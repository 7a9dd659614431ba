// Package daypages reads the distinct pages of a website's visit rows, day by day, with their
// pageviews: the pages goals and funnels match their patterns with. Reading them costs a read
// of every pageview of the days, as much as the rest of a goal-filtered summary; a closed
// day's pages never change (the job rewrites a day's partition in key order and marks it
// clustered once no flush writes it any more), so they are kept in memory per website and
// day, and only the days still open are read again. Entries expire after TTL all the same,
// and the cache is emptied past maxPages pages. The days the column store holds have their
// pages in its file (column.Store.Pages), which the repository reads first.
package daypages

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/ttlcache"
)

// TTL is how long a closed day's pages are kept, maxPages how many pages at most.
const (
	TTL      = 10 * time.Minute
	maxPages = 500_000
)

// ReadRows runs read in a read-only transaction with the settings of the stats reads.
type ReadRows func(ctx context.Context, read func(tx *sqlx.Tx) error) error

// Reader reads the days' pages and keeps the closed days'.
type Reader struct {
	db       *sql.DB
	readRows ReadRows
	now      func() time.Time
	kept     *ttlcache.Cache[websiteDay, map[string]int64]
}

// websiteDay names a closed day's pages: the website's rows_generation is in it, as every
// deletion of its rows (a stats reset, retention, on any node) raises it.
type websiteDay struct {
	website    int64
	generation int64
	day        string // YYYY-MM-DD
}

// New is a Reader of db's visit rows (its websites' rows_generation read there), through
// readRows; now is the clock of the entries' expiry.
func New(db *sql.DB, readRows ReadRows, now func() time.Time) *Reader {
	kept := ttlcache.New[websiteDay](TTL, maxPages, func(p map[string]int64) int { return len(p) })
	return &Reader{db: db, readRows: readRows, now: now, kept: kept}
}

// Pageviews is every distinct page of a website's rows of the days (YYYY-MM-DD) with its
// pageviews: those of closed days from memory when there, the others read (and the closed
// days among them kept).
func (r *Reader) Pageviews(ctx context.Context, websiteID int64, days []string, closed map[string]bool) (map[string]int64, error) {
	generation, err := column.GenerationOf(ctx, r.db, websiteID)
	if err != nil {
		return nil, fmt.Errorf("goals.pages: %w", err)
	}
	now := r.now()
	out := map[string]int64{}
	var read []string
	for _, day := range days {
		if pageviews, ok := r.kept.Get(websiteDay{websiteID, generation, day}, now); ok && closed[day] {
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
			r.kept.Put(websiteDay{websiteID, generation, day}, perDay[day], now)
		}
	}
	return out, nil
}

// dayPageviews reads the distinct pages of a website's rows of the days, with their pageviews,
// per day.
func (r *Reader) dayPageviews(ctx context.Context, websiteID int64, days []string) (map[string]map[string]int64, error) {
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
