package repository

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// The reads of docs/visits.md: the summary of a range, its time series, the realtime
// numbers, and what a range's numbers mean (changeover, imported days). The API, the pages and
// the reports all call these; the derived numbers are stats.Totals'.

// summaryNames are the daily counters a range's totals sum.
var summaryNames = []stats.Name{
	stats.Visitor, stats.Visit, stats.Pageview, stats.Event, stats.Bounce, stats.VisitSeconds, stats.TimedVisit,
}

// Totals sums the counters over the range (rollups included, as List).
func (c counterReader) Totals(ctx context.Context) (stats.Totals, error) {
	sums, err := c.repo.SumStats(ctx, c.websiteID, summaryNames, c.days)
	if err != nil {
		return stats.Totals{}, fmt.Errorf("stats.summary: %w", err)
	}
	return totalsOf(sums, dailyNames), nil
}

// counterNames says which counter feeds each field of stats.Totals.
type counterNames struct {
	visitor, visit, pageview, event, bounce, seconds, timed stats.Name
}

var (
	dailyNames = counterNames{stats.Visitor, stats.Visit, stats.Pageview, stats.Event, stats.Bounce, stats.VisitSeconds, stats.TimedVisit}
	// A time series has no events but EventsReader's: the daily counters without event, whose
	// values are many.
	seriesNames = counterNames{stats.Visitor, stats.Visit, stats.Pageview, "", stats.Bounce, stats.VisitSeconds, stats.TimedVisit}
	// An hour's visits are all timed: hourly counters exist only for collected visits. There is
	// no hourly event counter: a series of hours has no events (the visit rows have them).
	hourNames = counterNames{stats.VisitorHour, stats.VisitHour, stats.PageviewHour, "", stats.BounceHour, stats.VisitSecondsHour, stats.VisitHour}
)

func (c counterNames) list() []stats.Name {
	var out []stats.Name
	for _, n := range []stats.Name{c.visitor, c.visit, c.pageview, c.event, c.bounce, c.seconds, c.timed} {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func totalsOf(sums map[stats.Name]int64, c counterNames) stats.Totals {
	get := func(n stats.Name) int64 {
		if n == "" {
			return 0
		}
		return sums[n]
	}
	return stats.Totals{
		Visitors: get(c.visitor), Visits: get(c.visit), Pageviews: get(c.pageview), Events: get(c.event),
		Bounces: get(c.bounce), VisitSeconds: get(c.seconds), TimedVisits: get(c.timed),
	}
}

// Bucket is one entry of a time series: its start (an instant for hours, a day otherwise)
// and its totals.
type Bucket struct {
	Start  time.Time
	Totals stats.Totals
}

// Series reads hours from the hourly counters of each day, days and months from the daily
// counters, a month being the sum of its days in the range.
func (c counterReader) Series(ctx context.Context, interval stats.Interval, zone stats.Zone) ([]Bucket, error) {
	days := c.days
	names := seriesNames
	switch {
	case interval == stats.Hour:
		names = hourNames
	case c.events:
		names = dailyNames
	}
	// Daily counters hold one value a day (the day), hourly ones one an hour ("00".."23"): at
	// most 6 x 3,660 or 5 x 31 x 24 rows, read off the primary key's order. The event counter
	// holds one value an event name and property a day: summed to one a day, as Totals sums it.
	const query = `
		SELECT name, date, CASE WHEN name = $5 THEN '' ELSE value END AS value, sum(count)::bigint AS count
		FROM stats
		WHERE website_id = $1 AND name = ANY($2) AND date BETWEEN $3 AND $4
		GROUP BY name, date, 3`
	var rows []struct {
		Name  stats.Name `db:"name"`
		Date  time.Time  `db:"date"`
		Value string     `db:"value"`
		Count int64      `db:"count"`
	}
	if err := c.repo.reads.SelectContext(ctx, &rows, query, c.websiteID, nameArray(names.list()),
		days.From.Format(dateLayout), days.To.Format(dateLayout), stats.Event); err != nil {
		return nil, fmt.Errorf("stats.timeseries: %w", err)
	}
	sums := map[string]map[stats.Name]int64{} // by bucket key
	for _, row := range rows {
		key := bucketKey(interval, stats.Day(row.Date), row.Value)
		if sums[key] == nil {
			sums[key] = map[stats.Name]int64{}
		}
		sums[key][row.Name] += row.Count
	}
	starts := interval.ZoneBuckets(days, zone)
	out := make([]Bucket, len(starts))
	for i, start := range starts {
		out[i] = Bucket{Start: start.Start, Totals: totalsOf(sums[startKey(interval, start)], names)}
	}
	return out, nil
}

// bucketKey names the bucket a counter row falls in; startKey names a bucket by its start.
func bucketKey(interval stats.Interval, day time.Time, value string) string {
	switch interval {
	case stats.Hour:
		return stats.DayValue(day) + " " + value
	case stats.Week:
		return stats.DayValue(stats.WeekStart(day))
	case stats.Month:
		return day.Format("2006-01")
	}
	return stats.DayValue(day)
}

func startKey(interval stats.Interval, start stats.BucketStart) string {
	return bucketKey(interval, start.Day, stats.HourValue(start.Hour))
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
	if err := r.reads.GetContext(ctx, &n, query, websiteID, r.now().Add(-RealtimeVisitorsTTL)); err != nil {
		return 0, fmt.Errorf("stats.current_visitors: %w", err)
	}
	return n, nil
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
	out := Realtime{Visitors: visitors, Pageviews: make([]int64, RealtimeWindow/time.Minute)}
	current := now.Truncate(time.Minute)
	first := current.Add(-RealtimeWindow + time.Minute)
	var minutes []struct {
		Minute    time.Time `db:"minute"`
		Pageviews int64     `db:"pageviews"`
	}
	const minutesQuery = `
		SELECT minute, pageviews FROM realtime_minutes
		WHERE website_id = $1 AND minute BETWEEN $2 AND $3`
	if err := r.reads.SelectContext(ctx, &minutes, minutesQuery, websiteID, first, current); err != nil {
		return Realtime{}, fmt.Errorf("stats.realtime: minutes: %w", err)
	}
	for _, m := range minutes {
		i := int(m.Minute.Sub(first) / time.Minute)
		if i >= 0 && i < len(out.Pageviews) {
			out.Pageviews[i] += m.Pageviews
		}
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
	if err := r.reads.SelectContext(ctx, &out.Recent, recentQuery, websiteID, now.Add(-RealtimeWindow), now, RealtimeRecentMax); err != nil {
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
	err := r.reads.GetContext(ctx, &counted, query, websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout), day.Format(dateLayout))
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
	err := r.reads.GetContext(ctx, &row, query, websiteID, days.From.Format(dateLayout), days.To.Format(dateLayout))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
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
