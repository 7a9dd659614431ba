// Package column is the column store: a DuckDB file beside the service holding the visit-level
// columns of the closed days' visit rows (docs/big-sites.md), which the query engine reads
// instead of PostgreSQL for those days, 5 to 20 times faster. It is derived data: the service
// copies each closed day from PostgreSQL by itself (Sync), a missing, unreadable or older
// file is made again from it, and deleting the file loses nothing. Each node keeps its own
// file; a day the file does not hold is read from PostgreSQL, so two nodes on one database
// answer alike.
package column

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository/counters"
	"github.com/analytics-service/analytics/repository/ttlcache"
	"github.com/analytics-service/analytics/stats"
)

// schemaVersion names the file's layout: a file of another version is made again.
const schemaVersion = 6

// FileName is the store's file in its directory.
const FileName = "visits.duckdb"

// Store is the column store of one node.
type Store struct {
	db   *sql.DB
	path string
	mu   sync.RWMutex
	// held are the days the file holds whole, by website, each with the website's
	// rows_generation when it was copied: a later deletion of its rows makes the copy stale
	// (Forget).
	held   map[int64]map[time.Time]heldDay
	copies uint64 // the copies made so far: each held day's copy has its own number
	// funnels are funnel parts' counts, by the statement and the copies it read (funnelKey).
	funnels *ttlcache.Cache[string, FunnelCounts]
	// funnelDays are unfiltered funnels' counts, by day and copy (funnel_days.go).
	funnelDays *ttlcache.Cache[funnelDay, FunnelCounts]
	kept       *selections // the selections' tables (selections.go)
	// ListedPages is how many pages a page filter or a pageview goal's filter at most tests
	// on each visit's list (one list_contains each, defaultListedPages); one of more joins
	// its selection (selections.go).
	ListedPages int
	// checked: the file's days are of the database Sync reads (sameSource); none is read before.
	checked bool
	sync    sync.Mutex // one Sync at a time
}

// DefaultDir is where the service keeps the file when COLUMN_STORE_DIR does not say: the
// user's cache directory (derived data), else the system's temporary directory.
func DefaultDir() string {
	if dir := os.Getenv("COLUMN_STORE_DIR"); dir != "" {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "analytics")
	}
	return filepath.Join(os.TempDir(), "analytics")
}

// opened are the stores this process has open, by file: DuckDB lets one process open a file
// twice, and two stores of one file (two nodes in one process, as tests run them) would each
// copy a day into it. Open hands out the one Store of a file, Close closes it with its last
// user.
var opened = struct {
	sync.Mutex
	stores map[string]*Store
	users  map[string]int
}{stores: map[string]*Store{}, users: map[string]int{}}

// Open opens (or makes) the store's file in dir; one it cannot read, or of another layout,
// is removed and made again, empty: Sync fills it. Opened again in the same process, it is
// the same Store.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("column store: %w", err)
	}
	path := filepath.Join(dir, FileName)
	opened.Lock()
	defer opened.Unlock()
	if s, ok := opened.stores[path]; ok {
		opened.users[path]++
		return s, nil
	}
	s, err := openOrRemake(path)
	if err != nil {
		return nil, err
	}
	opened.stores[path], opened.users[path] = s, 1
	return s, nil
}

func openOrRemake(path string) (*Store, error) {
	s, err := open(path)
	if err == nil {
		return s, nil
	}
	for _, p := range []string{path, path + ".wal"} {
		if rmErr := os.Remove(p); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return nil, fmt.Errorf("column store: %w (and remove: %v)", err, rmErr)
		}
	}
	return open(path)
}

func open(path string) (*Store, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, fmt.Errorf("column store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, held: map[int64]map[time.Time]heldDay{}, funnels: newFunnelCache(), funnelDays: newFunnelDays(), kept: newSelections(),
		ListedPages: defaultListedPages}
	if err := s.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("column store: %s: %w", path, err)
	}
	return s, nil
}

// Checkpoint writes the file's log into the file (DuckDB's CHECKPOINT), so that its size is
// the data's.
func (s *Store) Checkpoint() error {
	if _, err := s.db.Exec(`CHECKPOINT`); err != nil {
		return fmt.Errorf("column store: checkpoint: %w", err)
	}
	return nil
}

// Close ends one use of the store (Open); the last closes the file.
func (s *Store) Close() error {
	opened.Lock()
	defer opened.Unlock()
	if opened.users[s.path]--; opened.users[s.path] > 0 {
		return nil
	}
	delete(opened.stores, s.path)
	delete(opened.users, s.path)
	return s.db.Close()
}

// prepare makes the tables of a new file, refuses one of another version, drops the rows of a
// day whose copy did not finish, and reads which days the file holds.
func (s *Store) prepare() error {
	if _, err := s.db.Exec(`ATTACH IF NOT EXISTS ':memory:' AS kept`); err != nil {
		return fmt.Errorf("attach the selections' database: %w", err)
	}
	var version int
	err := s.db.QueryRow(`SELECT version FROM meta`).Scan(&version)
	if err != nil {
		if _, err := s.db.Exec(schemaSQL()); err != nil {
			return fmt.Errorf("make tables: %w", err)
		}
		version = schemaVersion
	}
	if version != schemaVersion {
		return fmt.Errorf("layout %d, not %d", version, schemaVersion)
	}
	for _, table := range dayTables[1:] {
		if _, err := s.db.Exec(`DELETE FROM ` + table + ` WHERE (website_id, day) NOT IN (SELECT (website_id, day) FROM days)`); err != nil {
			return fmt.Errorf("drop unfinished days: %w", err)
		}
	}
	rows, err := s.db.Query(`SELECT website_id, day, generation FROM days`)
	if err != nil {
		return fmt.Errorf("read days: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var site, generation int64
		var day time.Time
		if err := rows.Scan(&site, &day, &generation); err != nil {
			return fmt.Errorf("read days: %w", err)
		}
		s.markHeld(site, day, generation)
	}
	return rows.Err()
}

// textColumns are the visit-level columns the file holds: every visit-level statistic's.
func textColumns() []string {
	cols := make([]string, len(stats.Dimensions))
	for i, d := range stats.Dimensions {
		cols[i] = d.Column
	}
	return cols
}

// dayTables are the file's tables by website and day: days, the days held, first (a day's
// rows without its row there are an unfinished copy).
var dayTables = []string{"days", "visits", "pages"}

// schemaSQL makes the file's tables. visits is one row a visit row: its visit-level values,
// its pageviews, custom events (cardinality(events)), bounce and seconds, rkey: its
// visitor-day as one number (the query engine's repeatKey) when that visitor-day has several
// visits, NULL when it has one, so that visitors are counted without a distinct count of most,
// its visitor, and its hits for the hit-level questions: its pages in order (one a pageview),
// its events' names as sent (names, one an event) and, for a row written before names were
// kept, the names its events hold encoded (oldnames; see oldNamesSQL), its events as the
// event statistic writes them (evs: name:value:unit, one an event), which v1's event lists
// count, its engagement (engagementSQL) and the custom properties its hits carried (props: the
// rows' KEY, 0x1F, VALUE a hit and property), which property filters test, and where its
// events came among its pages (evat: how many pages came before each of names; eventsAt),
// which funnels walk, and its vid: the day's number (days since 2000-01-01) << 32 | its place in
// the day's copy, one number a visit of the website, which selections name visits by
// (selections.go). pages is each day's distinct pages with their pageviews, which goals and
// funnels match their patterns with (Pages). A day's visits are written in visitor order, so
// that a sampled read (Part.Fraction: the visitors below a cut) skips the row groups past it
// by their min and max.
func schemaSQL() string {
	var cols strings.Builder
	for _, c := range textColumns() {
		fmt.Fprintf(&cols, ", %s VARCHAR NOT NULL", c)
	}
	return fmt.Sprintf(`CREATE TABLE meta (version INTEGER NOT NULL, source VARCHAR NOT NULL);
		INSERT INTO meta VALUES (%d, '');
		CREATE TABLE days (website_id BIGINT NOT NULL, day DATE NOT NULL, generation BIGINT NOT NULL, PRIMARY KEY (website_id, day));
		CREATE TABLE visits (website_id BIGINT NOT NULL, day DATE NOT NULL, hour SMALLINT NOT NULL,
			pageviews INTEGER NOT NULL, events INTEGER NOT NULL, bounce BOOLEAN NOT NULL, seconds INTEGER NOT NULL,
			rkey BIGINT, visitor INTEGER NOT NULL, pages VARCHAR[] NOT NULL, names VARCHAR[] NOT NULL,
			oldnames VARCHAR[] NOT NULL, evs VARCHAR[] NOT NULL,
			eng_pages VARCHAR[] NOT NULL, eng_ms BIGINT[] NOT NULL, eng_depth BIGINT[] NOT NULL, props VARCHAR[] NOT NULL, evat INTEGER[] NOT NULL%s, vid BIGINT NOT NULL);
		CREATE TABLE pages (website_id BIGINT NOT NULL, day DATE NOT NULL, page VARCHAR NOT NULL, pageviews BIGINT NOT NULL);`, schemaVersion, cols.String())
}

// heldDay is a day's copy in the file: the website's rows_generation when it was made, and
// its number among the copies this Store made (a copy made again is another one).
type heldDay struct {
	generation int64
	copy       uint64
}

func (s *Store) markHeld(site int64, day time.Time, generation int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[site] == nil {
		s.held[site] = map[time.Time]heldDay{}
	}
	s.copies++
	s.held[site][dayOf(day)] = heldDay{generation: generation, copy: s.copies}
}

// Forget makes not held the website's days copied at a generation older than now's, whose
// rows PostgreSQL may have deleted since (a stats reset, retention): reads take them from
// PostgreSQL until Sync copies them again. Every read of a website calls it first with its
// generation now (GenerationOf), so that a deletion made on any node counts at once.
func (s *Store) Forget(site, now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for day, then := range s.held[site] {
		if then.generation < now {
			delete(s.held[site], day)
		}
	}
}

// GenerationOf is the website's rows_generation, which every deletion of its visit rows
// raises in the deletion's transaction: one probe of a primary key.
func GenerationOf(ctx context.Context, pg *sql.DB, site int64) (int64, error) {
	var g int64
	err := pg.QueryRowContext(ctx, `SELECT rows_generation FROM websites WHERE id = $1`, site).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // a read of no website reads no rows of it
	}
	if err != nil {
		return 0, fmt.Errorf("column store: generation of %d: %w", site, err)
	}
	return g, nil
}

func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// HeldThrough is the last day of the run of days from..to, from from on and none after closed,
// that the file holds for the website; ok is false when it does not hold from.
func (s *Store) HeldThrough(site int64, from, to, closed time.Time) (last time.Time, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	held := s.held[site]
	if !s.checked {
		return time.Time{}, false
	}
	for day := dayOf(from); !day.After(dayOf(to)) && !day.After(dayOf(closed)) && hasDay(held, day); day = day.AddDate(0, 0, 1) {
		last, ok = day, true
	}
	return last, ok
}

func hasDay(held map[time.Time]heldDay, day time.Time) bool {
	_, ok := held[day]
	return ok
}

// Sync copies into the file every day through lastClosed that PostgreSQL has visit rows of
// and the file lacks, and drops the days PostgreSQL no longer has (their partition dropped,
// their website deleted). A day is copied whole in one transaction, so a stopped Sync leaves
// whole days only.
func (s *Store) Sync(ctx context.Context, pg *sql.DB, lastClosed time.Time) error {
	s.sync.Lock()
	defer s.sync.Unlock()
	if err := s.sameSource(ctx, pg); err != nil {
		return err
	}
	if err := s.dropGone(ctx, pg); err != nil {
		return err
	}
	rows, err := pg.QueryContext(ctx, `SELECT w.id, p.day FROM visit_row_partitions AS p CROSS JOIN websites AS w
		WHERE p.day <= $1 ORDER BY p.day, w.id`, lastClosed.Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("column store: days to copy: %w", err)
	}
	type siteDay struct {
		site int64
		day  time.Time
	}
	var todo []siteDay
	for rows.Next() {
		var d siteDay
		if err := rows.Scan(&d.site, &d.day); err != nil {
			rows.Close()
			return fmt.Errorf("column store: days to copy: %w", err)
		}
		if _, ok := s.HeldThrough(d.site, d.day, d.day, d.day); !ok {
			todo = append(todo, d)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("column store: days to copy: %w", err)
	}
	for _, d := range todo {
		if err := s.copyDay(ctx, pg, d.site, d.day); err != nil {
			return err
		}
	}
	return nil
}

// sourceSQL names the database the file was copied from: its oid in its cluster and when its
// first user was made, so that a file left by another database (a throw-away cluster's, one
// made again) is never read as this one's.
const sourceSQL = `SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::text || ' ' ||
	coalesce((SELECT created_at FROM users ORDER BY id LIMIT 1)::text, '')`

// sameSource empties the file when it was copied from another database than pg.
func (s *Store) sameSource(ctx context.Context, pg *sql.DB) error {
	var source, kept string
	if err := pg.QueryRowContext(ctx, sourceSQL).Scan(&source); err != nil {
		return fmt.Errorf("column store: name the database: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT source FROM meta`).Scan(&kept); err != nil {
		return fmt.Errorf("column store: read its database: %w", err)
	}
	if kept == source {
		s.mu.Lock()
		s.checked = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Lock()
	s.held, s.checked = map[int64]map[time.Time]heldDay{}, true
	s.mu.Unlock()
	var stmts []string
	for _, table := range dayTables {
		stmts = append(stmts, `DELETE FROM `+table)
	}
	for _, stmt := range append(stmts, `UPDATE meta SET source = ?`) {
		args := []any{}
		if strings.Contains(stmt, "?") {
			args = append(args, source)
		}
		if _, err := s.db.ExecContext(ctx, stmt, args...); err != nil {
			return fmt.Errorf("column store: empty for another database: %w", err)
		}
	}
	return nil
}

// dropGone drops the days of websites PostgreSQL no longer has, and those before its oldest
// partition (FACTS_RETENTION).
func (s *Store) dropGone(ctx context.Context, pg *sql.DB) error {
	var oldest sql.NullTime
	if err := pg.QueryRowContext(ctx, `SELECT min(day) FROM visit_row_partitions`).Scan(&oldest); err != nil {
		return fmt.Errorf("column store: oldest day: %w", err)
	}
	var sites []int64
	rows, err := pg.QueryContext(ctx, `SELECT id FROM websites`)
	if err != nil {
		return fmt.Errorf("column store: websites: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("column store: websites: %w", err)
		}
		sites = append(sites, id)
	}
	rows.Close()
	kept := map[int64]bool{}
	for _, id := range sites {
		kept[id] = true
	}
	s.mu.Lock()
	var gone []int64
	for site, days := range s.held {
		if !kept[site] {
			gone = append(gone, site)
			delete(s.held, site)
			continue
		}
		for day := range days {
			if oldest.Valid && day.Before(dayOf(oldest.Time)) {
				delete(days, day)
			}
		}
	}
	s.mu.Unlock()
	for _, site := range gone {
		for _, table := range dayTables {
			if _, err := s.db.ExecContext(ctx, `DELETE FROM `+table+` WHERE website_id = ?`, site); err != nil {
				return fmt.Errorf("column store: drop website %d: %w", site, err)
			}
		}
	}
	if oldest.Valid {
		for _, table := range dayTables {
			if _, err := s.db.ExecContext(ctx, `DELETE FROM `+table+` WHERE day < ?`, dayOf(oldest.Time)); err != nil {
				return fmt.Errorf("column store: drop old days: %w", err)
			}
		}
	}
	return nil
}

// oldNamesSQL is the SQL of a visit row's event names as its events hold them encoded when
// it was written before event_names was kept (the query engine's rule, oldRow in
// repository/goals_read.go: such a row has events but no event names, and each event holds
// its name, a ':' as a space, before the first ':'), and none for any other row.
const oldNamesSQL = `CASE WHEN event_names = '{}' AND events <> '{}' THEN ARRAY(SELECT split_part(e, ':', 1) FROM unnest(events) AS e) ELSE '{}' END`

// engagementSQL is the SQL of a visit row's engagement: the pages it sent engagement for and,
// aligned with them, its engaged milliseconds and deepest scroll depth on each (NULL where it
// sent none of that kind). The file keeps them as eng_pages, eng_ms and eng_depth, -1 for the
// rows' NULL element (engagementList), empty lists for a row without engagement.
const engagementSQL = `engaged_pages, engaged_ms, scroll_depth`

// engagementList is an engagement array as the file keeps it: -1 for NULL, empty for none.
func engagementList(a []sql.NullInt64) []int64 {
	out := make([]int64, len(a))
	for i, x := range a {
		out[i] = -1
		if x.Valid {
			out[i] = x.Int64
		}
	}
	return out
}

// eventsAt is, for each of a row's events (names), how many of its pages came before it, from
// its hit_order: one letter a hit, counters.HitPage or HitEvent. A row whose order does not
// add up to its pages and events (none is known to) has its events after its pages, as the
// funnels' walk of the rows takes it (repository/funnel).
func eventsAt(order string, pages, events int) []int32 {
	out := make([]int32, 0, events)
	if len(order) != pages+events {
		for range events {
			out = append(out, int32(pages))
		}
		return out
	}
	before := int32(0)
	for i := range len(order) {
		switch order[i] {
		case counters.HitPage:
			before++
		case counters.HitEvent:
			out = append(out, before)
		}
	}
	if len(out) != events {
		return eventsAt("", pages, events)
	}
	return out
}

// Pages are the distinct pages of the website's rows of the days from..to that the file
// holds, with their pageviews.
func (s *Store) Pages(ctx context.Context, site int64, from, to time.Time) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.scanEach(ctx, `SELECT page, sum(pageviews)::BIGINT FROM pages WHERE website_id = $1 AND day BETWEEN $2 AND $3 GROUP BY page`,
		[]any{site, dayOf(from), dayOf(to)}, func(rows *sql.Rows) error {
			var page string
			var n int64
			err := rows.Scan(&page, &n)
			out[page] = n
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("column store: pages: %w", err)
	}
	return out, nil
}

// nonNil is an array's values, an empty list for none.
func nonNil(a pq.StringArray) pq.StringArray {
	if a == nil {
		return pq.StringArray{}
	}
	return a
}

// copyDay copies a website's visit rows of a day, then marks the day held.
func (s *Store) copyDay(ctx context.Context, pg *sql.DB, site int64, day time.Time) error {
	cols := textColumns()
	// The generation is read before the rows: a deletion during the copy makes it stale,
	// never current.
	generation, err := GenerationOf(ctx, pg, site)
	if err != nil {
		return err
	}
	src, err := pg.QueryContext(ctx, `SELECT hour, pageviews, cardinality(events), bounce, seconds,
			CASE WHEN count(*) OVER (PARTITION BY visitor) > 1 THEN visitor END, visitor, pages, event_names, `+oldNamesSQL+`, events, `+engagementSQL+`, coalesce(props, '{}'), hit_order, `+strings.Join(cols, ", ")+`
		FROM visit_rows WHERE website_id = $1 AND day = $2
		ORDER BY visitor`, site, day.Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("column store: read day %s of %d: %w", day.Format(time.DateOnly), site, err)
	}
	defer src.Close()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("column store: %w", err)
	}
	defer conn.Close()
	// A day copied again (after a deletion, Forget) replaces its old copy.
	for _, table := range dayTables {
		if _, err := conn.ExecContext(ctx, `DELETE FROM `+table+` WHERE website_id = ? AND day = ?`, site, dayOf(day)); err != nil {
			return fmt.Errorf("column store: drop the old copy of %s of %d: %w", day.Format(time.DateOnly), site, err)
		}
	}
	dayNumber := int64(dayOf(day).Sub(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	err = conn.Raw(func(raw any) error {
		app, err := duckdb.NewAppenderFromConn(raw.(driver.Conn), "", "visits")
		if err != nil {
			return err
		}
		const fixed = 18                                  // the columns before the visit-level values
		values := make([]driver.Value, fixed+len(cols)+1) // vid last
		scan := make([]any, fixed-2+len(cols))
		var hour, pageviews, events, seconds, visitor int64
		var bounce bool
		var repeated sql.NullInt64
		var pages, names, oldNames, evs, engPages, props pq.StringArray
		var engMs, engDepth []sql.NullInt64
		var order string
		var place int64
		texts := make([]string, len(cols))
		copy(scan, []any{&hour, &pageviews, &events, &bounce, &seconds, &repeated, &visitor, &pages, &names, &oldNames, &evs,
			&engPages, pq.Array(&engMs), pq.Array(&engDepth), &props, &order})
		for i := range texts {
			scan[fixed-2+i] = &texts[i]
		}
		for src.Next() {
			if err := src.Scan(scan...); err != nil {
				app.Close()
				return err
			}
			var rkey driver.Value
			if repeated.Valid {
				rkey = dayNumber<<32 | (repeated.Int64 & 0xFFFFFFFF)
			}
			copy(values, []driver.Value{site, dayOf(day), int16(hour), int32(pageviews), int32(events), bounce, int32(seconds), rkey,
				int32(visitor), []string(nonNil(pages)), []string(nonNil(names)), []string(nonNil(oldNames)), []string(nonNil(evs)),
				[]string(nonNil(engPages)), engagementList(engMs), engagementList(engDepth), []string(nonNil(props)), eventsAt(order, len(pages), len(names))})
			for i, t := range texts {
				values[fixed+i] = t
			}
			values[len(values)-1] = dayNumber<<32 | place
			place++
			if err := app.AppendRow(values...); err != nil {
				app.Close()
				return err
			}
		}
		if err := src.Err(); err != nil {
			app.Close()
			return err
		}
		return app.Close()
	})
	if err == nil {
		_, err = conn.ExecContext(ctx, `INSERT INTO pages SELECT website_id, day, page, count(*)
			FROM (SELECT website_id, day, unnest(pages) AS page FROM visits WHERE website_id = ? AND day = ?) AS h
			GROUP BY website_id, day, page`, site, dayOf(day))
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, `INSERT INTO days VALUES (?, ?, ?)`, site, dayOf(day), generation)
	}
	if err != nil {
		// The rows written without their day in days are dropped, here or at the next Open.
		for _, table := range dayTables[1:] {
			_, _ = conn.ExecContext(context.Background(), `DELETE FROM `+table+` WHERE website_id = ? AND day = ?
				AND NOT EXISTS (SELECT 1 FROM days WHERE website_id = ? AND day = ?)`, site, dayOf(day), site, dayOf(day))
		}
		return fmt.Errorf("column store: copy day %s of %d: %w", day.Format(time.DateOnly), site, err)
	}
	s.markHeld(site, day, generation)
	return nil
}
