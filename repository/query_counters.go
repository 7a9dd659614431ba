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

// counterAnswer answers q from the counters as planned (planQuery): one row, one a bucket
// with a visit or a pageview, or one a label of the breakdown's statistic, in the query's
// order and page.
func (r *Repository) counterAnswer(ctx context.Context, websiteID int64, q *query.Query, plan queryPlan, zone stats.Zone) (QueryAnswer, error) {
	reader := r.reader(websiteID, q.Range.Days(), needs{})
	switch {
	case plan.breakdown != nil:
		rows, err := counterBreakdown(ctx, reader, q, *plan.breakdown)
		if err != nil {
			return QueryAnswer{}, err
		}
		return pageOf(q, rows), nil
	case plan.interval == "":
		t, err := reader.Totals(ctx)
		if err != nil {
			return QueryAnswer{}, err
		}
		return pageOf(q, []QueryRow{{Dimensions: []string{}, Metrics: counterMetrics(q, t)}}), nil
	}
	interval := plan.interval
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

// counterBreakdown is a row for each label of f's statistic over the range, with its count
// (every metric of q, which planQuery checked is the count): the stored values answered as f
// answers them, those that share a label (tv and desktop are Desktop) summed.
func counterBreakdown(ctx context.Context, reader Reader, q *query.Query, f query.Field) ([]QueryRow, error) {
	name := f.Stat
	if f.Level == query.PageLevel {
		name = stats.Page
	}
	entries, _, err := reader.List(ctx, StatQuery{Name: name, SortBy: "value"})
	if err != nil {
		return nil, err
	}
	counts := map[string]float64{}
	var labels []string
	for _, e := range entries {
		label := f.Answer(e.Value)
		if _, ok := counts[label]; !ok {
			labels = append(labels, label)
		}
		counts[label] += float64(e.Count)
	}
	rows := make([]QueryRow, len(labels))
	for i, label := range labels {
		metrics := make([]float64, len(q.Metrics))
		for m := range metrics {
			metrics[m] = counts[label]
		}
		rows[i] = QueryRow{Dimensions: []string{label}, Metrics: metrics}
	}
	return rows, nil
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
