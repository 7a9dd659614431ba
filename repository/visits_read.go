package repository

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// The counters' reads of docs/visits.md: the summary of a range and its time series (the
// realtime numbers and a range's notes are package counters', live_read.go). The API, the
// pages and the reports all call these; the derived numbers are stats.Totals'.

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
