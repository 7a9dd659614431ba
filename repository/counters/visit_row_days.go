package counters

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// What one website's visit rows may take a day (docs/filters.md, "What one website may cost a
// day"): the flush counts the bytes it writes into each website's rows of a day in
// visit_row_days (migration 0045), in its transaction, and past VISIT_ROW_BYTES_PER_DAY writes
// no more of that website's rows that day. The daily counters go on counting every hit; the
// filtered numbers of the rest of that day cover the visits written until then. Nodes
// flushing at once lock a website's day in turn, so together they keep the limit.

// DefaultRowBytesPerDay is VISIT_ROW_BYTES_PER_DAY's default: some 2.5 times what the rows of
// a website with a million visits a day take (about 400 bytes a visit).
const DefaultRowBytesPerDay = 1 << 30

// rowFixedCost is what every write of a row counts besides its texts: the row's numbers, ids
// and header (a later write of a row writes a new version of it, as PostgreSQL does).
const rowFixedCost = 128

// rowWriteCost is what a write of r counts against its website's day: rowFixedCost and the
// bytes of every text it carries (its first dims values, pages, events, event names, hit
// order, properties, revenue and engagement's pages).
func rowWriteCost(r *VisitRow, dims int) int64 {
	n := rowFixedCost + len(r.Order)
	for _, v := range r.Values[:dims] {
		n += len(v)
	}
	for _, list := range [][]string{r.Pages, r.Events, r.EventNames, r.Props, r.RevenueNames, r.RevenueCurrencies, r.RevenueAmounts} {
		for _, v := range list {
			n += len(v)
		}
	}
	for _, e := range r.Engaged {
		n += len(e.Page)
	}
	return int64(n)
}

// rowDay is a website's day, as visit_row_days keys it.
type rowDay struct {
	websiteID int64
	day       string // YYYY-MM-DD
}

// chargeRowDays adds the costs of a chunk's writes (days[i], costs[i]: write i's website's day
// and cost) to their websites' days, locking each in key order, and says which writes do not
// fit their day's limit of bytes: from the first that does not, every later write of that day
// in the chunk (what a day's rows list is each visit's beginning, without gaps), none of
// which is counted. Days without a partition and websites that are gone are not counted (the
// rows' write skips them). skip is nil when every write fits.
func chargeRowDays(ctx context.Context, tx *sqlx.Tx, days []rowDay, costs []int64, limit int64) (skip []bool, skipped int, err error) {
	mine := map[rowDay]int64{}
	for i, d := range days {
		mine[d] += costs[i]
	}
	keys := make([]rowDay, 0, len(mine))
	for d := range mine {
		keys = append(keys, d)
	}
	slices.SortFunc(keys, func(a, b rowDay) int { return cmp.Or(cmp.Compare(a.websiteID, b.websiteID), cmp.Compare(a.day, b.day)) })
	ids, dates, bytes := make([]int64, len(keys)), make([]string, len(keys)), make([]int64, len(keys))
	for i, d := range keys {
		ids[i], dates[i], bytes[i] = d.websiteID, d.day, mine[d]
	}
	var totals []struct {
		WebsiteID int64  `db:"website_id"`
		Day       string `db:"day"`
		Bytes     int64  `db:"bytes"`
	}
	const charge = `
		INSERT INTO visit_row_days AS d (website_id, day, bytes)
		SELECT t.website_id, t.day, t.bytes FROM unnest($1::bigint[], $2::date[], $3::bigint[]) AS t (website_id, day, bytes)
		WHERE t.website_id IN (SELECT id FROM websites) AND t.day IN (SELECT day FROM visit_row_partitions)
		ORDER BY 1, 2
		ON CONFLICT (website_id, day) DO UPDATE SET bytes = d.bytes + EXCLUDED.bytes
		RETURNING d.website_id, to_char(d.day, 'YYYY-MM-DD') AS day, d.bytes`
	if err := tx.SelectContext(ctx, &totals, charge, pq.Array(ids), pq.Array(dates), pq.Array(bytes)); err != nil {
		return nil, 0, fmt.Errorf("visits.add: visit row days: %w", err)
	}
	room := map[rowDay]int64{} // of the days past their limit: what was left before this chunk
	for _, t := range totals {
		d := rowDay{t.WebsiteID, t.Day}
		if t.Bytes > limit {
			room[d] = limit - (t.Bytes - mine[d])
		}
	}
	if len(room) == 0 {
		return nil, 0, nil
	}
	skip = make([]bool, len(days))
	refund := map[rowDay]int64{}
	for i, d := range days {
		left, over := room[d]
		if !over {
			continue
		}
		if costs[i] > left {
			room[d] = -1 // none of the day's later writes either
			skip[i] = true
			refund[d] += costs[i]
			skipped++
			continue
		}
		room[d] = left - costs[i]
	}
	ids, dates, bytes = ids[:0], dates[:0], bytes[:0]
	for _, d := range keys {
		if n := refund[d]; n > 0 {
			ids, dates, bytes = append(ids, d.websiteID), append(dates, d.day), append(bytes, n)
		}
	}
	const give = `
		UPDATE visit_row_days AS d SET bytes = d.bytes - t.bytes
		FROM unnest($1::bigint[], $2::date[], $3::bigint[]) AS t (website_id, day, bytes)
		WHERE d.website_id = t.website_id AND d.day = t.day`
	if _, err := tx.ExecContext(ctx, give, pq.Array(ids), pq.Array(dates), pq.Array(bytes)); err != nil {
		return nil, 0, fmt.Errorf("visits.add: visit row days: %w", err)
	}
	return skip, skipped, nil
}
