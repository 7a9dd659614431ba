package counters

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// A flush's day membership (visitor_days) goes to PostgreSQL by COPY into a temporary table of
// the session, as its visit rows do (visit_rows_copy.go: made by the first flush of a session
// and kept, emptied at every commit), and is written from there in the flush's transaction.
// The statements return the new visitors already counted, a row for each website, day and
// pattern of new bits. Sent as statement arrays and read back row by row, the 28,000 members of
// a flush of new visitors cost it more CPU than anything else in it (docs/cost-of-a-hit.md,
// "Day membership by COPY").
const (
	memberTable  = `pg_temp.visitor_days_in`
	memberCreate = `CREATE TEMP TABLE IF NOT EXISTS ` + memberTable + ` (website_id bigint, day date, key bytea,
		visited boolean, hours integer) ON COMMIT DELETE ROWS`
	memberCopy = `COPY ` + memberTable + ` (website_id, day, key, visited, hours) FROM STDIN`
	// memberInsert inserts the rows that are new, in key order, and counts their bits: every
	// one of them is new.
	memberInsert = `
		WITH fresh AS (
			INSERT INTO visitor_days (website_id, day, key, visited, hours)
			SELECT website_id, day, key, visited, hours FROM ` + memberTable + `
			ORDER BY 1, 2, 3
			ON CONFLICT (website_id, day, key) DO NOTHING
			RETURNING website_id, day, visited, hours
		)
		SELECT website_id, day, visited, hours, count(*) FROM fresh GROUP BY 1, 2, 3, 4`
	// memberLock locks, in key order, the existing rows that the batch brings a visit or an
	// hour that they lack, and counts what they gain. A new statement, so a new snapshot (read
	// committed): it sees the rows another node inserted and committed while memberInsert
	// waited on them. The lock rereads a row another node changed since that snapshot and
	// tests it again: what that node counted is not counted here. A row of this flush's
	// memberInsert holds the batch's bits already, so it gains nothing; a row that holds them
	// all is neither locked nor written (bits are only ever added).
	memberLock = `
		SELECT website_id, day, visited, hours, count(*) FROM (
			SELECT v.website_id, v.day, t.visited AND NOT v.visited AS visited, t.hours & ~v.hours AS hours
			FROM visitor_days v
			JOIN ` + memberTable + ` t USING (website_id, day, key)
			WHERE (t.visited AND NOT v.visited) OR t.hours & ~v.hours <> 0
			ORDER BY v.website_id, v.day, v.key
			FOR UPDATE OF v
		) AS gained
		GROUP BY 1, 2, 3, 4`
	// memberProbes makes the planner join visitor_days with the session's table by probes of
	// its primary key, one a member: costed for a table without statistics, a hash join
	// over all of visitor_days looked cheaper from some million rows (a day of a large
	// website), and took 0.95 s to lock 7,000 rows of 2 million where the probes took 45 ms.
	// memberPlanner puts the planner back for the rest of the flush.
	memberProbes  = `SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off`
	memberPlanner = `SET LOCAL enable_hashjoin = DEFAULT; SET LOCAL enable_mergejoin = DEFAULT`
	// memberUpdate adds what memberLock counted to the rows it locked.
	memberUpdate = `
		UPDATE visitor_days v
		SET visited = v.visited OR t.visited, hours = v.hours | t.hours
		FROM ` + memberTable + ` t
		WHERE v.website_id = t.website_id AND v.day = t.day AND v.key = t.key
			AND ((t.visited AND NOT v.visited) OR t.hours & ~v.hours <> 0)`
)

// addMembers upserts the day membership of the batch's keys and returns the visitor and
// visitor_hour counts that are new: a key not yet visited on its day adds one visitor, and
// each hour bit not yet set adds one visitor in that hour. New rows are inserted in key order;
// the existing ones are then locked in key order and read as committed, so that what another
// node wrote meanwhile is seen, never counted again. conn is tx's connection, which the COPY
// needs.
func addMembers(ctx context.Context, tx *sqlx.Tx, conn *sqlx.Conn, members []Member) ([]StatCount, error) {
	if len(members) == 0 {
		return nil, nil
	}
	members = mergeMembers(members)
	if _, err := tx.ExecContext(ctx, memberCreate+"; "+memberProbes); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	if err := copyMembers(ctx, conn, members); err != nil {
		return nil, fmt.Errorf("visits.add: members: copy: %w", err)
	}
	counts, err := countMembers(ctx, tx, memberInsert, nil)
	if err != nil {
		return nil, err
	}
	fresh := len(counts)
	if counts, err = countMembers(ctx, tx, memberLock, counts); err != nil {
		return nil, err
	}
	last := memberPlanner
	if len(counts) > fresh { // some existing rows gain a visit or an hour
		last = memberUpdate + "; " + memberPlanner
	}
	if _, err := tx.ExecContext(ctx, last); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	return counts, nil
}

// copyMembers sends members to the session's table by COPY, in tx's connection: the key as
// bytea's hex (\x, its backslash escaped for COPY), the hours as a number.
func copyMembers(ctx context.Context, conn *sqlx.Conn, members []Member) error {
	var (
		day     time.Time
		dayText string
	)
	return copyLines(ctx, conn, memberCopy, len(members), func(b []byte, i int) []byte {
		m := &members[i]
		if i == 0 || !m.Day.Equal(day) { // sorted: a website's members of a day lie together
			day, dayText = m.Day, m.Day.Format(dateLayout)
		}
		b = strconv.AppendInt(b, m.WebsiteID, 10)
		b = append(b, '\t')
		b = append(b, dayText...)
		b = append(b, "\t\\\\x"...)
		b = hex.AppendEncode(b, m.Key[:])
		b = append(b, '\t', 'f', '\t')
		if m.Visited {
			b[len(b)-2] = 't'
		}
		return strconv.AppendUint(b, uint64(m.Hours), 10)
	})
}

// countMembers runs one of the statements that return new bits (memberInsert, memberLock) and
// appends their counts to counts: a row is a website, a day and a pattern of new bits (the
// visit, the hours), with how many keys have it.
func countMembers(ctx context.Context, tx *sqlx.Tx, query string, counts []StatCount) ([]StatCount, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			websiteID, hours, n int64
			day                 time.Time
			visited             bool
		)
		if err := rows.Scan(&websiteID, &day, &visited, &hours, &n); err != nil {
			return nil, fmt.Errorf("visits.add: members: %w", err)
		}
		day = stats.Day(day)
		if visited {
			counts = append(counts, StatCount{WebsiteID: websiteID, Name: string(stats.Visitor), Date: day, Value: stats.DayValue(day), Count: n})
		}
		for h := uint32(hours); h != 0; h &= h - 1 {
			counts = append(counts, StatCount{WebsiteID: websiteID, Name: string(stats.VisitorHour), Date: day,
				Value: stats.HourValue(bits.TrailingZeros32(h)), Count: n})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	return counts, nil
}

// mergeMembers sorts members by key and merges those of one website, day and key.
func mergeMembers(members []Member) []Member {
	slices.SortFunc(members, func(a, b Member) int {
		if a.WebsiteID != b.WebsiteID {
			return cmp.Compare(a.WebsiteID, b.WebsiteID)
		}
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return bytes.Compare(a.Key[:], b.Key[:])
	})
	out := members[:0]
	for _, m := range members {
		if last := len(out) - 1; last >= 0 && out[last].WebsiteID == m.WebsiteID && out[last].Day.Equal(m.Day) && out[last].Key == m.Key {
			out[last].Visited = out[last].Visited || m.Visited
			out[last].Hours |= m.Hours
			continue
		}
		out = append(out, m)
	}
	return out
}
