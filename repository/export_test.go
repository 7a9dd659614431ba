package repository

import (
	"context"
	"time"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/stats"

	"github.com/analytics-service/analytics/repository/closed"
	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/repository/pgsettings"
)

// SplitRange and RangePart expose counters.Split to the external tests: weeks and months are the
// last week (its Monday) and month (its 1st) rolled up.
type RangePart struct {
	Table    string
	From, To time.Time
}

func SplitRange(from, to, weeks, months time.Time) []RangePart {
	var out []RangePart
	for _, s := range counters.Split(from, to, RolledUp{Weeks: weeks, Months: months}) {
		out = append(out, RangePart{Table: s.Table, From: s.From, To: s.To})
	}
	return out
}

var WithSessionSettings = pgsettings.WithSession

// VisitRowChunk is the most rows one statement of AddVisitBatch writes.
const VisitRowChunk = counters.VisitRowChunk

// ColumnThrough is the last day of q's range that the column store answers, zero for none.
func ColumnThrough(ctx context.Context, r *Repository, site int64, q *query.Query) time.Time {
	b, err := r.newBuild(ctx, site, q, stats.FixedZone(time.UTC))
	if err != nil {
		panic(err)
	}
	return b.columnThrough
}

// TotalsColumnThrough is the last day of v1's filtered summary over days that the column
// store answers, zero for none.
func TotalsColumnThrough(ctx context.Context, r *Repository, site int64, days stats.Range, filters stats.Filters) time.Time {
	b, _, err := r.rows(site, days, filters).totalsBuild(ctx, query.NoTime, totalsMetrics)
	if err != nil {
		panic(err)
	}
	if b == nil {
		return time.Time{}
	}
	return b.columnThrough
}

// ListColumnThrough is the last day of v1's filtered lists over days that the column store
// answers, zero for none.
func ListColumnThrough(ctx context.Context, r *Repository, site int64, days stats.Range, filters stats.Filters) time.Time {
	through, _, err := r.rows(site, days, filters).columnCounts(ctx, []stats.Name{stats.Country})
	if err != nil {
		panic(err)
	}
	return through
}

// LastClosed is the last closed day of a website whose today is today (package closed).
func LastClosed(ctx context.Context, r *Repository, today time.Time) (time.Time, error) {
	return r.closing.Last(ctx, today)
}

const (
	OpenReportsTTL = closed.ReportsTTL
	NodeLost       = closed.NodeLost
)

// RowConversions are v1's goal numbers as the visit rows' own statements count them
// (countGoals), scaled, by goal id, and the visitors they divide by: what the goals list of
// the query engine (engineGoalCounts) answers a filtered or sampled read with.
func RowConversions(ctx context.Context, r *Repository, site int64, days stats.Range, filters stats.Filters, goals []stats.Goal) (map[int64][2]int64, int64, error) {
	counts, fraction, err := r.rows(site, days, filters).countGoals(ctx, goals, nil, nil)
	if err != nil {
		return nil, 0, err
	}
	out := map[int64][2]int64{}
	for i, g := range goals {
		out[g.ID] = [2]int64{scale(counts.visitors[i], fraction), scale(counts.events[i], fraction)}
	}
	return out, scale(counts.base, fraction), nil
}

// ExactRowReader is RowReader never sampled, whatever the range: what a sample's lists are
// held against.
func ExactRowReader(r *Repository, site int64, days stats.Range, filters stats.Filters) Reader {
	v := r.rows(site, days, filters)
	v.fixed = 1
	return aliasReader{v}
}
