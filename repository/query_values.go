package repository

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/query"
)

// A matches filter needs the distinct values of its column over the range. A day no flush
// writes any more (a closed day, repository/closed) keeps its values in visit_row_values, written
// by the first query that needs them; the days after it are read from the rows. A month of
// pages is then 30 short rows rather than every pageview of the month.

// readValues reads the distinct values of the field of every matches filter of the query,
// before its statement's transaction: keeping a closed day's values takes a connection of its
// own, which a transaction holding one must not wait for.
func (b *queryBuild) readValues(ctx context.Context, filters []query.Filter) error {
	for _, f := range filters {
		if f.Op == query.And || f.Op == query.Or || f.Op == query.Not {
			if err := b.readValues(ctx, f.Children); err != nil {
				return err
			}
			continue
		}
		if f.Positive() != query.Matches {
			continue
		}
		if _, ok := b.values[f.Field.Name]; ok {
			continue
		}
		values, err := b.distinctValues(ctx, f.Field)
		if err != nil {
			return err
		}
		if b.values == nil {
			b.values = map[string][]string{}
		}
		b.values[f.Field.Name] = values
	}
	return nil
}

// distinctValues are the stored values of field f over the query's range (a superset of those
// of the matching rows: the hours and the sample are not applied, which only adds values that
// match no row).
func (b *queryBuild) distinctValues(ctx context.Context, f query.Field) ([]string, error) {
	r, rg := b.repo, b.q.Range
	closed, err := b.lastClosedDay(ctx)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	if !rg.From.After(closed) {
		last := rg.To
		if last.After(closed) {
			last = closed
		}
		kept, err := r.keptValues(ctx, b.websiteID, f, rg.From, last)
		if err != nil {
			return nil, err
		}
		for _, v := range kept {
			set[v] = true
		}
	}
	if rg.To.After(closed) {
		from := rg.From
		if !from.After(closed) {
			from = closed.AddDate(0, 0, 1)
		}
		var live []string
		err := r.readRows(ctx, func(tx *sqlx.Tx) error {
			return tx.SelectContext(ctx, &live, valuesSQL(f)+` AND day BETWEEN $2 AND $3`, b.websiteID, from.Format(dateLayout), rg.To.Format(dateLayout))
		})
		if err != nil {
			return nil, fmt.Errorf("distinct values of %s: %w", f.Name, err)
		}
		for _, v := range live {
			set[v] = true
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

// lastClosedDay is the last day, in the website's time zone, that no flush writes any more
// (package closed).
func (b *queryBuild) lastClosedDay(ctx context.Context) (time.Time, error) {
	now := b.repo.now()
	loc := b.zone.At(now)
	if loc == nil {
		loc = time.UTC
	}
	return b.repo.closing.Last(ctx, dayOf(now.In(loc)))
}

// valuesSQL is the statement of the distinct stored values of a field of website $1's rows;
// the caller appends the days.
func valuesSQL(f query.Field) string {
	switch f.Level {
	case query.PageLevel, query.NameLevel, query.PropLevel:
		return "SELECT DISTINCT x.v FROM visit_rows CROSS JOIN LATERAL " + hitValues(f) + " AS x (v) WHERE website_id = $1"
	}
	c := storedColumn(f)
	return "SELECT DISTINCT " + c + " FROM visit_rows WHERE website_id = $1"
}

// keptValues are the values of f on the closed days from..to: those visit_row_values keeps,
// once it keeps those of every day of the range that has rows (days without a partition,
// before the first or past retention, have none). The days it does not keep yet are filled
// fillDays at a time, each fill a statement of its own: a first query of a long range keeps
// what it filled when it is stopped (its time is up, or its client left), and the next one
// goes on from there. The days are found in SQL from the partitions, so that a range of
// thousands of years is no list in Go.
func (r *Repository) keptValues(ctx context.Context, websiteID int64, f query.Field, from, to time.Time) ([]string, error) {
	fill := `INSERT INTO visit_row_values (website_id, name, day, vals)
		SELECT $1, $2, p.day, ARRAY(` + valuesSQL(f) + ` AND day = p.day)
		FROM visit_row_partitions AS p
		WHERE p.day BETWEEN $3 AND $4 AND NOT EXISTS (
			SELECT FROM visit_row_values AS k WHERE k.website_id = $1 AND k.name = $2 AND k.day = p.day)
		ORDER BY p.day LIMIT $5
		ON CONFLICT (website_id, name, day) DO UPDATE SET vals = EXCLUDED.vals`
	for {
		// A day two queries fill at once gets the same values twice.
		res, err := r.reads.ExecContext(ctx, fill, websiteID, f.Name, from.Format(dateLayout), to.Format(dateLayout), fillDays)
		if err != nil {
			return nil, fmt.Errorf("keep values of %s: %w", f.Name, err)
		}
		if n, err := res.RowsAffected(); err != nil || n < fillDays {
			break
		}
	}
	var out []string
	const kept = `SELECT unnest(vals) FROM visit_row_values WHERE website_id = $1 AND name = $2 AND day BETWEEN $3 AND $4`
	if err := r.reads.SelectContext(ctx, &out, kept, websiteID, f.Name, from.Format(dateLayout), to.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("kept values of %s: %w", f.Name, err)
	}
	// The values of the days whose rows are gone (FACTS_RETENTION) go too.
	const gone = `DELETE FROM visit_row_values
		WHERE website_id = $1 AND name = $2 AND day < (SELECT min(day) FROM visit_row_partitions)`
	if _, err := r.reads.ExecContext(ctx, gone, websiteID, f.Name); err != nil {
		return nil, fmt.Errorf("drop values of %s: %w", f.Name, err)
	}
	return out, nil
}

// fillDays is how many closed days one statement of keptValues fills: a month of a website
// of 10,000 visits a day is 300,000 rows to read.
const fillDays = 31

// dayOf is t's calendar day, as a UTC midnight like the range's days.
func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
