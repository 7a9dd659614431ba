package counters

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// The limits of a website's custom properties a day (docs/properties.md): at most
// stats.MaxPropKeysPerDay keys, maxValues (MAX_VALUES_PER_DAY) values a key and
// stats.PropValuesPerDay times as many for all its keys together. The flush
// keeps them as it writes the visit rows: property_keys holds a day's keys with how many values
// each has, property_values the values, so that a pair seen before is known by one probe.
// Writers that flush at once each see the counts before the others commit and may together
// pass a limit by the new pairs of their batches, as the counters' limit may.

// propTuple is one property pair of a website's day.
type propTuple struct {
	websiteID  int64
	day        string // YYYY-MM-DD
	key, value string
}

// propNotes are the distinct property pairs of a chunk of visit rows.
type propNotes map[propTuple]struct{}

// note adds a row's pairs.
func (n propNotes) note(r *VisitRow, day string) {
	for _, pair := range r.Props {
		key, value := stats.SplitPropPair(pair)
		n[propTuple{r.WebsiteID, day, key, value}] = struct{}{}
	}
}

// propCap is what capProps decided: the pairs to write as another (the key or the value
// past its limit as stats.Other), and how many pairs it replaced.
type propCap struct {
	replace map[propTuple]string
	over    int64
}

// pair is the element a row writes for the pair of websiteID's day.
func (c *propCap) pair(websiteID int64, day, pair string) string {
	if len(c.replace) == 0 {
		return pair
	}
	key, value := stats.SplitPropPair(pair)
	if p, ok := c.replace[propTuple{websiteID, day, key, value}]; ok {
		return p
	}
	return pair
}

// capProps decides, for a chunk's new pairs, which are kept and which become stats.Other, and
// records the kept ones, in tx. Pairs already recorded are kept; new ones are taken in order
// of key and value (so that a replay decides the same) while their day has room.
func capProps(ctx context.Context, tx *sqlx.Tx, notes propNotes, maxValues int) (propCap, error) {
	if len(notes) == 0 {
		return propCap{}, nil
	}
	fresh, err := newPairs(ctx, tx, notes)
	if err != nil {
		return propCap{}, err
	}
	if len(fresh) == 0 {
		return propCap{}, nil
	}
	keys, err := dayKeys(ctx, tx, fresh)
	if err != nil {
		return propCap{}, err
	}
	dayValues := int64(stats.PropValuesPerDay) * int64(max(maxValues, stats.MaxPropKeysPerDay))
	decided := propCap{replace: map[propTuple]string{}}
	var values []propTuple
	grown := map[propTuple]int64{} // by key (value ""): the new values each key gains
	for _, t := range fresh {
		k := propTuple{websiteID: t.websiteID, day: t.day, key: t.key}
		dk := propTuple{websiteID: t.websiteID, day: t.day}
		count, known := keys[k]
		switch {
		case t.key == stats.Other:
			if t.value != stats.Other {
				decided.replace[t] = stats.PropPair(stats.Other, stats.Other)
			}
			continue
		case !known && keys[dk] >= stats.MaxPropKeysPerDay:
			decided.replace[t] = stats.PropPair(stats.Other, stats.Other)
			decided.over++
			continue
		case !known:
			keys[dk]++
			keys[k] = 0
			grown[k] += 0
		}
		total := propTuple{websiteID: t.websiteID, day: t.day, value: dayTotal}
		switch {
		case t.value == stats.Other:
		case count >= int64(maxValues), keys[total] >= dayValues:
			decided.replace[t] = stats.PropPair(t.key, stats.Other)
			decided.over++
		default:
			keys[k]++
			keys[total]++
			grown[k]++
			values = append(values, t)
		}
	}
	return decided, recordPairs(ctx, tx, values, grown)
}

// sortedTuples are ts in key order, the order every writer takes their rows' locks in.
func sortedTuples(ts []propTuple) []propTuple {
	slices.SortFunc(ts, func(a, b propTuple) int {
		return cmp.Or(cmp.Compare(a.websiteID, b.websiteID), cmp.Compare(a.day, b.day),
			cmp.Compare(a.key, b.key), cmp.Compare(a.value, b.value))
	})
	return ts
}

// tupleArrays are ts as the four arrays of an unnest.
func tupleArrays(ts []propTuple) []any {
	ids, days, keys, values := make([]int64, len(ts)), make([]string, len(ts)), make([]string, len(ts)), make([]string, len(ts))
	for i, t := range ts {
		ids[i], days[i], keys[i], values[i] = t.websiteID, t.day, t.key, t.value
	}
	return []any{pq.Array(ids), pq.Array(days), pq.Array(keys), pq.Array(values)}
}

// newPairs are the noted pairs not recorded yet, in key order.
func newPairs(ctx context.Context, tx *sqlx.Tx, notes propNotes) ([]propTuple, error) {
	all := make([]propTuple, 0, len(notes))
	for t := range notes {
		all = append(all, t)
	}
	all = sortedTuples(all)
	var known []int64
	const query = `
		SELECT t.i FROM unnest($1::bigint[], $2::date[], $3::text[], $4::text[]) WITH ORDINALITY AS t (website_id, day, key, value, i)
		WHERE EXISTS (SELECT 1 FROM property_values p
			WHERE p.website_id = t.website_id AND p.day = t.day AND p.key = t.key AND p.value = t.value)`
	if err := tx.SelectContext(ctx, &known, query, tupleArrays(all)...); err != nil {
		return nil, fmt.Errorf("visits.add: property values: %w", err)
	}
	fresh := all[:0:0]
	next := 0
	slices.Sort(known)
	for i, t := range all {
		if next < len(known) && known[next] == int64(i+1) {
			next++
			continue
		}
		fresh = append(fresh, t)
	}
	return fresh, nil
}

// dayTotal is the value of dayKeys' entry of a day's values of all keys (key ""; a value is
// never "" with the key "", which holds no value).
const dayTotal = "\x00all"

// dayKeys are the recorded keys of the days of ts with their value counts (by key, value ""),
// each day's number of keys (key and value "") and its number of values (key "", value
// dayTotal).
func dayKeys(ctx context.Context, tx *sqlx.Tx, ts []propTuple) (map[propTuple]int64, error) {
	var rows []struct {
		WebsiteID int64     `db:"website_id"`
		Day       time.Time `db:"day"`
		Key       string    `db:"key"`
		Count     int64     `db:"value_count"`
	}
	const query = `
		SELECT k.website_id, k.day, k.key, k.value_count::bigint AS value_count
		FROM property_keys k
		JOIN (SELECT DISTINCT website_id, day FROM unnest($1::bigint[], $2::date[]) AS d (website_id, day)) AS d
			USING (website_id, day)`
	if err := tx.SelectContext(ctx, &rows, query, tupleArrays(ts)[:2]...); err != nil {
		return nil, fmt.Errorf("visits.add: property keys: %w", err)
	}
	out := make(map[propTuple]int64, len(rows)+1)
	for _, r := range rows {
		day := r.Day.Format(dateLayout)
		out[propTuple{websiteID: r.WebsiteID, day: day, key: r.Key}] = r.Count
		out[propTuple{websiteID: r.WebsiteID, day: day}]++
		out[propTuple{websiteID: r.WebsiteID, day: day, value: dayTotal}] += r.Count
	}
	return out, nil
}

// recordPairs records new values and the keys they grow, in key order, for websites that still
// exist and days that have visit rows (the rest is deleted with them, or never read).
func recordPairs(ctx context.Context, tx *sqlx.Tx, values []propTuple, grown map[propTuple]int64) error {
	const live = `t.website_id IN (SELECT id FROM websites) AND t.day IN (SELECT day FROM visit_row_partitions)`
	if len(grown) > 0 {
		keys := make([]propTuple, 0, len(grown))
		for k := range grown {
			keys = append(keys, k)
		}
		keys = sortedTuples(keys)
		counts := make([]int64, len(keys))
		for i, k := range keys {
			counts[i] = grown[k]
		}
		args := append(tupleArrays(keys)[:3], pq.Array(counts))
		_, err := tx.ExecContext(ctx, `
			INSERT INTO property_keys AS k (website_id, day, key, value_count)
			SELECT t.website_id, t.day, t.key, t.n
			FROM unnest($1::bigint[], $2::date[], $3::text[], $4::bigint[]) AS t (website_id, day, key, n)
			WHERE `+live+`
			ORDER BY 1, 2, 3
			ON CONFLICT (website_id, day, key) DO UPDATE SET value_count = k.value_count + EXCLUDED.value_count`, args...)
		if err != nil {
			return fmt.Errorf("visits.add: property keys: %w", err)
		}
	}
	if len(values) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO property_values (website_id, day, key, value)
		SELECT t.website_id, t.day, t.key, t.value
		FROM unnest($1::bigint[], $2::date[], $3::text[], $4::text[]) AS t (website_id, day, key, value)
		WHERE `+live+`
		ORDER BY 1, 2, 3, 4
		ON CONFLICT DO NOTHING`, tupleArrays(values)...)
	if err != nil {
		return fmt.Errorf("visits.add: property values: %w", err)
	}
	return nil
}
