package repository

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

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

// visitRowChunk is the most rows one statement writes: what a statement holds in memory
// (its arrays, and their copies in the driver) grows with it, and a node that buffered
// through an outage writes hundreds of thousands at once.
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

// addVisitRows upserts a batch's visit rows. Rows whose day has no partition, or whose website
// was deleted, are skipped rather than failing the flush (partitions are made days ahead): it
// returns how many were skipped, and how many property pairs were written as stats.Other
// (capProps, maxValues values a key).
func addVisitRows(ctx context.Context, tx *sqlx.Tx, b *VisitBatch, maxValues int) (skipped int, over int64, err error) {
	if maxValues <= 0 {
		maxValues = DefaultMaxValuesPerDay
	}
	for from, n := 0, b.RowCount(); from < n; from += visitRowChunk {
		k, o, err := addVisitRowChunk(ctx, tx, b.Rows, from, min(n, from+visitRowChunk), maxValues)
		if err != nil {
			return 0, 0, err
		}
		skipped, over = skipped+k, over+o
	}
	return skipped, over, nil
}

// addVisitRowChunk upserts rows from..to-1 in one statement of unnest over 1-D arrays, in key
// order (several nodes never share a row, whose id is random, so the order across chunks does
// not matter; within one it costs nothing and keeps to the rule of every write of the flush).
// Pages and events, a text[] a row, go as one array literal a row (text), cast back to text[]
// by PostgreSQL: unnest of a 2-D array cannot give a text[] a row.
func addVisitRowChunk(ctx context.Context, tx *sqlx.Tx, rows VisitRows, from, to, maxValues int) (int, int64, error) {
	n := to - from
	ids, visitors, rowIDs := make([]int64, n), make([]int64, n), make([]int64, n)
	hours, pageviews, seconds, bounces := make([]int64, n), make([]int64, n), make([]int64, n), make([]bool, n)
	// The text columns (days, values, pages and events) go as literals written here straight
	// from the rows, each sized first: through pq.Array each value was copied twice more, and
	// through a []string a column and a literal a row's pages once more. text[1+j] is the
	// column of dimension j.
	insert, dims := visitRowInsert()
	text := make([]literal, dims+9+engagedColumns)
	pages, events, names, order := &text[dims+1], &text[dims+2], &text[dims+3], &text[dims+4]
	props, revenue := &text[dims+5], text[dims+6:dims+9]
	engaged := text[dims+9:]
	notes := propNotes{}
	var r VisitRow
	for i := range n {
		rows.Row(from+i, &r)
		ids[i], visitors[i], rowIDs[i] = r.WebsiteID, int64(r.Visitor), r.ID
		hours[i], pageviews[i], seconds[i], bounces[i] = int64(r.Hour), int64(r.Pageviews), int64(min(r.Seconds, math.MaxInt32)), r.Bounce
		text[0].size += len(dateLayout) + 3
		for j, v := range r.Values[:dims] {
			text[1+j].size += len(v) + 3
		}
		pages.size += arraySize(r.Pages)
		events.size += arraySize(r.Events)
		names.size += arraySize(r.EventNames)
		order.size += len(r.Order) + 3
		sizeEngaged(engaged, r.Engaged)
		props.size += arraySize(r.Props)
		revenue[0].size += arraySize(r.RevenueNames)
		revenue[1].size += arraySize(r.RevenueCurrencies)
		revenue[2].size += arraySize(r.RevenueAmounts)
		if len(r.Props) > 0 {
			notes.note(&r, r.Day.Format(dateLayout))
		}
	}
	capped, err := capProps(ctx, tx, notes, maxValues)
	if err != nil {
		return 0, 0, err
	}
	day, dayText := time.Time{}, ""
	var kept []string
	for i := range n {
		rows.Row(from+i, &r)
		if i == 0 || !r.Day.Equal(day) { // a chunk's rows are of a day or two
			day, dayText = r.Day, r.Day.Format(dateLayout)
		}
		text[0].add(dayText)
		for j, v := range r.Values[:dims] {
			text[1+j].add(v)
		}
		pages.addArray(r.Pages)
		events.addArray(r.Events)
		names.addArray(r.EventNames)
		order.addLetters(r.Order)
		addEngaged(engaged, r.Engaged)
		kept = kept[:0] // not r.Props, which may be the caller's
		for _, pair := range r.Props {
			kept = append(kept, capped.pair(r.WebsiteID, dayText, pair))
		}
		props.addArray(kept)
		revenue[0].addArray(r.RevenueNames)
		revenue[1].addArray(r.RevenueCurrencies)
		revenue[2].addArray(r.RevenueAmounts)
	}
	args := []any{pq.Array(ids), text[0].end(), pq.Array(visitors), pq.Array(rowIDs), pq.Array(hours), pq.Array(pageviews),
		pq.Array(seconds), pq.Array(bounces)}
	for j := 1; j < len(text); j++ {
		args = append(args, text[j].end())
	}
	res, err := tx.ExecContext(ctx, insert, args...)
	if err != nil {
		return 0, 0, fmt.Errorf("visits.add: visit rows: %w", err)
	}
	written, err := res.RowsAffected()
	if err != nil {
		return 0, 0, fmt.Errorf("visits.add: visit rows: %w", err)
	}
	return n - int(written), capped.over, nil
}

// rowInsert is addVisitRowChunk's statement, made from stats.Dimensions at the first write,
// and again only when the table has grown since (as a test's that declares one more).
var rowInsert struct {
	sync.Mutex
	dims  int
	query string
}

// visitRowInsert is the statement that upserts visit rows and how many dimensions it writes:
// its arguments are the 8 arrays of a row's own columns ($1..$8, as addVisitRowChunk makes
// them), a text[] literal for each dimension's column in the order of stats.Dimensions, then
// pages, events, event names, hit order, properties, revenue and the engagement columns
// (engagedArrays). On conflict the visit's values (stats.FromVisit) are replaced, the first
// hit's kept, the arrays and the hit order appended to, and the engagement replaced when the
// write carries some.
func visitRowInsert() (string, int) {
	rowInsert.Lock()
	defer rowInsert.Unlock()
	if rowInsert.query == "" || rowInsert.dims != len(stats.Dimensions) {
		rowInsert.query, rowInsert.dims = buildVisitRowInsert(stats.Dimensions), len(stats.Dimensions)
	}
	return rowInsert.query, rowInsert.dims
}

// rowArray is a column of visit_rows holding an array a row, sent as one literal a row (text)
// and cast back to its type.
type rowArray struct{ column, cast string }

// engagedArrays are the engagement columns (migration 0025), in the order addEngaged writes
// them: aligned, one element per page the visit sent engagement for.
var engagedArrays = []rowArray{{"engaged_pages", "text[]"}, {"engaged_ms", "integer[]"}, {"scroll_depth", "smallint[]"}}

// engagedColumns is how many engagedArrays there are.
const engagedColumns = 3

func buildVisitRowInsert(dims []stats.Dimension) string {
	columns := []string{"website_id", "day", "visitor", "id", "hour", "pageviews", "seconds", "bounce"}
	types := []string{"bigint", "date", "integer", "bigint", "smallint", "integer", "integer", "boolean"}
	var replaced []string
	for _, d := range dims {
		c := pq.QuoteIdentifier(d.Column)
		columns, types = append(columns, c), append(types, "text")
		if d.From == stats.FromVisit {
			replaced = append(replaced, c+" = EXCLUDED."+c)
		}
	}
	// The arrays of a row, each sent as its literal's text and cast back: those a later write
	// of the row appends to, then the engagement, which it replaces.
	appended := []string{"pages", "events", "event_names", "hit_order", "props", "revenue_names", "revenue_currencies", "revenue_amounts"}
	for _, c := range appended {
		columns, types = append(columns, c), append(types, "text")
	}
	for _, a := range engagedArrays {
		columns, types = append(columns, a.column), append(types, "text")
	}
	selected, params := make([]string, len(columns)), make([]string, len(columns))
	for i, c := range columns {
		selected[i] = "t." + c
		params[i] = fmt.Sprintf("$%d::%s[]", i+1, types[i])
	}
	first := len(columns) - len(appended) - len(engagedArrays)
	var appends []string
	for i := first; i < first+len(appended); i++ {
		switch columns[i] {
		case "pages", "events", "event_names":
			selected[i] += "::text[]"
		case "hit_order": // text, a letter a hit (migration 0040)
		case "revenue_amounts":
			// Exact decimals, never floating point; NULL for none (migration 0030).
			selected[i] = "NULLIF(" + selected[i] + "::numeric[], '{}')"
		default:
			selected[i] = "NULLIF(" + selected[i] + "::text[], '{}')"
		}
		// || of a NULL array is the other one.
		appends = append(appends, columns[i]+" = v."+columns[i]+" || EXCLUDED."+columns[i])
	}
	for i, a := range engagedArrays {
		selected[first+len(appended)+i] += "::" + a.cast
		// All three or none: a write without engagement (NULL) keeps the row's.
		replaced = append(replaced, fmt.Sprintf("%s = coalesce(EXCLUDED.%[1]s, v.%[1]s)", a.column))
	}
	list := strings.Join(columns, ", ")
	return `
		INSERT INTO visit_rows AS v (` + list + `)
		SELECT ` + strings.Join(selected, ", ") + `
		FROM unnest(` + strings.Join(params, ", ") + `) AS t (` + list + `)
		WHERE t.day IN (SELECT day FROM visit_row_partitions)
			AND t.website_id IN (SELECT id FROM websites)
		ORDER BY 1, 2, 3, 4
		ON CONFLICT (website_id, day, visitor, id) DO UPDATE SET
			` + strings.Join(appends, ",\n\t\t\t") + `,
			pageviews = v.pageviews + EXCLUDED.pageviews,
			` + strings.Join(append(replaced, "bounce = EXCLUDED.bounce", "seconds = EXCLUDED.seconds"), ",\n\t\t\t")
}

// literal is a text[] literal written one element at a time, each quoted with its quotes and
// backslashes escaped, so that any value a stranger sends stays one element. size is what
// it will take, escapes aside: it is made to that size at its first element.
type literal struct {
	b    strings.Builder
	size int
}

func (l *literal) open() {
	if l.b.Len() == 0 {
		l.b.Grow(l.size + 2)
		l.b.WriteByte('{')
	} else {
		l.b.WriteByte(',')
	}
}

// add appends v as an element.
func (l *literal) add(v string) {
	l.open()
	l.b.WriteByte('"')
	l.escape(v, 1)
	l.b.WriteByte('"')
}

// addLetters appends hit_order's letters as an element: they need no escaping.
func (l *literal) addLetters(letters []byte) {
	l.open()
	l.b.WriteByte('"')
	l.b.Write(letters)
	l.b.WriteByte('"')
}

// addArray appends the literal of values as one element (a text[] a row, sent as its text):
// the inner literal's quotes and backslashes are escaped once more.
func (l *literal) addArray(values []string) {
	l.open()
	l.b.WriteString(`"{`)
	for i, v := range values {
		if i > 0 {
			l.b.WriteByte(',')
		}
		l.b.WriteString(`\"`)
		l.escape(v, 2)
		l.b.WriteString(`\"`)
	}
	l.b.WriteString(`}"`)
}

// escape writes v with its quotes and backslashes escaped for a literal depth deep: 1 for
// an element (\" and \\), 2 for an element of an element (\\\" and \\\\).
func (l *literal) escape(v string, depth int) {
	if !strings.ContainsAny(v, `"\`) {
		l.b.WriteString(v)
		return
	}
	for j := 0; j < len(v); j++ {
		if c := v[j]; c == '"' || c == '\\' {
			l.b.WriteString(`\\\`[:2*depth-1])
		}
		l.b.WriteByte(v[j])
	}
}

// end closes the literal and gives it: {} when it has no element. It appends the closing
// brace, so it is called once, when the last element is in.
func (l *literal) end() string {
	if l.b.Len() == 0 {
		return "{}"
	}
	l.b.WriteByte('}')
	return l.b.String()
}

// addNull appends a NULL element (a row's array that is NULL).
func (l *literal) addNull() {
	l.open()
	l.b.WriteString("NULL")
}

// addNumbers appends the literal of numbers as one element, NULL for each that is negative
// (none): digits need no escape.
func (l *literal) addNumbers(n int, number func(i int) int64) {
	l.open()
	l.b.WriteString(`"{`)
	var digits [20]byte
	for i := range n {
		if i > 0 {
			l.b.WriteByte(',')
		}
		if v := number(i); v >= 0 {
			l.b.Write(strconv.AppendInt(digits[:0], v, 10))
		} else {
			l.b.WriteString("NULL")
		}
	}
	l.b.WriteString(`}"`)
}

// sizeEngaged adds what addEngaged will take of a row's engagement to the sizes of its
// literals (engagedArrays), escapes aside.
func sizeEngaged(l []literal, engaged []EngagedPage) {
	if len(engaged) == 0 {
		for i := range l {
			l[i].size += 5
		}
		return
	}
	for _, e := range engaged {
		l[0].size += len(e.Page) + 5
	}
	l[1].size += 5 + 11*len(engaged)
	l[2].size += 5 + 5*len(engaged)
}

// addEngaged appends a row's engagement to the literals of engagedArrays: NULL in each when
// the row carries none (the upsert then keeps the row's).
func addEngaged(l []literal, engaged []EngagedPage) {
	if len(engaged) == 0 {
		for i := range l {
			l[i].addNull()
		}
		return
	}
	pages := make([]string, len(engaged))
	for i, e := range engaged {
		pages[i] = e.Page
	}
	l[0].addArray(pages)
	l[1].addNumbers(len(engaged), func(i int) int64 { return int64(engaged[i].Millis) })
	l[2].addNumbers(len(engaged), func(i int) int64 { return int64(engaged[i].Depth) })
}

// arraySize is what addArray will take of values, escapes aside.
func arraySize(values []string) int {
	size := 5
	for _, v := range values {
		size += len(v) + 5
	}
	return size
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
	for _, table := range []string{"property_keys", "property_values"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE day = $1`, day.Format(dateLayout)); err != nil {
			return err
		}
	}
	return tx.Commit()
}
