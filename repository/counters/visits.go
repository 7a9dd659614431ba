package counters

import (
	"context"
	"crypto/rand"
	"fmt"
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

// Realtime keeps (docs/visits.md): the recent pageviews for 30 minutes, at most the last 25
// of each website, and the minutes (visitors, visits, pageviews) for MinutesKept.
const (
	RealtimeWindow    = 30 * time.Minute
	RealtimeRecentMax = 25
	// MinutesKept is how long the minutes are kept: Today's graph by the minute (at most 25
	// hours of a day in any zone) compared with the same day a week before, the comparison's
	// default, with room to spare.
	MinutesKept = 9 * 24 * time.Hour
)

// ForgetRealtime deletes recent pageviews older than RealtimeWindow and those of a website
// beyond its last RealtimeRecentMax, the visitor counts of nodes that stopped flushing a
// minute ago (readers ignore them after 10 s already), and the reports of what they may still
// write of nodes that died a week ago (node_open_days; readers ignore them after a day).
func (r *Repository) ForgetRealtime(ctx context.Context, now time.Time) error {
	cutoff := now.Add(-RealtimeWindow)
	const query = `
		WITH nodes AS (
			DELETE FROM realtime_visitors WHERE flushed_at < $2
		), lost AS (
			DELETE FROM node_open_days WHERE flushed_at < $4
		)
		DELETE FROM realtime_recent
		WHERE at < $1 OR (website_id, id) IN (
			SELECT website_id, id FROM (
				SELECT website_id, id, row_number() OVER (PARTITION BY website_id ORDER BY at DESC, id DESC) AS rank
				FROM realtime_recent
			) AS ranked
			WHERE rank > $3)`
	if _, err := r.db.ExecContext(ctx, query, cutoff, now.Add(-time.Minute), RealtimeRecentMax, now.AddDate(0, 0, -7)); err != nil {
		return fmt.Errorf("visits.forget_realtime: %w", err)
	}
	return nil
}

// ForgetMinutes deletes the minutes older than MinutesKept. A job of its own, run hourly: it
// reads the whole table (its key leads with the website), and readers never read past
// MinutesKept anyway.
func (r *Repository) ForgetMinutes(ctx context.Context, now time.Time) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM realtime_minutes WHERE minute < $1`, now.Add(-MinutesKept)); err != nil {
		return fmt.Errorf("visits.forget_minutes: %w", err)
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
	// Visitors: the visits with a hit in the minute, each once (a visitor's hits of one
	// minute, on the node that holds the visit); Visits: those that started in it.
	Visitors, Visits int64
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

// NodeOpen is what a node may still write into the visit rows (node_open_days): Oldest, the
// earliest day of its open visits (zero: none is open), at At, its clock when it took the
// batch. Leaving: the node stops with nothing left to write, and its row goes.
type NodeOpen struct {
	Node    string
	Oldest  time.Time
	At      time.Time
	Leaving bool
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
	// RowBytesPerDay is what a website's visit rows may take a day (VISIT_ROW_BYTES_PER_DAY,
	// chargeRowDays); 0: DefaultRowBytesPerDay.
	RowBytesPerDay int64
	// Open, when not nil, replaces the node's row of node_open_days, after the batch's rows:
	// it holds once they are written. A batch split in parts carries it in its last.
	Open *NodeOpen
}

// AddVisitBatch is the stats writer: everything collection counted, and what tests seed,
// goes through it (imported history too, through Import.Add). It writes a batch in one
// transaction, at most once per batch id (claimBatch): WriteBatch's day membership, counters,
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
		// Only this node's current visitors and what it may still write, which replace its
		// last ones: no batch id to claim.
		err = addRealtime(ctx, tx, b)
		if err == nil {
			err = reportOpen(ctx, tx, b.Open)
		}
	} else {
		added.Applied, err = claimBatch(ctx, tx, b.ID)
		if err == nil && added.Applied {
			added, err = WriteBatch(ctx, tx, conn, b, maxValues)
		}
		if err == nil && added.Applied {
			err = reportOpen(ctx, tx, b.Open)
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

// WriteBatch writes a batch in tx: the day membership of its visitor keys first, which decides
// how many visitors (per day and per hour) are new, so that a visitor another node or an
// earlier run already counted that day is not counted again; then the counters with those
// visitors (addStats, with its value cap and rollups); then the visits' rows (addVisitRows);
// then the realtime rows. Membership rows are written in key order, before any counter, by
// every node, so concurrent flushes cannot deadlock. conn is tx's connection, which the COPY
// of the members and of the visit rows needs (nil: the batch has neither).
func WriteBatch(ctx context.Context, tx *sqlx.Tx, conn *sqlx.Conn, b VisitBatch, maxValues int) (Added, error) {
	visitors, err := addMembers(ctx, tx, conn, b.Members)
	if err != nil {
		return Added{}, err
	}
	added, err := addStats(ctx, tx, append(visitors, b.Counts...), maxValues)
	if err != nil {
		return Added{}, err
	}
	rows, err := addVisitRows(ctx, tx, conn, &b, maxValues)
	if err != nil {
		return Added{}, err
	}
	added.RowsDropped, added.RowsOverDay, added.PropsOverCap, added.RowWritesCut = rows.skipped, rows.overDay, rows.over, rows.cut
	if err := addRealtime(ctx, tx, b); err != nil {
		return Added{}, err
	}
	return added, nil
}

// reportOpen replaces the node's row of node_open_days with o (nil: nothing to report), or
// deletes it when the node leaves.
func reportOpen(ctx context.Context, tx *sqlx.Tx, o *NodeOpen) error {
	if o == nil {
		return nil
	}
	if o.Leaving {
		if _, err := tx.ExecContext(ctx, `DELETE FROM node_open_days WHERE node = $1`, o.Node); err != nil {
			return fmt.Errorf("visits.add: node leaves: %w", err)
		}
		return nil
	}
	var oldest *string
	if !o.Oldest.IsZero() {
		d := o.Oldest.Format(time.DateOnly)
		oldest = &d
	}
	const query = `
		INSERT INTO node_open_days (node, oldest, flushed_at) VALUES ($1, $2, $3)
		ON CONFLICT (node) DO UPDATE SET oldest = EXCLUDED.oldest, flushed_at = EXCLUDED.flushed_at`
	if _, err := tx.ExecContext(ctx, query, o.Node, oldest, o.At.UTC()); err != nil {
		return fmt.Errorf("visits.add: open days: %w", err)
	}
	return nil
}

// addRealtime adds the batch's pageviews per minute and recent pageviews, and replaces the
// node's visitor counts.
func addRealtime(ctx context.Context, tx *sqlx.Tx, b VisitBatch) error {
	if len(b.Minutes) > 0 {
		n := len(b.Minutes)
		ids, minutes, views, visitors, visits := make([]int64, n), make([]time.Time, n), make([]int64, n), make([]int64, n), make([]int64, n)
		for i, m := range b.Minutes {
			ids[i], minutes[i], views[i], visitors[i], visits[i] = m.WebsiteID, m.Minute.UTC(), m.Pageviews, m.Visitors, m.Visits
		}
		const query = `
			INSERT INTO realtime_minutes AS m (website_id, minute, pageviews, visitors, visits)
			SELECT website_id, minute, sum(pageviews), sum(visitors), sum(visits)
			FROM unnest($1::bigint[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[]) AS t (website_id, minute, pageviews, visitors, visits)
			GROUP BY 1, 2
			ORDER BY 1, 2
			ON CONFLICT (website_id, minute) DO UPDATE SET pageviews = m.pageviews + EXCLUDED.pageviews,
				visitors = m.visitors + EXCLUDED.visitors, visits = m.visits + EXCLUDED.visits`
		if _, err := tx.ExecContext(ctx, query, pq.Array(ids), pq.Array(minutes), pq.Array(views), pq.Array(visitors), pq.Array(visits)); err != nil {
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
