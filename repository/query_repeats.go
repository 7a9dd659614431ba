package repository

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Counting visitors needs the visitor-days of several visits of the whole range
// (repeatedVisitorDays): a month of a website of 100,000 visits a day is 3 M rows to group,
// about a second of every such query (docs/big-sites.md). A closed day's (package closed) never
// change, so visit_row_repeats keeps them, written by the first query that needs them as
// visit_row_values keeps a day's values; the days after it are grouped from the rows. The kept
// ones are a whole day's, before the range's hours and the sample: a visitor-day kept as one of
// several visits but read with one is still counted once (its visits are grouped by visitor),
// so the answer is the same.

// keepRepeats makes visit_row_repeats keep the closed days of the query's range, before its
// statement's transaction (a fill takes a connection of its own), when the query counts
// visitors as readRepeats does; b.keptThrough is then the last of them.
func (b *queryBuild) keepRepeats(ctx context.Context) error {
	// A sampled read groups only its sample's rows, a fraction of the days' it would keep.
	if !b.needsVisitors() || b.groupVisitors || b.fraction < 1 {
		return nil
	}
	rg := b.q.Range
	closed, err := b.lastClosedDay(ctx)
	if err != nil {
		return err
	}
	if rg.From.After(closed) {
		return nil
	}
	last := rg.To
	if last.After(closed) {
		last = closed
	}
	fill := `INSERT INTO visit_row_repeats (website_id, day, visitors)
		SELECT $1, p.day, ARRAY(SELECT visitor FROM visit_rows WHERE website_id = $1 AND day = p.day
			GROUP BY visitor HAVING count(*) > 1 ORDER BY visitor)
		FROM visit_row_partitions AS p
		WHERE p.day BETWEEN $2 AND $3 AND NOT EXISTS (
			SELECT FROM visit_row_repeats AS k WHERE k.website_id = $1 AND k.day = p.day)
		ORDER BY p.day LIMIT $4
		ON CONFLICT (website_id, day) DO NOTHING`
	for {
		// A day two queries (or two nodes) fill at once is written once: its rows are the same.
		res, err := b.repo.reads.ExecContext(ctx, fill, b.websiteID, rg.From.Format(dateLayout), last.Format(dateLayout), repeatFillDays)
		if err != nil {
			return fmt.Errorf("keep repeated visitors: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n < repeatFillDays {
			break
		}
	}
	// The days whose rows are gone (FACTS_RETENTION) go too.
	const gone = `DELETE FROM visit_row_repeats
		WHERE website_id = $1 AND day < (SELECT min(day) FROM visit_row_partitions)`
	if _, err := b.repo.reads.ExecContext(ctx, gone, b.websiteID); err != nil {
		return fmt.Errorf("drop repeated visitors: %w", err)
	}
	b.keptThrough = last
	return nil
}

// repeatFillDays is how many closed days one statement of keepRepeats fills: a week of a
// website of 100,000 visits a day is 700,000 rows to group, and a first query stopped (its time
// is up, its client left) keeps the weeks it filled for the next one.
const repeatFillDays = 7

// rangeRepeats are the range's visitor-days of several visits as repeatKey numbers: those
// visit_row_repeats keeps through b.keptThrough, and the later days' from the rows.
func (b *queryBuild) rangeRepeats(ctx context.Context, tx *sqlx.Tx) ([]int64, error) {
	base, args := b.base, b.args[:b.baseArgs:b.baseArgs]
	if b.keptThrough.IsZero() {
		return repeatedVisitorDays(ctx, tx, base, args)
	}
	var keys []int64
	const kept = `SELECT ((day - date '2000-01-01')::int8 << 32 | (v::int8 & 4294967295))
		FROM visit_row_repeats CROSS JOIN LATERAL unnest(visitors) AS v
		WHERE website_id = $1 AND day BETWEEN $2 AND $3`
	if err := tx.SelectContext(ctx, &keys, kept, b.websiteID, b.q.Range.From.Format(dateLayout), b.keptThrough.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("kept repeated visitors: %w", err)
	}
	if !b.q.Range.To.After(b.keptThrough) {
		return keys, nil
	}
	after := fmt.Sprintf(" AND day > $%d", len(args)+1)
	open, err := repeatedVisitorDays(ctx, tx, base+after, append(args, b.keptThrough.Format(dateLayout)))
	if err != nil {
		return nil, err
	}
	return append(keys, open...), nil
}

// keptRepeatRows is rep's SELECT (withRepeats) past maxRepeats: the kept days' visitor-days
// from visit_row_repeats, the later days' grouped from the rows.
func (b *queryBuild) keptRepeatRows() string {
	kept := `SELECT day, v AS visitor FROM visit_row_repeats CROSS JOIN LATERAL unnest(visitors) AS v
		WHERE website_id = ` + b.arg(b.websiteID) + ` AND day BETWEEN ` + b.arg(b.q.Range.From.Format(dateLayout)) +
		` AND ` + b.arg(b.keptThrough.Format(dateLayout))
	return kept + ` UNION ALL SELECT day, visitor FROM visit_rows WHERE ` + b.base + ` AND day > ` +
		b.arg(b.keptThrough.Format(dateLayout)) + ` GROUP BY day, visitor HAVING count(*) > 1`
}
