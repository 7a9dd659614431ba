// Package importer writes history brought from other products (docs/imports.md): one
// transaction per website, through the collector's stats statement (so rollups stay right)
// without its limit of values a day, the imported days marked with their source; a progress
// line on a terminal and a summary at the end. The readers of each product (phpanalytics, ...)
// map their data to our names and hand it over here.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/analytics-service/analytics/repository"
)

// ErrExists: a website with the domain exists here already; the import skips it.
var ErrExists = errors.New("a website with this domain exists here")

// DefaultBatch is how many counters go to PostgreSQL in one statement.
const DefaultBatch = 20_000

// Writer writes the websites of one import run, each in its own transaction, or in a dry run
// only counts what it would write.
type Writer struct {
	repo     *repository.Repository
	source   string
	dryRun   bool
	batch    int
	progress *Progress
	summary  *Summary
}

// NewWriter writes for source (repository.SourcePHPAnalytics, ...); repo may be nil in a dry
// run. progress may be nil (no progress line).
func NewWriter(repo *repository.Repository, source string, dryRun bool, progress *Progress) *Writer {
	return &Writer{repo: repo, source: source, dryRun: dryRun, batch: DefaultBatch, progress: progress,
		summary: newSummary()}
}

// Summary is what the run did so far.
func (w *Writer) Summary() *Summary { return w.summary }

// Website is one website being imported: Add its counters, then Commit, or Rollback on an
// error (Rollback after Commit does nothing, so it can be deferred).
type Website struct {
	w      *Writer
	im     *repository.Import // nil in a dry run
	id     int64
	domain string
	days   map[time.Time]struct{}
	buf    []repository.StatCount
	rows   int64
	done   bool
	// The batches go to PostgreSQL on a goroutine of their own, so that reading the source
	// and writing here overlap; at most two full batches wait, which bounds memory. written
	// carries the writer's error (or nil) once the batches are closed.
	batches chan []repository.StatCount
	free    chan []repository.StatCount
	written chan error
	cancel  context.CancelFunc
}

// Begin opens a website's transaction and creates the website for the user; ErrExists when
// its domain is taken here. In a dry run nothing is written and the website's id is 0.
func (w *Writer) Begin(ctx context.Context, userID int64, site repository.ImportedWebsite) (*Website, error) {
	ws := &Website{w: w, domain: site.Domain, days: map[time.Time]struct{}{},
		buf: make([]repository.StatCount, 0, w.batch)}
	if w.dryRun {
		return ws, nil
	}
	im, created, err := w.repo.BeginWebsiteImport(ctx, userID, site)
	if errors.Is(err, repository.ErrConflict) {
		return nil, ErrExists
	}
	if err != nil {
		return nil, err
	}
	ws.im, ws.id = im, created.ID
	ws.startWriter(ctx)
	return ws, nil
}

// startWriter runs the goroutine that writes the batches in order, in the transaction. After
// an error it drops what comes and keeps the error for Commit.
func (ws *Website) startWriter(ctx context.Context) {
	ctx, ws.cancel = context.WithCancel(ctx)
	batches, free, written := make(chan []repository.StatCount, 1), make(chan []repository.StatCount, 2), make(chan error, 1)
	ws.batches, ws.free, ws.written = batches, free, written
	im := ws.im
	go func() {
		var failed error
		for b := range batches {
			if failed == nil {
				failed = im.Add(ctx, b)
			}
			free <- b[:0]
		}
		written <- failed
	}()
}

// ID is the website's id here (0 in a dry run).
func (ws *Website) ID() int64 { return ws.id }

// Read counts rows read from the source, for the progress line and the summary.
func (ws *Website) Read(rows int64) {
	ws.rows += rows
	ws.w.progress.rows(rows)
}

// Add adds count to a counter of a day. count must be positive.
func (ws *Website) Add(ctx context.Context, name string, day time.Time, value string, count int64) error {
	ws.days[day] = struct{}{}
	ws.buf = append(ws.buf, repository.StatCount{WebsiteID: ws.id, Name: name, Date: day, Value: value, Count: count})
	if len(ws.buf) >= ws.w.batch {
		return ws.flush(ctx)
	}
	return nil
}

// Unmapped records that a row was kept as it is, having no counterpart here: reason is a
// fixed text (the statistic's name, ...), value what had none ("" for none).
func (ws *Website) Unmapped(reason, value string) { ws.w.summary.Unmapped.Add(reason, value, 1) }

// flush hands the batch to the writer and takes an empty buffer, a new one or one the writer
// is done with. An error of an earlier batch comes back here or from Commit.
func (ws *Website) flush(ctx context.Context) error {
	if len(ws.buf) == 0 || ws.im == nil {
		ws.buf = ws.buf[:0]
		return nil
	}
	select {
	case ws.batches <- ws.buf:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case ws.buf = <-ws.free:
	default:
		ws.buf = make([]repository.StatCount, 0, ws.w.batch)
	}
	return nil
}

// wait closes the batches and returns the writer's error, once.
func (ws *Website) wait() error {
	if ws.batches == nil {
		return nil
	}
	close(ws.batches)
	ws.batches = nil
	err := <-ws.written
	ws.cancel()
	return err
}

// Commit writes what is left, marks the imported days and commits; the website then counts
// in the summary.
func (ws *Website) Commit(ctx context.Context) error {
	if err := ws.flush(ctx); err != nil {
		return err
	}
	if err := ws.wait(); err != nil {
		return err
	}
	days := make([]time.Time, 0, len(ws.days))
	for d := range ws.days {
		days = append(days, d)
	}
	if ws.im != nil {
		if err := ws.im.MarkNewWebsiteDays(ctx, days, ws.w.source); err != nil {
			return err
		}
		if err := ws.im.Commit(); err != nil {
			return err
		}
	}
	ws.done = true
	s := ws.w.summary
	s.Websites++
	s.Rows += ws.rows
	s.Days += len(days)
	ws.w.progress.website()
	return nil
}

// Rollback abandons the website: nothing of it stays.
func (ws *Website) Rollback() {
	if ws.done || ws.im == nil {
		return
	}
	if ws.cancel != nil {
		ws.cancel() // the statement in flight stops
	}
	_ = ws.wait()
	_ = ws.im.Rollback()
	ws.done = true
}

// Summary counts what a run did: what the end of an import prints.
type Summary struct {
	Websites int      // websites imported
	Rows     int64    // rows of the source read for them
	Days     int      // days imported, over all websites
	Skipped  []string // one line a website left out on purpose
	Failed   []string // one line a website whose import failed
	// Unmapped: rows kept as they are for want of a counterpart, by reason, with the most
	// frequent values of each (never all of them: a source may hold millions).
	Unmapped *Tally
}

func newSummary() *Summary { return &Summary{Unmapped: NewTally()} }

// Skip records a website left out on purpose, with why.
func (s *Summary) Skip(line string) { s.Skipped = append(s.Skipped, line) }

// Fail records a website whose import failed, with why.
func (s *Summary) Fail(line string) { s.Failed = append(s.Failed, line) }

// Print writes the summary: the totals, then the websites skipped and failed, then the rows
// kept as they are by reason, each with its most frequent values.
func (s *Summary) Print(out io.Writer, dryRun bool) {
	verb := "imported"
	if dryRun {
		verb = "would import (dry run, nothing written)"
	}
	fmt.Fprintf(out, "summary: %s %d websites, %d rows, %d days; %d skipped, %d failed\n",
		verb, s.Websites, s.Rows, s.Days, len(s.Skipped), len(s.Failed))
	for _, l := range s.Skipped {
		fmt.Fprintf(out, "  skipped: %s\n", l)
	}
	for _, l := range s.Failed {
		fmt.Fprintf(out, "  failed: %s\n", l)
	}
	if s.Unmapped.Empty() {
		return
	}
	fmt.Fprintln(out, "kept as they are (no counterpart here), rows:")
	PrintReasons(out, "  ", s.Unmapped.Reasons())
}

// PrintReasons writes a tally's reasons, one line each with its total, then its values one a
// line below it, the most frequent first.
func PrintReasons(out io.Writer, indent string, reasons []Reason) {
	for _, r := range reasons {
		fmt.Fprintf(out, "%s%s: %d\n", indent, r.Reason, r.Total)
		for _, v := range r.Values {
			fmt.Fprintf(out, "%s  %s: %d\n", indent, strconv.Quote(v.Value), v.Count)
		}
		switch {
		case r.Estimated:
			fmt.Fprintf(out, "%s  ... and more than %d other values (the counts above are lower bounds)\n", indent, r.More())
		case r.More() > 0:
			fmt.Fprintf(out, "%s  ... and %d other values\n", indent, r.More())
		}
	}
}
