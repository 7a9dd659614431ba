package stats

// Bounds of one visit's row of visit_rows (docs/filters.md, "Bounds of a visit's row"): what
// its arrays may hold however long the visit goes on and whatever its hits carry. The
// collector stops adding to a row at them, while the visit's hits still count in the daily
// counters (and its row's pageviews, duration and exit page still follow it); the rows'
// writer holds every write to them again, so that no bug of the collector can grow a row
// without end.
const (
	// MaxRowHits bounds the pageviews and events a row lists: pages and events together, one
	// letter each in hit_order; event_names and the revenue arrays follow the events.
	MaxRowHits = 1000
	// MaxRowHitBytes bounds the bytes of the texts of those hits: pages, events, event names
	// and revenue (name, currency and amount).
	MaxRowHitBytes = 64 << 10
	// MaxRowProps and MaxRowPropBytes bound the property pairs a row lists (props), and their
	// bytes (key, separator and value).
	MaxRowProps     = 1000
	MaxRowPropBytes = 64 << 10
	// MaxRowEngagedPages and MaxRowEngagedBytes bound the pages a visit keeps engagement (time
	// on page, scroll depth) for, and the bytes of those pages; the row's engagement is
	// replaced by each write, never appended to.
	MaxRowEngagedPages = 64
	MaxRowEngagedBytes = 16 << 10
	// MaxRowStoredBytes is what the writer lets the growing columns of a row take in
	// PostgreSQL (pg_column_size: their stored size, compressed or not). Rows within the
	// bounds above take at most about 150 KiB; a write that would take a row past this one is
	// not applied.
	MaxRowStoredBytes = 256 << 10
)
