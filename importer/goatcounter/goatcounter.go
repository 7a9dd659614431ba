// Package goatcounter imports GoatCounter's CSV export (format version 2, docs/imports.md):
// a file of one row a hit, plain or gzipped as GoatCounter writes it, into a website's daily
// and hourly counters, the visits made again from the hits' sessions.
package goatcounter

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Website is the website an export is imported into.
type Website struct {
	ID     int64
	Domain string     // as stored: a referrer to it counts as direct
	Zone   stats.Zone // the website's, the service's TZ filled in: whose days the hits count on
}

// Options tune an import; the zero value is the contract's limits and no progress.
type Options struct {
	// Uncompressed bounds the bytes of CSV read (0: DefaultUncompressed); a larger export is
	// refused whole.
	Uncompressed int64
	Progress     func(importer.PhaseProgress) // called every 50,000 rows and at each phase's end
	Now          func() time.Time             // for the rate; nil: time.Now
	Sessions     int                          // 0: MaxSessions
}

// DefaultUncompressed bounds the CSV an export may hold: 4 GiB, some 30 million hits. An export
// is a row a hit (a Plausible export's 1 GiB of counters holds years of a busy site; GoatCounter's
// 10 million hits of one take 1.3 GiB); the bound keeps an import's time in reason, memory is
// bounded anyway.
const DefaultUncompressed = 4 << 30

// Summary is what an import did, and what it did not.
type Summary struct {
	Rows                 int64 // rows read (hits)
	importer.DaysWritten       // the days written, their range and the days refused
	Counters             int64 // counters added to (website, statistic, day, value), per batch
	Visitors             int64 // sums of the days imported, for the summary line
	Visits               int64
	Pageviews            int64
	Events               int64
	// LeftOut is what has no counterpart here or is not counted, by reason, each with its most
	// frequent values.
	LeftOut []importer.Reason
}

// BadExport is an export refused for what it holds (not GoatCounter's, another version, a
// damaged or truncated file, a bad value, a limit passed); its text names the problem, with
// the line and column. Other errors are the database's.
type BadExport struct{ Err error }

func (e *BadExport) Error() string { return e.Err.Error() }
func (e *BadExport) Unwrap() error { return e.Err }

// Import reads an export (the size bytes of r, gzipped or not) and adds it to the website's
// counters in one transaction: the file is read and every row checked first, so a bad export
// writes nothing. Days that already hold data of the website (collected, or imported before)
// are refused, listed in the summary and left out, so the same export imported twice adds
// nothing. Memory is bounded by MaxSessions and the counters' batch, whatever the export's size.
func Import(ctx context.Context, repo *repository.Repository, site Website, r io.ReaderAt, size int64, opts Options) (Summary, error) {
	if opts.Uncompressed <= 0 {
		opts.Uncompressed = DefaultUncompressed
	}
	if opts.Sessions <= 0 {
		opts.Sessions = MaxSessions
	}
	p := importer.NewPhases(opts.Progress, opts.Now)
	var sum Summary

	// First pass: every row checked, the days collected; nothing written.
	days := map[time.Time]bool{}
	leftOut := importer.NewTally()
	p.Phase("checking", "")
	check := newSessions(site.Zone, site.Domain, opts.Sessions, func(_ stats.Name, day time.Time, _ string, _ int64) {
		days[day] = true
	})
	err := readRows(r, size, opts.Uncompressed, func(line int, rw *row) error {
		sum.Rows++
		p.Row()
		note(leftOut, rw)
		if !rw.bot {
			check.hit(rw)
		}
		if len(days) > importer.MaxDays {
			return fmt.Errorf("line %d, column Date: the export holds more than %d days (100 years)", line, importer.MaxDays)
		}
		if line%4096 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return Summary{}, ctx.Err()
		}
		return Summary{}, &BadExport{err}
	}
	check.close()
	p.Done()
	sum.LeftOut = leftOut.Reasons()

	// Second pass, in one transaction: the counters of the days that hold no data yet.
	w, refused, written, err := importer.BeginDays(ctx, repo, site.ID, repository.SourceGoatCounter, days)
	if err != nil {
		return Summary{}, err
	}
	sum.DaysWritten = written
	if w == nil {
		return sum, nil
	}
	defer w.Rollback()
	p.Phase("writing", "")
	write := newSessions(site.Zone, site.Domain, opts.Sessions, func(name stats.Name, day time.Time, value string, n int64) {
		if !refused[day] {
			w.Add(name, day, value, n)
		}
	})
	err = readRows(r, size, opts.Uncompressed, func(_ int, rw *row) error {
		p.Row()
		if !rw.bot {
			write.hit(rw)
		}
		return w.Err()
	})
	if err != nil {
		return Summary{}, err
	}
	write.close()
	if err := w.Commit(); err != nil {
		return Summary{}, err
	}
	p.Done()
	sum.Counters = w.Counters()
	sum.Visitors, sum.Visits, sum.Pageviews, sum.Events = w.Total(stats.Visitor), w.Total(stats.Visit), w.Total(stats.Pageview), w.Total(stats.Event)
	return sum, nil
}

// note tallies what of a row has no counterpart here or is not counted.
func note(t *importer.Tally, r *row) {
	if r.bot {
		t.Add("hits GoatCounter recorded as a bot's (not counted, as bots are not here)", r.path, 1)
		return
	}
	if r.location != "" {
		if r.country == "" {
			t.Add("locations that name no country (counted as unknown)", r.location, 1)
		} else {
			t.Add("regions of locations (counted as their country: cities come from GeoIP here)", r.location, 1)
		}
	}
}

// gzipMagic starts every gzip file.
var gzipMagic = []byte{0x1f, 0x8b}

// readRows reads the export's rows, gunzipped when it is gzip, within limit bytes of CSV,
// calling each for every row with its line; the header must be version 2's.
func readRows(r io.ReaderAt, size, limit int64, each func(line int, r *row) error) error {
	in := bufio.NewReader(io.NewSectionReader(r, 0, size))
	var src io.Reader = in
	if start, _ := in.Peek(2); len(start) == 2 && start[0] == gzipMagic[0] && start[1] == gzipMagic[1] {
		gz, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("the file is a damaged gzip file (%w)", err)
		}
		src = gz
	}
	left := limit
	budget := importer.NewBudget(src, &left)
	cr := importer.NewCSVReader(budget)
	first, err := cr.Read()
	switch {
	case err == io.EOF:
		return errors.New("the file is empty: no header line")
	case err != nil:
		return readError(err, budget, limit, nil)
	}
	if err := checkHeader(first); err != nil {
		return err
	}
	var rw row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError(err, budget, limit, columnNames)
		}
		if column, problem := rw.parse(rec); problem != "" {
			return fmt.Errorf("line %d, column %s: %s", cr.Line(), column, problem)
		}
		if err := each(cr.Line(), &rw); err != nil {
			return err
		}
	}
}

// size writes a number of bytes as the limits are given.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readError says which limit a read passed, that the file is damaged or truncated, or where
// the CSV is wrong.
func readError(err error, budget *importer.Budget, limit int64, columns []string) error {
	var ce *importer.CSVError
	switch {
	case budget.Over():
		return fmt.Errorf("the export holds more than %s of CSV, this service's limit", size(limit))
	case errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the file is damaged or truncated (%w); download the export again", err)
	case errors.As(err, &ce):
		column := fmt.Sprintf("%d", ce.Field+1)
		if ce.Field >= 0 && ce.Field < len(columns) {
			column = columns[ce.Field]
		}
		return fmt.Errorf("line %d, column %s: %s", ce.Line, column, ce.Problem)
	}
	return err
}
