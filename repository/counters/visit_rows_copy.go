package counters

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/stats"
)

// A flush's visit rows go to PostgreSQL by COPY into a temporary table of the connection's
// session, then into visit_rows by one INSERT ... SELECT ... ON CONFLICT, in the flush's
// transaction (docs/cost-of-a-hit.md, "Per flush"). As one statement's arguments, the driver
// built a Bind message of every row's text (growing it by doubling) and copied each argument
// once more: three quarters of what a flush allocated. COPY's lines are written here, a block
// at a time, straight into the driver's buffer.
//
// The temporary table is made by the first flush of each session (CREATE ... IF NOT EXISTS, in
// the flush's transaction, so that it holds behind a pooler that hands out a server session a
// transaction) and kept: making it every flush would write and delete dozens of catalog rows
// each time. ON COMMIT DELETE ROWS empties it at every commit, so the next flush finds it
// empty, and a flush of several chunks empties it before each but the first (TRUNCATE: the
// first gives it a new file, the later ones cut that file in place; a DELETE of every chunk's
// rows cost a sixth of the backend's time of a flush); a flush that fails rolls back its COPY
// with the rest. The table is not partitioned: the INSERT into visit_rows routes each row to
// its day's partition as before.

// rowStatements are the statements of the visit rows' write, made from stats.Dimensions.
type rowStatements struct {
	dims   int
	create string // makes the session's table, when it has none
	empty  string // empties it
	copy   string // COPY into it
	insert string // upserts its rows into visit_rows
}

// rowWrite is rowStatements made at the first write, and again only when stats.Dimensions
// has grown since (as a test's that declares one more).
var rowWrite struct {
	sync.Mutex
	statements rowStatements
}

// visitRowStatements are the statements of the current stats.Dimensions.
func visitRowStatements() rowStatements {
	rowWrite.Lock()
	defer rowWrite.Unlock()
	if rowWrite.statements.insert == "" || rowWrite.statements.dims != len(stats.Dimensions) {
		rowWrite.statements = buildRowStatements(stats.Dimensions)
	}
	return rowWrite.statements
}

// rowColumn is a column of visit_rows that the flush writes, with its type.
type rowColumn struct{ name, typ string }

// appendedColumns are the arrays (and hit_order, a letter a hit) a later write of a row
// appends to, in the order of a COPY line; then engagedColumns, which it replaces.
var appendedColumns = []rowColumn{{"pages", "text[]"}, {"events", "text[]"}, {"event_names", "text[]"},
	{"hit_order", "text"}, {"props", "text[]"}, {"revenue_names", "text[]"}, {"revenue_currencies", "text[]"},
	// Exact decimals, never floating point (migration 0030).
	{"revenue_amounts", "numeric[]"}}

// engagedColumns are the engagement columns (migration 0025): aligned, one element per page the
// visit sent engagement for; all three NULL when a write carries none.
var engagedColumns = []rowColumn{{"engaged_pages", "text[]"}, {"engaged_ms", "integer[]"}, {"scroll_depth", "smallint[]"}}

// buildRowStatements makes the statements of dims. The COPY line has the row's own columns,
// then a text column a dimension in the order of dims, then appendedColumns and
// engagedColumns (appendRowLine). On conflict the visit's values (stats.FromVisit) are
// replaced, the first hit's kept, the arrays and the hit order appended to, the pageviews
// added, and the engagement replaced when the write carries some; a write that would take the
// row past its bounds (rowFits) is not applied.
func buildRowStatements(dims []stats.Dimension) rowStatements {
	columns := []rowColumn{{"website_id", "bigint"}, {"day", "date"}, {"visitor", "integer"}, {"id", "bigint"},
		{"hour", "smallint"}, {"pageviews", "integer"}, {"seconds", "integer"}, {"bounce", "boolean"}}
	var replaced []string
	for _, d := range dims {
		c := pq.QuoteIdentifier(d.Column)
		columns = append(columns, rowColumn{c, "text"})
		if d.From == stats.FromVisit {
			replaced = append(replaced, c+" = EXCLUDED."+c)
		}
	}
	var appends []string
	for _, c := range appendedColumns {
		columns = append(columns, c)
		// || of a NULL array (props and revenue of a write without any) is the other one.
		appends = append(appends, c.name+" = v."+c.name+" || EXCLUDED."+c.name)
	}
	for _, c := range engagedColumns {
		columns = append(columns, c)
		replaced = append(replaced, fmt.Sprintf("%s = coalesce(EXCLUDED.%[1]s, v.%[1]s)", c.name))
	}
	names, defined := make([]string, len(columns)), make([]string, len(columns))
	for i, c := range columns {
		names[i], defined[i] = c.name, c.name+" "+c.typ
	}
	list, definition := strings.Join(names, ", "), strings.Join(defined, ", ")
	// Named after its columns: a session that made the table of other columns keeps it and
	// makes this one beside it.
	h := fnv.New32a()
	h.Write([]byte(definition))
	table := fmt.Sprintf("pg_temp.visit_rows_in_%08x", h.Sum32())
	return rowStatements{
		dims:   len(dims),
		create: `CREATE TEMP TABLE IF NOT EXISTS ` + table + ` (` + definition + `) ON COMMIT DELETE ROWS`,
		empty:  `TRUNCATE ` + table,
		copy:   `COPY ` + table + ` (` + list + `) FROM STDIN`,
		insert: `
		INSERT INTO visit_rows AS v (` + list + `)
		SELECT ` + list + ` FROM ` + table + ` AS t
		WHERE t.day IN (SELECT day FROM visit_row_partitions)
			AND t.website_id IN (SELECT id FROM websites)
		ORDER BY 1, 2, 3, 4
		ON CONFLICT (website_id, day, visitor, id) DO UPDATE SET
			` + strings.Join(appends, ",\n\t\t\t") + `,
			pageviews = v.pageviews + EXCLUDED.pageviews,
			` + strings.Join(append(replaced, "bounce = EXCLUDED.bounce", "seconds = EXCLUDED.seconds"), ",\n\t\t\t") + `
		WHERE ` + rowFits(),
	}
}

// rowFits is the condition under which a later write of a row is applied: the row and the
// write together within the bounds of a row (stats.MaxRowHits, MaxRowProps and
// MaxRowStoredBytes, the stored size of the growing columns). The collector keeps the bounds
// itself (ingest.Visits.keepRow), and each write is held to them (boundWrite): this is the
// last of three guards, so that no bug can grow a row without end, and it never holds back a
// row the collector kept. A write not applied is counted with the rows skipped (the rows'
// writer's RowsDropped). Its sizes are read from the rows' headers (octet_length,
// pg_column_size), without reading the arrays themselves, but for cardinality(props).
func rowFits() string {
	var sizes []string
	for _, c := range appendedColumns {
		sizes = append(sizes, "coalesce(pg_column_size(v."+c.name+"), 0)", "coalesce(pg_column_size(EXCLUDED."+c.name+"), 0)")
	}
	for _, c := range engagedColumns { // replaced, not appended: the write's, else the row's
		sizes = append(sizes, "coalesce(pg_column_size(EXCLUDED."+c.name+"), pg_column_size(v."+c.name+"), 0)")
	}
	return fmt.Sprintf(`octet_length(v.hit_order) + octet_length(EXCLUDED.hit_order) <= %d
			AND coalesce(cardinality(v.props), 0) + coalesce(cardinality(EXCLUDED.props), 0) <= %d
			AND %s <= %d`, stats.MaxRowHits, stats.MaxRowProps, strings.Join(sizes, " + "), stats.MaxRowStoredBytes)
}

// copyVisitRows sends rows from..to-1 to the session's table by COPY, in tx's connection, but
// those skip says to skip (skip[i - from]; nil: none).
func copyVisitRows(ctx context.Context, conn *sqlx.Conn, copyQuery string, rows VisitRows, from, to int, skip []bool, dims int, capped *propCap) error {
	var (
		r       VisitRow
		day     time.Time
		dayText string
	)
	var kept []int // the rows written, when some are skipped
	if skip != nil {
		for i, s := range skip {
			if !s {
				kept = append(kept, from+i)
			}
		}
		if len(kept) == 0 {
			return nil
		}
	}
	n := to - from
	if skip != nil {
		n = len(kept)
	}
	return copyLines(ctx, conn, copyQuery, n, func(b []byte, i int) []byte {
		if skip != nil {
			rows.Row(kept[i], &r)
		} else {
			rows.Row(from+i, &r)
		}
		boundWrite(&r)
		if i == 0 || !r.Day.Equal(day) { // a chunk's rows are of a day or two
			day, dayText = r.Day, r.Day.Format(dateLayout)
		}
		return appendRowLine(b, &r, dims, dayText, capped)
	})
}

// boundWrite holds one write of a row to the bounds of a whole row (stats.MaxRowHits and the
// others), which a collector that keeps them never passes: past them, the write carries none
// of its hits, properties, revenue or engagement (which are aligned with each other in ways a
// cut in the middle could break), only its pageviews, values and end. It says whether it cut.
func boundWrite(r *VisitRow) bool {
	hitBytes := 0
	for _, list := range [][]string{r.Pages, r.Events, r.EventNames, r.RevenueNames, r.RevenueCurrencies, r.RevenueAmounts} {
		for _, v := range list {
			hitBytes += len(v)
		}
	}
	propBytes := 0
	for _, p := range r.Props {
		propBytes += len(p)
	}
	engagedBytes := 0
	for _, e := range r.Engaged {
		engagedBytes += len(e.Page)
	}
	if len(r.Order) <= stats.MaxRowHits && len(r.Pages)+len(r.Events) <= stats.MaxRowHits && hitBytes <= stats.MaxRowHitBytes &&
		len(r.Props) <= stats.MaxRowProps && propBytes <= stats.MaxRowPropBytes &&
		len(r.Engaged) <= stats.MaxRowEngagedPages && engagedBytes <= stats.MaxRowEngagedBytes {
		return false
	}
	r.Pages, r.Events, r.EventNames, r.Order, r.Props = r.Pages[:0], r.Events[:0], r.EventNames[:0], r.Order[:0], r.Props[:0]
	r.RevenueNames, r.RevenueCurrencies, r.RevenueAmounts, r.Engaged = r.RevenueNames[:0], r.RevenueCurrencies[:0], r.RevenueAmounts[:0], r.Engaged[:0]
	return true
}

// appendRowLine appends r to b as a line of COPY's text format, without its newline: its
// columns in the order of buildRowStatements, separated by tabs; day is r.Day's text. Its
// props are written as capped decided.
func appendRowLine(b []byte, r *VisitRow, dims int, day string, capped *propCap) []byte {
	b = strconv.AppendInt(b, r.WebsiteID, 10)
	b = append(b, '\t')
	b = append(b, day...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.Visitor), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, r.ID, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.Hour), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.Pageviews), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(min(r.Seconds, math.MaxInt32)), 10)
	b = append(b, '\t', 'f')
	if r.Bounce {
		b[len(b)-1] = 't'
	}
	for _, v := range r.Values[:dims] {
		b = append(b, '\t')
		b = appendCopyText(b, v)
	}
	b = appendCopyArray(b, r.Pages, false)
	b = appendCopyArray(b, r.Events, false)
	b = appendCopyArray(b, r.EventNames, false)
	b = append(b, '\t')
	for _, c := range r.Order {
		b = appendCopyByte(b, c)
	}
	b = append(b, '\t')
	b = appendCopyProps(b, r, day, capped)
	b = appendCopyArray(b, r.RevenueNames, true)
	b = appendCopyArray(b, r.RevenueCurrencies, true)
	b = appendCopyArray(b, r.RevenueAmounts, true)
	return appendCopyEngaged(b, r.Engaged)
}

// copyNull is COPY's NULL: an escaped value never reads as it (a \ is written \\).
const copyNull = `\N`

// appendCopyText appends v as a COPY field: its backslashes, tabs, newlines and carriage
// returns escaped; any other byte is itself.
func appendCopyText(b []byte, v string) []byte {
	if !strings.ContainsAny(v, "\\\t\n\r") {
		return append(b, v...)
	}
	for i := 0; i < len(v); i++ {
		b = appendCopyByte(b, v[i])
	}
	return b
}

func appendCopyByte(b []byte, c byte) []byte {
	switch c {
	case '\\':
		return append(b, '\\', '\\')
	case '\t':
		return append(b, '\\', 't')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	}
	return append(b, c)
}

// appendCopyArray appends a tab and the array literal of values as a COPY field: each
// element quoted, its quotes and backslashes escaped for the literal, and the literal escaped
// for COPY. Empty, it is {} or, if emptyNull, NULL.
func appendCopyArray(b []byte, values []string, emptyNull bool) []byte {
	b = append(b, '\t')
	if len(values) == 0 && emptyNull {
		return append(b, copyNull...)
	}
	b = append(b, '{')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCopyElement(b, v)
	}
	return append(b, '}')
}

// appendCopyElement appends v as a quoted element of an array literal, escaped for COPY: a
// quote is \" in the literal, \\" in COPY; a backslash \\ in the literal, \\\\ in COPY.
func appendCopyElement(b []byte, v string) []byte {
	b = append(b, '"')
	if !strings.ContainsAny(v, "\"\\\t\n\r") {
		b = append(b, v...)
		return append(b, '"')
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '"' || c == '\\' {
			b = append(b, '\\', '\\')
		}
		b = appendCopyByte(b, v[i])
	}
	return append(b, '"')
}

// appendCopyProps appends r's property pairs as a COPY field (NULL for none), each as capped
// decided (capProps).
func appendCopyProps(b []byte, r *VisitRow, day string, capped *propCap) []byte {
	if len(r.Props) == 0 {
		return append(b, copyNull...)
	}
	b = append(b, '{')
	for i, pair := range r.Props {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCopyElement(b, capped.pair(r.WebsiteID, day, pair))
	}
	return append(b, '}')
}

// appendCopyEngaged appends the three engagement fields of a row (engagedColumns), each with
// its tab: NULL in each when the row carries none (the upsert then keeps the row's); an
// element NULL where a page had no engaged time or no scroll depth (-1).
func appendCopyEngaged(b []byte, engaged []EngagedPage) []byte {
	if len(engaged) == 0 {
		return append(b, "\t"+copyNull+"\t"+copyNull+"\t"+copyNull...)
	}
	b = append(b, '\t', '{')
	for i, e := range engaged {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCopyElement(b, e.Page)
	}
	b = append(b, '}', '\t', '{')
	for i, e := range engaged {
		b = appendNumberElement(b, i, int64(e.Millis))
	}
	b = append(b, '}', '\t', '{')
	for i, e := range engaged {
		b = appendNumberElement(b, i, int64(e.Depth))
	}
	return append(b, '}')
}

// appendNumberElement appends element i of an array literal of numbers: NULL when v is
// negative (none).
func appendNumberElement(b []byte, i int, v int64) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	if v < 0 {
		return append(b, "NULL"...)
	}
	return strconv.AppendInt(b, v, 10)
}
