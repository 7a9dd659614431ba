package plausible

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Website is the website an export is imported into.
type Website struct {
	ID     int64
	Domain string // as stored: a referrer to it counts as direct
}

// Options tune an import; the zero value is the contract's limits and no progress.
type Options struct {
	Limits Limits // zero: DefaultLimits
	// Progress, when set, is called after every progressEvery rows and at the end of each
	// phase.
	Progress func(importer.PhaseProgress)
	Now      func() time.Time // for the rate; nil: time.Now
}

// Summary is what an import did, and what it did not.
type Summary struct {
	Files                int   // CSV files read
	Rows                 int64 // their rows
	importer.DaysWritten       // the days written, their range and the days refused
	Counters             int64 // counters added to (website, statistic, day, value)
	Visitors             int64 // sums of the days imported, for the summary line
	Visits               int64
	Pageviews            int64
	// LeftOut is what has no counterpart here, by reason, each with its most frequent values
	// (never all: an export may hold millions).
	LeftOut       []importer.Reason
	UnusedColumns []string // the columns no counter reads, one line a file
	OtherFiles    []string // files of the archive that are not a Plausible table (names cut)
	Transformed   []string // changes made to fit, one line each
}

// Import reads a Plausible export (a zip of size bytes) and adds it to the website's counters,
// in one transaction: every file is read and checked first, so a bad export writes nothing.
// Days that already hold data of the website (collected, or imported before) are refused,
// listed in the summary and left out, so the same export imported twice adds nothing. An
// export that is not one, or breaks a limit, is an error naming the problem.
func Import(ctx context.Context, repo *repository.Repository, site Website, r io.ReaderAt, size int64, opts Options) (Summary, error) {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	files, others, err := openExport(r, size, opts.Limits)
	if err != nil {
		return Summary{}, &BadExport{err}
	}
	sum := Summary{Files: len(files), OtherFiles: others}
	p := importer.NewPhases(opts.Progress, opts.Now)

	// First pass: every file read, every row checked, the days collected; nothing written.
	days := map[time.Time]bool{}
	leftOut := importer.NewTally()
	transformed := map[string]int64{}
	unusedColumns := map[string][]string{}
	budget := opts.Limits.Uncompressed
	for _, f := range files {
		p.Phase("checking", fileLabel(f.zip.Name))
		unused, err := readFile(f, &budget, func(r *row) error {
			r.domain = site.Domain
			r.add = func(stats.Name, string, int64) {}
			r.leave = func(why, value string, n int64) { leftOut.Add(why, value, n) }
			r.note = func(what string, n int64) { transformed[what] += n }
			f.table.row(r)
			if r.err != nil {
				return r.err
			}
			if !days[r.day] && len(days) == importer.MaxDays {
				return fmt.Errorf("%s, line %d, column date: the export holds more than %d days (100 years)", r.file, r.line, importer.MaxDays)
			}
			days[r.day] = true
			sum.Rows++
			p.Row()
			return nil
		})
		if err != nil {
			return Summary{}, &BadExport{err}
		}
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if len(unused) > 0 {
			unusedColumns[f.table.name] = unused
		}
	}
	p.Done()
	sum.LeftOut = leftOut.Reasons()
	sum.UnusedColumns = unusedLines(unusedColumns)
	sum.Transformed = countLines(transformed)

	// Second pass, in one transaction: the counters of the days that hold no data yet.
	w, refused, written, err := importer.BeginDays(ctx, repo, site.ID, repository.SourcePlausible, days)
	if err != nil {
		return Summary{}, err
	}
	sum.DaysWritten = written
	if w == nil {
		return sum, nil
	}
	defer w.Rollback()
	budget = opts.Limits.Uncompressed
	for _, f := range files {
		p.Phase("writing", fileLabel(f.zip.Name))
		_, err := readFile(f, &budget, func(r *row) error {
			if refused[r.day] {
				return nil
			}
			r.domain = site.Domain
			r.add = func(name stats.Name, value string, n int64) { w.Add(name, r.day, value, n) }
			r.leave = func(string, string, int64) {}
			r.note = func(string, int64) {}
			f.table.row(r)
			p.Row()
			return w.Err()
		})
		if err != nil {
			return Summary{}, err
		}
	}
	if err := w.Commit(); err != nil {
		return Summary{}, err
	}
	p.Done()
	sum.Counters = w.Counters()
	sum.Visitors, sum.Visits, sum.Pageviews = w.Total(stats.Visitor), w.Total(stats.Visit), w.Total(stats.Pageview)
	return sum, nil
}

// BadExport is an export refused for what it holds (not a zip, not Plausible's, a limit
// passed, a damaged file, a bad column or value); its text names the problem. Other errors
// are the database's.
type BadExport struct{ Err error }

func (e *BadExport) Error() string { return e.Err.Error() }
func (e *BadExport) Unwrap() error { return e.Err }

// unusedLines are the summary's lines for the columns no counter reads, by file, at most
// listColumns a file.
func unusedLines(columns map[string][]string) []string {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(columns)) {
		shown := columns[name]
		more := ""
		if len(shown) > listColumns {
			shown, more = shown[:listColumns], fmt.Sprintf(" and %d more", len(shown)-listColumns)
		}
		cut := make([]string, len(shown))
		for i, c := range shown {
			cut[i] = importer.Cut(c, importer.QuoteLength)
		}
		lines = append(lines, fmt.Sprintf("imported_%s: columns %s%s (no counterpart here)", name, strings.Join(cut, ", "), more))
	}
	return lines
}

// listColumns is how many unused columns of a file the summary names.
const listColumns = 20

func countLines(counts map[string]int64) []string {
	var lines []string
	for _, what := range slices.Sorted(maps.Keys(counts)) {
		lines = append(lines, fmt.Sprintf("%s: %d", what, counts[what]))
	}
	return lines
}
