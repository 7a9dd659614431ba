package column

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A selection is the visits of a part's range one of whose pages a predicate keeps, each with
// how many of its pageviews it keeps (vid, n): what a page filter, a pageview goal's filter
// and its conversions test. Making one reads every pageview of the range (an unnest of each
// visit's pages, about half a second at 100,000 visits a day for 30 days on two cores), and
// a dashboard's ten panels under one page or goal filter each made the same one. So a
// selection is made once, as a table of the in-memory database kept (attached to the file's
// at Open: every connection sees it), and the statements of the same range, predicate and
// copies of the days join with it, for selectionTTL; the visits' vid (their day's number and
// place in the day's copy) names them, as rowid would not (a checkpoint that vacuums deletes
// renumbers rows).
const (
	defaultListedPages = 8
	selectionTTL       = 10 * time.Minute
	// keptRowsMax bounds the rows of every selection kept (16 bytes each): past it the oldest
	// are dropped once no statement reads them.
	keptRowsMax = 16_000_000
)

// selection is what a statement needs made: its key (the statement that makes it, its
// arguments and the copies of the days it reads) and that statement.
type selection struct {
	key, sqlText string
	args         []any
}

// keptSelection is a selection's table: made once (done closes, err says how), read by users
// statements now; retired (past its time, failed or too many rows kept), it is found no more
// and dropped when the last of its users ends.
type keptSelection struct {
	table   string
	made    time.Time
	rows    int64
	users   int
	retired bool
	done    chan struct{}
	err     error
}

// selections are the selections kept, by key.
type selections struct {
	mu    sync.Mutex
	byKey map[string]*keptSelection
	made  int   // tables made so far: each has its own name
	rows  int64 // the rows of those found (byKey)
}

func newSelections() *selections { return &selections{byKey: map[string]*keptSelection{}} }

// selectionMark stands for the table of the statement's selection i until acquire names it.
func selectionMark(i int) string { return fmt.Sprintf("$SEL%d$", i) }

var selectionMarks = regexp.MustCompile(`\$SEL(\d+)\$`)

// withSelections makes (or finds) the statement's selections and returns its text naming
// their tables; release ends the statement's use of them.
func (s *Store) withSelections(ctx context.Context, sqlText string, sels []selection) (string, func(), error) {
	if len(sels) == 0 {
		return sqlText, func() {}, nil
	}
	var used []*keptSelection
	release := func() {
		for _, k := range used {
			s.release(k)
		}
	}
	for _, sel := range sels {
		k, err := s.acquire(ctx, sel)
		if err != nil {
			release()
			return "", nil, err
		}
		used = append(used, k)
	}
	out := selectionMarks.ReplaceAllStringFunc(sqlText, func(m string) string {
		i, _ := strconv.Atoi(selectionMarks.FindStringSubmatch(m)[1])
		return used[i].table
	})
	return out, release, nil
}

// acquire is the selection's table, made now by the first statement that needs it; the others
// wait for it.
func (s *Store) acquire(ctx context.Context, sel selection) (*keptSelection, error) {
	k, mine, unused := s.kept.use(sel.key, time.Now())
	s.drop(unused)
	if mine {
		s.make(ctx, k, sel)
	}
	select {
	case <-k.done:
	case <-ctx.Done():
		s.release(k)
		return nil, fmt.Errorf("column store: selection: %w", ctx.Err())
	}
	if k.err != nil {
		s.release(k)
		return nil, k.err
	}
	return k, nil
}

// use counts a user of the key's selection: the kept one while it is younger than
// selectionTTL and not failed, else a new one that this user makes (mine). The selections
// past their time are retired; unused are those of them no statement reads, to drop.
func (ks *selections) use(key string, now time.Time) (k *keptSelection, mine bool, unused []*keptSelection) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for other, o := range ks.byKey {
		if now.Sub(o.made) >= selectionTTL || o.failed() {
			unused = ks.retire(other, o, unused)
		}
	}
	k, ok := ks.byKey[key]
	if !ok {
		ks.made++
		k = &keptSelection{table: fmt.Sprintf("kept.sel_%d", ks.made), made: now, done: make(chan struct{})}
		ks.byKey[key] = k
	}
	k.users++
	return k, !ok, unused
}

func (k *keptSelection) failed() bool {
	select {
	case <-k.done:
		return k.err != nil
	default:
		return false
	}
}

// retire takes the key's selection out of those found (under ks.mu) and adds it to unused
// when no statement reads it, to drop now; else its last user drops it (release).
func (ks *selections) retire(key string, k *keptSelection, unused []*keptSelection) []*keptSelection {
	delete(ks.byKey, key)
	k.retired = true
	ks.rows -= k.rows
	if k.users == 0 {
		unused = append(unused, k)
	}
	return unused
}

// retireAll retires every selection (Store.ForgetKept); it returns those to drop now.
func (ks *selections) retireAll() (unused []*keptSelection) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for key, k := range ks.byKey {
		unused = ks.retire(key, k, unused)
	}
	return unused
}

// make runs the selection's statement into its table; the statement's context may end while
// others wait for the table, so it is made to the end whatever the caller's. Past
// keptRowsMax rows kept, the oldest others are retired.
func (s *Store) make(ctx context.Context, k *keptSelection, sel selection) {
	ctx = context.WithoutCancel(ctx)
	_, err := s.db.ExecContext(ctx, `CREATE TABLE `+k.table+` AS `+sel.sqlText, sel.args...)
	var rows int64 // DuckDB's CREATE TABLE AS says 0 rows affected
	if err == nil {
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+k.table).Scan(&rows)
	}
	var unused []*keptSelection
	s.kept.mu.Lock()
	if err != nil {
		k.err = fmt.Errorf("column store: make selection: %w", err)
	} else if !k.retired {
		k.rows = rows
		s.kept.rows += rows
	}
	for s.kept.rows > keptRowsMax {
		oldestKey, oldest := "", (*keptSelection)(nil)
		for key, o := range s.kept.byKey {
			if o != k && (oldest == nil || o.made.Before(oldest.made)) {
				oldestKey, oldest = key, o
			}
		}
		if oldest == nil {
			break
		}
		unused = s.kept.retire(oldestKey, oldest, unused)
	}
	s.kept.mu.Unlock()
	close(k.done)
	s.drop(unused)
}

// release ends a statement's use of a selection, and drops a retired one's table with its last
// user.
func (s *Store) release(k *keptSelection) {
	s.kept.mu.Lock()
	k.users--
	last := k.retired && k.users == 0
	s.kept.mu.Unlock()
	if last {
		s.drop([]*keptSelection{k})
	}
}

// drop drops the tables of retired selections that no statement reads; one not made (its
// statement failed) is no table: IF EXISTS.
func (s *Store) drop(unused []*keptSelection) {
	for _, k := range unused {
		_, _ = s.db.Exec(`DROP TABLE IF EXISTS ` + k.table)
	}
}

// KeptSelections is how many selection tables the store's kept database holds (tests).
func (s *Store) KeptSelections(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE database_name = 'kept'`).Scan(&n)
	return n, err
}

// placeholders are DuckDB's numbered placeholders in a statement.
var placeholders = regexp.MustCompile(`\$(\d+)`)

// renumber moves the placeholders of a statement's part written from argument from on (those
// after it are its own) to start after the first shift arguments of another statement.
func renumber(sqlText string, from, shift int) string {
	return placeholders.ReplaceAllStringFunc(sqlText, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return "$" + strconv.Itoa(n-from+shift)
	})
}

// selectionOf is the selection of the part's visits one of whose pages (x) pred holds, pred's
// arguments being b.args[from:]; the statement reads its table where selectionMark(i) is.
func (b *partBuild) selectionOf(pred string, from int) string {
	sb := &partBuild{p: b.p}
	rangeCond := sb.rangeCond()
	args := append(sb.args, b.args[from:]...)
	b.args = b.args[:from] // pred's arguments are the selection's alone now
	sqlText := `SELECT vid, count(*)::BIGINT AS n FROM (SELECT vid, unnest(pages) AS x FROM visits WHERE ` + rangeCond +
		`) AS h WHERE ` + renumber(pred, from, len(sb.args)) + ` GROUP BY vid`
	var key strings.Builder
	fmt.Fprintf(&key, "%s\x00%#v\x00%s", sqlText, args, b.s.copiesOf(b.p))
	b.sels = append(b.sels, selection{key: key.String(), sqlText: sqlText, args: args})
	return selectionMark(len(b.sels) - 1)
}
