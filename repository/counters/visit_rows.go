package counters

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/stats"
)

// visit_rows (migration 0020, docs/filters.md) holds one row per visit for filtered reads,
// in one partition a day. This file makes the partitions and says from which day filtered
// numbers exist; the flush writes the rows (AddVisitBatch) and filtered_read.go reads them.

// visitRowPartition names the partition of a day.
func visitRowPartition(day time.Time) string {
	return "visit_rows_" + day.Format("20060102")
}

// EnsureVisitRowPartitions makes the partitions of the days from..to (calendar days) that do
// not exist yet. Each is made in its own transaction, under an advisory lock, so that nodes
// starting together do not race.
func (r *Repository) EnsureVisitRowPartitions(ctx context.Context, from, to time.Time) error {
	for day := stats.Day(from); !day.After(stats.Day(to)); day = day.AddDate(0, 0, 1) {
		if err := r.ensureVisitRowPartition(ctx, day); err != nil {
			return fmt.Errorf("visit_rows.ensure_partitions: %s: %w", day.Format(dateLayout), err)
		}
	}
	return nil
}

// visitRowLock is the advisory lock key taken while partitions are made or dropped.
const visitRowLock = 0x76697369 // "visi"

func (r *Repository) ensureVisitRowPartition(ctx context.Context, day time.Time) error {
	var exists bool
	if err := r.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM visit_row_partitions WHERE day = $1)`, day.Format(dateLayout)); err != nil {
		return err
	}
	if exists {
		return nil
	}
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, visitRowLock); err != nil {
		return err
	}
	create := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s PARTITION OF visit_rows FOR VALUES FROM ('%s') TO ('%s')`,
		visitRowPartition(day), day.Format(dateLayout), day.AddDate(0, 0, 1).Format(dateLayout))
	if _, err := tx.ExecContext(ctx, create); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO visit_row_partitions (day) VALUES ($1) ON CONFLICT DO NOTHING`, day.Format(dateLayout)); err != nil {
		return err
	}
	return tx.Commit()
}

// FilteredFrom is the first day of the range that filtered numbers count (docs/filters.md,
// meta.filtered_from): the later of the website's filters_from and the oldest partition
// kept, when that is after the range's first day; the zero time when filtered numbers cover
// the whole range. It may be after the range's last day: then no day of it has filter rows.
func (r *Repository) FilteredFrom(ctx context.Context, websiteID int64, days stats.Range) (time.Time, error) {
	const query = `
		SELECT greatest(w.filters_from, (SELECT min(day) FROM visit_row_partitions))
		FROM websites w WHERE w.id = $1`
	var from *time.Time
	if err := r.db.GetContext(ctx, &from, query, websiteID); err != nil {
		return time.Time{}, fmt.Errorf("visit_rows.filtered_from: %w", err)
	}
	if from == nil || !stats.Day(*from).After(days.From) {
		return time.Time{}, nil
	}
	return stats.Day(*from), nil
}

// VisitRow is what one flush writes of a visit's row (visit_rows). The first write of a visit
// inserts it with its values; later writes of the same row (website, day, visitor, id) append
// their pages and events, add their pageviews and replace landing and exit page, bounce and
// seconds, which the flush always sends as they are at that moment.
type VisitRow struct {
	WebsiteID int64
	Day       time.Time // the visit's day (TZ), midnight UTC
	Visitor   int32     // the day number: 32 bits of the visit's visitor key, never the key
	ID        int64     // random, 0 <= ID < 2^63
	Hour      int       // the hour (0..23, TZ) the visit started
	Pageviews int       // pageviews since the last write of the row
	Seconds   int
	Bounce    bool
	// The visit-level values as the counters count them, by the index of their dimension in
	// stats.Dimensions: those of the first hit are written with the row's first write only,
	// the visit's (stats.FromVisit: landing and exit page) with every write.
	Values stats.Values
	// Pages and Events since the last write of the row, in order; EventNames the names of
	// the Events as sent, one each (Events write a ':' of a name as a space).
	Pages, Events, EventNames []string
	// Props are the custom properties its hits carried since the last write, one
	// stats.PropPair per hit and property; the writer keeps a website's day within its
	// limits of keys and values (capProps). Revenue*: one each per event that carried
	// revenue: its name as sent, currency and amount (a decimal, as stats.Amount keeps it).
	Props                                           []string
	RevenueNames, RevenueCurrencies, RevenueAmounts []string
	// Order is the order of those hits, one byte a hit: HitPage for the next of Pages,
	// HitEvent for the next of Events (column hit_order, which funnels read).
	Order []byte
	// Engaged is the visit's engagement (time on page, scroll depth) on every page it sent
	// some for, as it is now: a write that carries it replaces the row's; none (empty) leaves
	// the row's as it is (nothing new since its last write).
	Engaged []EngagedPage
}

// EngagedPage is a visit's engagement on one page, its totals so far: the engaged
// milliseconds of all its engagement hits for the page and the deepest scroll depth they
// sent (docs/tracker.md).
type EngagedPage struct {
	Page   string // as the page statistic counts it
	Millis int32  // -1: no engaged time came for the page
	Depth  int8   // 0..100; -1: no scroll depth came for the page
}

// The letters of hit_order (migration 0040).
const (
	HitPage  = 'p'
	HitEvent = 'e'
)

// visitRowChunk is the most rows one COPY and INSERT write: capProps decides a chunk's
// property pairs at once, and a node that buffered through an outage writes hundreds of
// thousands of rows at once.
const visitRowChunk = 5000

// VisitRows are a batch's visit rows, which the flush makes one at a time as it writes them:
// the collector holds them without pointers (ingest/rows.go), and a batch of tens of thousands
// made as strings all at once was megabytes of live heap for the whole flush, which under the
// heap limit makes the garbage collector run more often.
type VisitRows interface {
	Len() int
	// Row sets *r to row i; it may reuse the arrays of r's Pages and Events.
	Row(i int, r *VisitRow)
}

// VisitRowList is VisitRows made beforehand.
type VisitRowList []VisitRow

func (l VisitRowList) Len() int               { return len(l) }
func (l VisitRowList) Row(i int, r *VisitRow) { *r = l[i] }

// RowCount is how many visit rows b holds.
func (b *VisitBatch) RowCount() int {
	if b.Rows == nil {
		return 0
	}
	return b.Rows.Len()
}

// rowsWritten is what addVisitRows says of a batch's rows: how many were skipped, how many
// of those for their website's day (chargeRowDays), how many property pairs were written as
// stats.Other, how many writes were cut to a row's bounds.
type rowsWritten struct {
	skipped, overDay int
	over             int64
	cut              int
}

// addVisitRows upserts a batch's visit rows, by COPY in tx's connection conn
// (visit_rows_copy.go). Rows whose day has no partition, or whose website was deleted, are
// skipped rather than failing the flush (partitions are made days ahead), and so are the later
// writes that would take a row past its bounds (rowFits); property pairs past a day's limits
// are written as stats.Other (capProps, maxValues values a key), a write past the bounds
// of a row is cut (boundWrite), and the writes past their website's bytes of the day
// (b.RowBytesPerDay, chargeRowDays) are skipped.
func addVisitRows(ctx context.Context, tx *sqlx.Tx, conn *sqlx.Conn, b *VisitBatch, maxValues int) (rowsWritten, error) {
	n := b.RowCount()
	if n == 0 {
		return rowsWritten{}, nil
	}
	if maxValues <= 0 {
		maxValues = DefaultMaxValuesPerDay
	}
	dayLimit := b.RowBytesPerDay
	if dayLimit <= 0 {
		dayLimit = DefaultRowBytesPerDay
	}
	st := visitRowStatements()
	if _, err := tx.ExecContext(ctx, st.create); err != nil {
		return rowsWritten{}, fmt.Errorf("visits.add: visit rows: %w", err)
	}
	var w rowsWritten
	for from := 0; from < n; from += visitRowChunk {
		if from > 0 { // the session's table holds the last chunk's rows until the commit
			if _, err := tx.ExecContext(ctx, st.empty); err != nil {
				return rowsWritten{}, fmt.Errorf("visits.add: visit rows: %w", err)
			}
		}
		c, err := addVisitRowChunk(ctx, tx, conn, st, b.Rows, from, min(n, from+visitRowChunk), maxValues, dayLimit)
		if err != nil {
			return rowsWritten{}, err
		}
		w = rowsWritten{skipped: w.skipped + c.skipped, overDay: w.overDay + c.overDay, over: w.over + c.over, cut: w.cut + c.cut}
	}
	return w, nil
}

// addVisitRowChunk upserts rows from..to-1, the session's table being empty: their property
// pairs capped first, then the rows by COPY into the session's table, then from there into
// visit_rows in key order by one statement (several nodes never share a row, whose id is
// random, so the order across chunks does not matter; within one it costs nothing and keeps
// to the rule of every write of the flush).
func addVisitRowChunk(ctx context.Context, tx *sqlx.Tx, conn *sqlx.Conn, st rowStatements, rows VisitRows, from, to, maxValues int, dayLimit int64) (rowsWritten, error) {
	var r VisitRow
	cut := 0
	days, costs := make([]rowDay, to-from), make([]int64, to-from)
	// note reads the rows' property pairs (those of the rows written, once skip is known).
	note := func(skip []bool) propNotes {
		notes := propNotes{}
		for i := from; i < to; i++ {
			if skip != nil && skip[i-from] {
				continue
			}
			rows.Row(i, &r)
			if boundWrite(&r) && skip == nil { // as copyVisitRows will write it
				cut++
			}
			days[i-from], costs[i-from] = rowDay{r.WebsiteID, r.Day.Format(dateLayout)}, rowWriteCost(&r, st.dims)
			if len(r.Props) > 0 {
				notes.note(&r, days[i-from].day)
			}
		}
		return notes
	}
	notes := note(nil)
	skip, overDay, err := chargeRowDays(ctx, tx, days, costs, dayLimit)
	if err != nil {
		return rowsWritten{}, err
	}
	if skip != nil { // rare: a website's day is full
		notes = note(skip)
	}
	capped, err := capProps(ctx, tx, notes, maxValues)
	if err != nil {
		return rowsWritten{}, err
	}
	if err := copyVisitRows(ctx, conn, st.copy, rows, from, to, skip, st.dims, &capped); err != nil {
		return rowsWritten{}, fmt.Errorf("visits.add: visit rows: copy: %w", err)
	}
	res, err := tx.ExecContext(ctx, st.insert)
	if err != nil {
		return rowsWritten{}, fmt.Errorf("visits.add: visit rows: %w", err)
	}
	written, err := res.RowsAffected()
	if err != nil {
		return rowsWritten{}, fmt.Errorf("visits.add: visit rows: %w", err)
	}
	return rowsWritten{skipped: to - from - overDay - int(written), overDay: overDay, over: capped.over, cut: cut}, nil
}

// ClusterVisitRowPartition rewrites in key order the oldest partition of a day on or before
// closed (a day no flush writes any more) that was not yet, and notes it: each website's rows
// of that day then lie together, so a filtered read touches its own website's pages only. It
// does one day a call (a rewrite locks its partition) and says which, or the zero time when
// none was left.
func (r *Repository) ClusterVisitRowPartition(ctx context.Context, closed time.Time) (time.Time, error) {
	var days []time.Time
	const next = `SELECT day FROM visit_row_partitions WHERE NOT clustered AND day <= $1 ORDER BY day LIMIT 1`
	if err := r.db.SelectContext(ctx, &days, next, closed.Format(dateLayout)); err != nil {
		return time.Time{}, fmt.Errorf("visit_rows.cluster: %w", err)
	}
	if len(days) == 0 {
		return time.Time{}, nil
	}
	day := stats.Day(days[0])
	name := visitRowPartition(day)
	if _, err := r.db.ExecContext(ctx, `CLUSTER `+name+` USING `+name+`_pkey`); err != nil {
		return time.Time{}, fmt.Errorf("visit_rows.cluster: %s: %w", name, err)
	}
	if _, err := r.db.ExecContext(ctx, `UPDATE visit_row_partitions SET clustered = true WHERE day = $1`, day.Format(dateLayout)); err != nil {
		return time.Time{}, fmt.Errorf("visit_rows.cluster: %s: %w", name, err)
	}
	return day, nil
}

// DropVisitRowPartitions drops the partitions of the days before the given one (past
// FACTS_RETENTION), whole: each with its row of visit_row_partitions, in one transaction under
// the advisory lock that making partitions takes. It returns the days dropped.
func (r *Repository) DropVisitRowPartitions(ctx context.Context, before time.Time) ([]time.Time, error) {
	var days []time.Time
	if err := r.db.SelectContext(ctx, &days, `SELECT day FROM visit_row_partitions WHERE day < $1 ORDER BY day`, before.Format(dateLayout)); err != nil {
		return nil, fmt.Errorf("visit_rows.drop: %w", err)
	}
	for i, day := range days {
		days[i] = stats.Day(day)
		if err := r.dropVisitRowPartition(ctx, days[i]); err != nil {
			return days[:i], fmt.Errorf("visit_rows.drop: %s: %w", days[i].Format(dateLayout), err)
		}
	}
	return days, nil
}

func (r *Repository) dropVisitRowPartition(ctx context.Context, day time.Time) error {
	tx, err := r.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, visitRowLock); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+visitRowPartition(day)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM visit_row_partitions WHERE day = $1`, day.Format(dateLayout)); err != nil {
		return err
	}
	// The day's property keys and values go with its rows: they only bound what the rows hold.
	for _, table := range []string{"property_keys", "property_values", "visit_row_days"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE day = $1`, day.Format(dateLayout)); err != nil {
			return err
		}
	}
	return tx.Commit()
}
