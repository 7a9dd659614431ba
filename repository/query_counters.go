package repository

import (
	"cmp"
	"context"
	"math/big"
	"slices"
	"strings"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"
)

// A query that needs no visit row - no filter, whole days, no dimension but time by hour, day
// or month, no percentage - is answered from the daily counters (Reader without filters),
// which count every visit, imported days and days before the visit rows included, and read a
// month in milliseconds where the rows take a scan of every visit.

// counterQuery tells whether the counters can answer q, and with which interval.
func counterQuery(q *query.Query) (stats.Interval, bool) {
	// Revenue has no counters: only the visit rows hold it.
	if len(q.Filters) > 0 || !q.Range.WholeDays() || slices.Contains(q.Metrics, query.Percentage) || q.HasRevenue() {
		return "", false
	}
	switch len(q.Dimensions) {
	case 0:
		return "", true
	case 1:
		interval := map[query.TimeUnit]stats.Interval{query.Hour: stats.Hour, query.DayUnit: stats.Daily, query.Month: stats.Month}[q.TimeUnit()]
		if interval == "" {
			return "", false
		}
		ok, _ := interval.Allows(q.Range.Days())
		return interval, ok
	}
	return "", false
}

// counterAnswer answers q from the counters: one row, or one a bucket with a visit or a
// pageview, in the query's order and page.
func (r *Repository) counterAnswer(ctx context.Context, websiteID int64, q *query.Query, interval stats.Interval, zone stats.Zone) (QueryAnswer, error) {
	reader := r.Reader(websiteID, q.Range.Days(), nil)
	if interval == "" {
		t, err := reader.Totals(ctx)
		if err != nil {
			return QueryAnswer{}, err
		}
		return pageOf(q, []QueryRow{{Dimensions: []string{}, Metrics: counterMetrics(q, t)}}), nil
	}
	buckets, err := reader.Series(ctx, interval, zone)
	if err != nil {
		return QueryAnswer{}, err
	}
	var rows []QueryRow
	for _, b := range buckets {
		if b.Totals.Visits == 0 && b.Totals.Pageviews == 0 && b.Totals.Visitors == 0 {
			continue
		}
		loc := zone.At(b.Start)
		label := b.Start.In(loc).Format(dateLayout)
		switch interval {
		case stats.Hour:
			label = b.Start.In(loc).Format("2006-01-02 15:00:00")
		case stats.Month:
			label = b.Start.In(loc).Format("2006-01") + "-01"
		}
		rows = append(rows, QueryRow{Dimensions: []string{label}, Metrics: counterMetrics(q, b.Totals)})
	}
	return pageOf(q, rows), nil
}

// counterMetrics are q's metrics of the counters' totals.
func counterMetrics(q *query.Query, t stats.Totals) []float64 {
	out := make([]float64, len(q.Metrics))
	for i, m := range q.Metrics {
		switch m {
		case query.Visitors:
			out[i] = float64(t.Visitors)
		case query.Visits:
			out[i] = float64(t.Visits)
		case query.Pageviews:
			out[i] = float64(t.Pageviews)
		case query.Events: // Plausible's: pageviews and custom events
			out[i] = float64(t.Pageviews + t.Events)
		case query.BounceRate:
			out[i] = t.BounceRate()
		case query.VisitDuration:
			out[i] = float64(t.VisitDuration())
		case query.ViewsPerVisit:
			out[i] = t.ViewsPerVisit()
		}
	}
	return out
}

// pageOf orders rows as q asks (then by the dimensions, ascending) and cuts q's page.
func pageOf(q *query.Query, rows []QueryRow) QueryAnswer {
	sortRows(q, rows)
	out := QueryAnswer{TotalRows: int64(len(rows)), Basis: Basis{Fraction: 1}, FromCounters: true}
	out.Rows = cutPage(q, rows)
	return out
}

// sortRows orders rows as q asks, then by the dimensions ascending, as the statements do.
func sortRows(q *query.Query, rows []QueryRow) {
	slices.SortStableFunc(rows, func(a, b QueryRow) int {
		for _, o := range q.OrderBy {
			var c int
			switch {
			case o.Metric >= 0 && q.Metrics[o.Metric].IsRevenue():
				c = cmpRevenue(a.Revenue[o.Metric], b.Revenue[o.Metric])
			case o.Metric >= 0:
				c = cmp.Compare(a.Metrics[o.Metric], b.Metrics[o.Metric])
			default:
				c = strings.Compare(a.Dimensions[o.Dimension], b.Dimensions[o.Dimension])
			}
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return slices.Compare(a.Dimensions, b.Dimensions)
	})
}

// cutPage is q's page of rows in order.
func cutPage(q *query.Query, rows []QueryRow) []QueryRow {
	from := min(q.Offset, len(rows))
	return rows[from:min(from+q.Limit, len(rows))]
}

// cmpRevenue compares two revenue amounts (exact decimals) by value; none is the least.
func cmpRevenue(a, b *RevenueAmount) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	x, okx := new(big.Rat).SetString(a.Amount)
	y, oky := new(big.Rat).SetString(b.Amount)
	if !okx || !oky {
		return strings.Compare(a.Amount, b.Amount)
	}
	return x.Cmp(y)
}
