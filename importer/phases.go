package importer

import (
	"fmt"
	"strings"
	"time"
)

// PhaseProgress is how far an import of an export is.
type PhaseProgress struct {
	Phase   string // "checking" (reading every file once), then "writing"
	File    string
	Rows    int64 // rows of the phase so far
	Elapsed time.Duration
}

// Phases reports an import's rows read, every progressEvery rows and at the end of each
// phase, to report (nil: nowhere).
type Phases struct {
	report     func(PhaseProgress)
	now        func() time.Time
	phaseName  string
	file       string
	rows       int64
	phaseStart time.Time
}

// progressEvery is how many rows pass between two progress reports.
const progressEvery = 50_000

// NewPhases reports to report with the clock now (nil: time.Now).
func NewPhases(report func(PhaseProgress), now func() time.Time) *Phases {
	if now == nil {
		now = time.Now
	}
	return &Phases{report: report, now: now}
}

// Phase starts a phase (or goes on with it, in another file).
func (p *Phases) Phase(name, file string) {
	if p.phaseName != name {
		p.phaseName, p.rows, p.phaseStart = name, 0, p.now()
	}
	p.file = file
}

// Row counts a row read.
func (p *Phases) Row() {
	p.rows++
	if p.rows%progressEvery == 0 {
		p.send()
	}
}

// Done reports the phase so far.
func (p *Phases) Done() { p.send() }

func (p *Phases) send() {
	if p.report != nil {
		p.report(PhaseProgress{Phase: p.phaseName, File: p.file, Rows: p.rows, Elapsed: p.now().Sub(p.phaseStart)})
	}
}

// DayRanges writes days (sorted) as runs: "2024-01-01..2024-01-31, 2024-03-02", at most
// listRuns of them and then how many days are left, so that a summary stays short.
func DayRanges(days []time.Time) string {
	var parts []string
	for i := 0; i < len(days); {
		if len(parts) == listRuns {
			parts = append(parts, fmt.Sprintf("and %d more days", len(days)-i))
			break
		}
		j := i
		for j+1 < len(days) && days[j+1].Equal(days[j].AddDate(0, 0, 1)) {
			j++
		}
		if i == j {
			parts = append(parts, days[i].Format(time.DateOnly))
		} else {
			parts = append(parts, days[i].Format(time.DateOnly)+".."+days[j].Format(time.DateOnly))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// listRuns is how many runs of days DayRanges writes.
const listRuns = 50

// MaxDays bounds the days of an export: a hundred years of a website's history is more than
// any has, and the days are held in memory and marked in one statement.
const MaxDays = 36_600
