package repository

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// SaltSize is the length of a day's salt (visitor_salts.salt).
const SaltSize = 32

// Salts returns the salt of each of the days (calendar days in TZ, as midnight UTC), creating
// the missing ones: the first node to ask creates a day's salt, and every node reads back the
// one that was kept, so that all of them compute the same visitor keys (docs/visits.md).
func (r *Repository) Salts(ctx context.Context, days []time.Time) (map[time.Time][]byte, error) {
	dates := make([]string, len(days))
	salts := make([][]byte, len(days))
	for i, d := range days {
		dates[i] = d.Format(dateLayout)
		salts[i] = make([]byte, SaltSize)
		if _, err := rand.Read(salts[i]); err != nil {
			return nil, fmt.Errorf("visits.salts: %w", err)
		}
	}
	const insert = `
		INSERT INTO visitor_salts (day, salt)
		SELECT day, salt FROM unnest($1::date[], $2::bytea[]) AS t (day, salt)
		ORDER BY day
		ON CONFLICT (day) DO NOTHING`
	if _, err := r.db.ExecContext(ctx, insert, pq.Array(dates), pq.ByteaArray(salts)); err != nil {
		return nil, fmt.Errorf("visits.salts: %w", err)
	}
	var rows []struct {
		Day  time.Time `db:"day"`
		Salt []byte    `db:"salt"`
	}
	if err := r.db.SelectContext(ctx, &rows, `SELECT day, salt FROM visitor_salts WHERE day = ANY($1::date[])`, pq.Array(dates)); err != nil {
		return nil, fmt.Errorf("visits.salts: %w", err)
	}
	out := make(map[time.Time][]byte, len(rows))
	for _, row := range rows {
		out[stats.Day(row.Day)] = row.Salt
	}
	return out, nil
}

// ForgetSalts deletes the salts of the days before the given one, with the day membership
// computed under them: after that nothing stored can be tied to a visitor's address.
func (r *Repository) ForgetSalts(ctx context.Context, before time.Time) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("visits.forget_salts: %w", err)
	}
	defer tx.Rollback()
	day := before.Format(dateLayout)
	if _, err := tx.ExecContext(ctx, `DELETE FROM visitor_days WHERE day < $1`, day); err != nil {
		return fmt.Errorf("visits.forget_salts: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM visitor_salts WHERE day < $1`, day); err != nil {
		return fmt.Errorf("visits.forget_salts: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("visits.forget_salts: %w", err)
	}
	return nil
}

// Realtime keeps (docs/visits.md): pageviews per minute and the recent pageviews for 30
// minutes, at most the last 25 of each website.
const (
	RealtimeWindow    = 30 * time.Minute
	RealtimeRecentMax = 25
)

// ForgetRealtime deletes realtime rows older than RealtimeWindow, the recent pageviews of a
// website beyond its last RealtimeRecentMax, and the visitor counts of nodes that stopped
// flushing a minute ago (readers ignore them after 10 s already).
func (r *Repository) ForgetRealtime(ctx context.Context, now time.Time) error {
	cutoff := now.Add(-RealtimeWindow)
	const query = `
		WITH minutes AS (
			DELETE FROM realtime_minutes WHERE minute < $1
		), nodes AS (
			DELETE FROM realtime_visitors WHERE flushed_at < $2
		)
		DELETE FROM realtime_recent
		WHERE at < $1 OR (website_id, id) IN (
			SELECT website_id, id FROM (
				SELECT website_id, id, row_number() OVER (PARTITION BY website_id ORDER BY at DESC, id DESC) AS rank
				FROM realtime_recent
			) AS ranked
			WHERE rank > $3)`
	if _, err := r.db.ExecContext(ctx, query, cutoff, now.Add(-time.Minute), RealtimeRecentMax); err != nil {
		return fmt.Errorf("visits.forget_realtime: %w", err)
	}
	return nil
}

// Member is what one flush learned of a visitor key on a website and day.
type Member struct {
	WebsiteID int64
	Day       time.Time // the calendar day (midnight UTC)
	Key       [16]byte  // the visitor key of section 8: never the address or user agent
	Visited   bool      // the key started a visit that day
	Hours     uint32    // bit h: the key sent a hit in hour h (0..23, TZ) of that day
}

// RealtimeMinute is pageviews of a website in one minute.
type RealtimeMinute struct {
	WebsiteID int64
	Minute    time.Time // truncated to the minute
	Pageviews int64
}

// RecentPageview is one pageview of the realtime list: its path without the query string and
// the values of its own hit. No key, no address.
type RecentPageview struct {
	WebsiteID int64     `db:"website_id"`
	At        time.Time `db:"at"`
	Page      string    `db:"page"`
	Referrer  string    `db:"referrer"`
	Country   string    `db:"country"`
	Browser   string    `db:"browser"`
	Device    string    `db:"device"`
	// SecondsAgo is set by the reads (Realtime), never written.
	SecondsAgo int64 `db:"-"`
}

// NodeVisitors is a node's count of distinct visitor keys of a website with a hit in the last
// 5 minutes.
type NodeVisitors struct {
	WebsiteID int64
	Visitors  int
}

// VisitBatch is everything one flush of a node writes, in one transaction, once per ID.
type VisitBatch struct {
	ID      string
	Counts  []StatCount
	Members []Member
	Minutes []RealtimeMinute
	Recent  []RecentPageview
	// Node names the writing node; its Visitors replace its earlier counts, at At.
	Node     string
	Visitors []NodeVisitors
	At       time.Time
	// Rows are the visits' rows for filters (visit_rows), written with the counters; nil: none.
	Rows VisitRows
}

// AddVisitBatch is the stats writer: everything collection counted, and what tests seed,
// goes through it (imported history too, through Import.Add). It writes a batch in one
// transaction, at most once per batch id (claimBatch): writeBatch's day membership, counters,
// visit rows and realtime rows. A website's statistic keeps at most maxValues distinct values a
// day (<= 0: DefaultMaxValuesPerDay; see addStats). The transaction is begun on a connection
// of its own, which the visit rows' COPY needs (addVisitRows).
func (r *Repository) AddVisitBatch(ctx context.Context, b VisitBatch, maxValues int) (Added, error) {
	conn, err := r.db.Connx(ctx)
	if err != nil {
		return Added{}, fmt.Errorf("visits.add: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return Added{}, fmt.Errorf("visits.add: %w", err)
	}
	defer tx.Rollback()
	added := Added{Applied: true}
	if len(b.Counts) == 0 && len(b.Members) == 0 && len(b.Minutes) == 0 && len(b.Recent) == 0 && b.RowCount() == 0 {
		// Only this node's current visitors, which replace its last ones: no batch id to claim.
		err = addRealtime(ctx, tx, b)
	} else {
		added.Applied, err = claimBatch(ctx, tx, b.ID)
		if err == nil && added.Applied {
			added, err = writeBatch(ctx, tx, conn, b, maxValues)
		}
	}
	if err != nil {
		return Added{}, err
	}
	if err := tx.Commit(); err != nil {
		return Added{}, fmt.Errorf("visits.add: %w", err)
	}
	return added, nil
}

// writeBatch writes a batch in tx: the day membership of its visitor keys first, which decides
// how many visitors (per day and per hour) are new, so that a visitor another node or an
// earlier run already counted that day is not counted again; then the counters with those
// visitors (addStats, with its value cap and rollups); then the visits' rows (addVisitRows);
// then the realtime rows. Membership rows are written in key order, before any counter, by
// every node, so concurrent flushes cannot deadlock. conn is tx's connection, which the visit
// rows need (nil: the batch has none).
func writeBatch(ctx context.Context, tx *sqlx.Tx, conn *sqlx.Conn, b VisitBatch, maxValues int) (Added, error) {
	visitors, err := addMembers(ctx, tx, b.Members)
	if err != nil {
		return Added{}, err
	}
	added, err := addStats(ctx, tx, append(visitors, b.Counts...), maxValues)
	if err != nil {
		return Added{}, err
	}
	if added.RowsDropped, added.PropsOverCap, err = addVisitRows(ctx, tx, conn, &b, maxValues); err != nil {
		return Added{}, err
	}
	if err := addRealtime(ctx, tx, b); err != nil {
		return Added{}, err
	}
	return added, nil
}

// addMembers upserts the day membership of the batch's keys and returns the visitor and
// visitor_hour counts that are new: a key not yet visited on its day adds one visitor, and
// each hour bit not yet set adds one visitor in that hour. New rows are inserted in key order;
// the existing ones are then locked in key order and read as committed, so that what another
// node wrote meanwhile is seen, never counted again.
func addMembers(ctx context.Context, tx *sqlx.Tx, members []Member) ([]StatCount, error) {
	if len(members) == 0 {
		return nil, nil
	}
	members = mergeMembers(members)
	n := len(members)
	ids, days, keys, visited, hours := make([]int64, n), make([]string, n), make([][]byte, n), make([]bool, n), make([]int64, n)
	for i, m := range members {
		ids[i], days[i], keys[i], visited[i], hours[i] = m.WebsiteID, m.Day.Format(dateLayout), m.Key[:], m.Visited, int64(m.Hours)
	}
	args := []any{pq.Array(ids), pq.Array(days), pq.ByteaArray(keys), pq.Array(visited), pq.Array(hours)}
	const unnest = `unnest($1::bigint[], $2::date[], $3::bytea[], $4::boolean[], $5::integer[]) AS t (website_id, day, key, visited, hours)`
	type row struct {
		WebsiteID int64     `db:"website_id"`
		Day       time.Time `db:"day"`
		Key       []byte    `db:"key"`
		Visited   bool      `db:"visited"`
		Hours     int64     `db:"hours"`
	}
	var inserted []row
	insert := `
		INSERT INTO visitor_days (website_id, day, key, visited, hours)
		SELECT website_id, day, key, visited, hours FROM ` + unnest + `
		ORDER BY 1, 2, 3
		ON CONFLICT (website_id, day, key) DO NOTHING
		RETURNING website_id, day, key, false AS visited, 0::bigint AS hours`
	if err := tx.SelectContext(ctx, &inserted, insert, args...); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	var existing []row
	lock := `
		SELECT v.website_id, v.day, v.key, v.visited, v.hours::bigint AS hours
		FROM visitor_days v
		JOIN ` + unnest + ` USING (website_id, day, key)
		WHERE (v.website_id, v.day, v.key) NOT IN (SELECT * FROM unnest($6::bigint[], $7::date[], $8::bytea[]))
		ORDER BY 1, 2, 3
		FOR UPDATE OF v`
	insIDs, insDays, insKeys := make([]int64, len(inserted)), make([]string, len(inserted)), make([][]byte, len(inserted))
	for i, in := range inserted {
		insIDs[i], insDays[i], insKeys[i] = in.WebsiteID, in.Day.Format(dateLayout), in.Key
	}
	if err := tx.SelectContext(ctx, &existing, lock, append(args, pq.Array(insIDs), pq.Array(insDays), pq.ByteaArray(insKeys))...); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	isNew := make(map[memberRef]bool, len(inserted))
	for _, in := range inserted {
		isNew[memberID(in.WebsiteID, stats.Day(in.Day), in.Key)] = true
	}
	before := make(map[memberRef]row, len(existing))
	for _, ex := range existing {
		before[memberID(ex.WebsiteID, stats.Day(ex.Day), ex.Key)] = ex
	}
	var counts []StatCount
	var changed []int // members whose existing row gains a bit or its visit
	for i, m := range members {
		id := memberID(m.WebsiteID, m.Day, m.Key[:])
		old := before[id] // zero for a new row: every bit of it is new
		newVisit := m.Visited && !old.Visited
		newHours := m.Hours &^ uint32(old.Hours)
		if !isNew[id] && (newVisit || newHours != 0) {
			changed = append(changed, i)
		}
		if newVisit {
			counts = append(counts, StatCount{WebsiteID: m.WebsiteID, Name: string(stats.Visitor), Date: m.Day, Value: stats.DayValue(m.Day), Count: 1})
		}
		for h := newHours; h != 0; h &= h - 1 {
			counts = append(counts, StatCount{WebsiteID: m.WebsiteID, Name: string(stats.VisitorHour), Date: m.Day,
				Value: stats.HourValue(bits.TrailingZeros32(h)), Count: 1})
		}
	}
	if len(changed) == 0 {
		return counts, nil
	}
	ids, days, keys, visited, hours = ids[:0], days[:0], keys[:0], visited[:0], hours[:0]
	for _, i := range changed {
		m := members[i]
		ids, days, keys, visited, hours = append(ids, m.WebsiteID), append(days, m.Day.Format(dateLayout)),
			append(keys, m.Key[:]), append(visited, m.Visited), append(hours, int64(m.Hours))
	}
	update := `
		UPDATE visitor_days v
		SET visited = v.visited OR t.visited, hours = v.hours | t.hours
		FROM ` + unnest + `
		WHERE v.website_id = t.website_id AND v.day = t.day AND v.key = t.key`
	if _, err := tx.ExecContext(ctx, update, pq.Array(ids), pq.Array(days), pq.ByteaArray(keys), pq.Array(visited), pq.Array(hours)); err != nil {
		return nil, fmt.Errorf("visits.add: members: %w", err)
	}
	return counts, nil
}

// mergeMembers sorts members by key and merges those of one website, day and key.
func mergeMembers(members []Member) []Member {
	slices.SortFunc(members, func(a, b Member) int {
		if a.WebsiteID != b.WebsiteID {
			return cmpInt(a.WebsiteID, b.WebsiteID)
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

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// memberRef identifies a membership row in memory.
type memberRef struct {
	websiteID int64
	day       int64 // Unix seconds of the day's midnight UTC
	key       [16]byte
}

func memberID(websiteID int64, day time.Time, key []byte) memberRef {
	ref := memberRef{websiteID: websiteID, day: day.Unix()}
	copy(ref.key[:], key)
	return ref
}

// addRealtime adds the batch's pageviews per minute and recent pageviews, and replaces the
// node's visitor counts.
func addRealtime(ctx context.Context, tx *sqlx.Tx, b VisitBatch) error {
	if len(b.Minutes) > 0 {
		ids, minutes, views := make([]int64, len(b.Minutes)), make([]time.Time, len(b.Minutes)), make([]int64, len(b.Minutes))
		for i, m := range b.Minutes {
			ids[i], minutes[i], views[i] = m.WebsiteID, m.Minute.UTC(), m.Pageviews
		}
		const query = `
			INSERT INTO realtime_minutes AS m (website_id, minute, pageviews)
			SELECT website_id, minute, sum(pageviews) FROM unnest($1::bigint[], $2::timestamptz[], $3::bigint[]) AS t (website_id, minute, pageviews)
			GROUP BY 1, 2
			ORDER BY 1, 2
			ON CONFLICT (website_id, minute) DO UPDATE SET pageviews = m.pageviews + EXCLUDED.pageviews`
		if _, err := tx.ExecContext(ctx, query, pq.Array(ids), pq.Array(minutes), pq.Array(views)); err != nil {
			return fmt.Errorf("visits.add: realtime minutes: %w", err)
		}
	}
	if len(b.Recent) > 0 {
		n := len(b.Recent)
		ids, at := make([]int64, n), make([]time.Time, n)
		page, ref, country, browser, device := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i, p := range b.Recent {
			ids[i], at[i], page[i], ref[i], country[i], browser[i], device[i] = p.WebsiteID, p.At.UTC(), p.Page, p.Referrer, p.Country, p.Browser, p.Device
		}
		const query = `
			INSERT INTO realtime_recent (website_id, at, page, referrer, country, browser, device)
			SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`
		if _, err := tx.ExecContext(ctx, query, pq.Array(ids), pq.Array(at), pq.Array(page), pq.Array(ref),
			pq.Array(country), pq.Array(browser), pq.Array(device)); err != nil {
			return fmt.Errorf("visits.add: realtime recent: %w", err)
		}
	}
	if b.Node == "" {
		return nil
	}
	ids, counts := make([]int64, len(b.Visitors)), make([]int64, len(b.Visitors))
	for i, v := range b.Visitors {
		ids[i], counts[i] = v.WebsiteID, int64(v.Visitors)
	}
	const query = `
		WITH gone AS (
			DELETE FROM realtime_visitors WHERE node = $1 AND website_id <> ALL($2::bigint[])
		)
		INSERT INTO realtime_visitors AS v (node, website_id, visitors, flushed_at)
		SELECT $1, website_id, visitors, $4 FROM unnest($2::bigint[], $3::bigint[]) AS t (website_id, visitors)
		ORDER BY 2
		ON CONFLICT (node, website_id) DO UPDATE SET visitors = EXCLUDED.visitors, flushed_at = EXCLUDED.flushed_at`
	if _, err := tx.ExecContext(ctx, query, b.Node, pq.Array(ids), pq.Array(counts), b.At.UTC()); err != nil {
		return fmt.Errorf("visits.add: realtime visitors: %w", err)
	}
	return nil
}
