package counters

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/store"
	"github.com/analytics-service/analytics/stats"
)

// The reads of what the collector keeps beside the counters (docs/visits.md): the realtime
// numbers, and what a range's numbers mean (changeover, imported days, resets). They run on
// the stats reads' pool (UseReads) when the repository has one.

// UseReads makes the reads of this file run on pool (the service's stats reads' pool).
func (r *Repository) UseReads(pool *sqlx.DB) { r.readPool = pool }

func (r *Repository) reads() *sqlx.DB {
	if r.readPool != nil {
		return r.readPool
	}
	return r.db
}

// RealtimeVisitorsTTL is how long a node's count of current visitors holds after its last
// flush. The realtime view looks RealtimeWindow back and lists RealtimeRecentMax pageviews.
const RealtimeVisitorsTTL = 10 * time.Second

// Realtime is the realtime view of a website (docs/visits.md).
type Realtime struct {
	Visitors  int64
	Pageviews []int64 // one a minute, oldest first, the current minute last: 30 of them
	Recent    []RecentPageview
}

// CurrentVisitors is the sum of every node's count of visitors with a hit in the last 5
// minutes, of the nodes that flushed within RealtimeVisitorsTTL of now (the repository's clock).
func (r *Repository) CurrentVisitors(ctx context.Context, websiteID int64) (int64, error) {
	const query = `
		SELECT coalesce(sum(visitors), 0)::bigint
		FROM realtime_visitors
		WHERE website_id = $1 AND flushed_at > $2`
	var n int64
	if err := r.reads().GetContext(ctx, &n, query, websiteID, r.now().Add(-RealtimeVisitorsTTL)); err != nil {
		return 0, fmt.Errorf("stats.current_visitors: %w", err)
	}
	return n, nil
}

// Minute is one minute of a website (RealtimeMinute, as read).
type Minute struct {
	Start                       time.Time
	Visitors, Visits, Pageviews int64
}

// Minutes reads a website's minutes from from to to (excluded), both whole minutes: one a
// minute, empty ones included, oldest first. Minutes older than MinutesKept are gone: the
// caller refuses a range that reaches them.
func (r *Repository) Minutes(ctx context.Context, websiteID int64, from, to time.Time) ([]Minute, error) {
	from, to = from.Truncate(time.Minute), to.Truncate(time.Minute)
	out := make([]Minute, max(0, int(to.Sub(from)/time.Minute)))
	for i := range out {
		out[i].Start = from.Add(time.Duration(i) * time.Minute)
	}
	var rows []struct {
		Minute                      time.Time `db:"minute"`
		Visitors, Visits, Pageviews int64     // sqlx's names: lower case
	}
	const query = `
		SELECT minute, visitors, visits, pageviews FROM realtime_minutes
		WHERE website_id = $1 AND minute >= $2 AND minute < $3`
	if err := r.reads().SelectContext(ctx, &rows, query, websiteID, from, to); err != nil {
		return nil, fmt.Errorf("stats.minutes: %w", err)
	}
	for _, m := range rows {
		if i := int(m.Minute.Sub(from) / time.Minute); i >= 0 && i < len(out) {
			out[i].Visitors, out[i].Visits, out[i].Pageviews = m.Visitors, m.Visits, m.Pageviews
		}
	}
	return out, nil
}

// Realtime reads the realtime view at the repository's clock: current visitors, pageviews per
// minute of the last 30 minutes, and, when recent is true (the owner), the last pageviews of
// those minutes, newest first. Rows older than the window that the expiry job has not deleted
// yet are not read.
func (r *Repository) Realtime(ctx context.Context, websiteID int64, recent bool) (Realtime, error) {
	now := r.now()
	visitors, err := r.CurrentVisitors(ctx, websiteID)
	if err != nil {
		return Realtime{}, err
	}
	current := now.Truncate(time.Minute)
	minutes, err := r.Minutes(ctx, websiteID, current.Add(-RealtimeWindow+time.Minute), current.Add(time.Minute))
	if err != nil {
		return Realtime{}, fmt.Errorf("stats.realtime: %w", err)
	}
	out := Realtime{Visitors: visitors, Pageviews: make([]int64, len(minutes))}
	for i, m := range minutes {
		out.Pageviews[i] = m.Pageviews
	}
	out.Recent = []RecentPageview{}
	if !recent {
		return out, nil
	}
	const recentQuery = `
		SELECT page, referrer, country, browser, device, at FROM realtime_recent
		WHERE website_id = $1 AND at > $2 AND at <= $3
		ORDER BY at DESC, id DESC
		LIMIT $4`
	if err := r.reads().SelectContext(ctx, &out.Recent, recentQuery, websiteID, now.Add(-RealtimeWindow), now, RealtimeRecentMax); err != nil {
		return Realtime{}, fmt.Errorf("stats.realtime: recent: %w", err)
	}
	for i := range out.Recent {
		out.Recent[i].SecondsAgo = int64(now.Sub(out.Recent[i].At) / time.Second)
	}
	return out, nil
}

// RangeNotes is what a reader of a range's numbers must know beside them.
type RangeNotes struct {
	// VisitsFrom is the website's first day counted by visits (websites.visits_from): before
	// it, visitor and every visit-level statistic counted pageviews from another site.
	VisitsFrom time.Time
	// CountedBefore: a day of the range before VisitsFrom holds counts, counted that old way.
	// A website added on VisitsFrom (its first day) has no such day, whatever the range.
	CountedBefore bool
	// SourcesFrom is the website's first day counted with source, channel and the UTM tags
	// but campaign (websites.sources_from); SourcesLacking: a day of the range before it holds
	// counts, which lack them (unless imported).
	SourcesFrom    time.Time
	SourcesLacking bool
	// ImportedDays is how many days of the range were imported (imported_days), and Sources
	// from where ("phpanalytics", "plausible"), sorted.
	ImportedDays int64
	Sources      []string
	// Resets are the ranges of the website's stats its owner deleted that overlap the range,
	// oldest first (docs/retention.md).
	Resets []stats.Reset
}

// CountedBefore tells whether a day of the range before day holds counts (pageviews): whether
// a note that some numbers start on day speaks of days that had any. A website added on day,
// or later, has no such day, whatever the range.
func (r *Repository) CountedBefore(ctx context.Context, websiteID int64, days stats.Range, day time.Time) (bool, error) {
	const query = `
		SELECT EXISTS (SELECT 1 FROM stats WHERE website_id = $1 AND name = 'pageview'
			AND date BETWEEN $2 AND $3 AND date < $4)`
	var counted bool
	err := r.reads().GetContext(ctx, &counted, query, websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout), day.Format(dateLayout))
	if err != nil {
		return false, fmt.Errorf("stats.counted_before: %w", err)
	}
	return counted, nil
}

// Notes reads the notes of a website's range.
func (r *Repository) Notes(ctx context.Context, websiteID int64, days stats.Range) (RangeNotes, error) {
	const query = `
		SELECT w.visits_from, w.sources_from,
			EXISTS (SELECT 1 FROM stats s WHERE s.website_id = w.id AND s.name = 'pageview'
				AND s.date BETWEEN $2 AND $3 AND s.date < w.visits_from) AS counted_before,
			EXISTS (SELECT 1 FROM stats s WHERE s.website_id = w.id AND s.name = 'pageview'
				AND s.date BETWEEN $2 AND $3 AND s.date < w.sources_from) AS sources_lacking,
			(SELECT count(*) FROM imported_days i WHERE i.website_id = w.id AND i.day BETWEEN $2 AND $3) AS imported,
			(SELECT coalesce(array_agg(DISTINCT i.source ORDER BY i.source), '{}') FROM imported_days i
				WHERE i.website_id = w.id AND i.day BETWEEN $2 AND $3) AS sources
		FROM websites w WHERE w.id = $1`
	var row struct {
		VisitsFrom     time.Time      `db:"visits_from"`
		SourcesFrom    time.Time      `db:"sources_from"`
		CountedBefore  bool           `db:"counted_before"`
		SourcesLacking bool           `db:"sources_lacking"`
		Imported       int64          `db:"imported"`
		Sources        pq.StringArray `db:"sources"`
	}
	err := r.reads().GetContext(ctx, &row, query, websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout))
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return RangeNotes{}, fmt.Errorf("stats.notes: %w", err)
	}
	notes := RangeNotes{VisitsFrom: stats.Day(row.VisitsFrom), CountedBefore: row.CountedBefore, SourcesFrom: stats.Day(row.SourcesFrom),
		SourcesLacking: row.SourcesLacking, ImportedDays: row.Imported, Sources: row.Sources}
	resets, err := r.StatsResets(ctx, websiteID, days)
	if err != nil {
		return RangeNotes{}, fmt.Errorf("stats.notes: %w", err)
	}
	for _, reset := range resets {
		notes.Resets = append(notes.Resets, stats.Reset{From: reset.From, To: reset.To, At: reset.ResetAt})
	}
	return notes, nil
}
