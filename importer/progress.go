package importer

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Progress is the line an import redraws on a terminal while it runs: rows and websites done,
// and the rate. A nil *Progress draws nothing.
type Progress struct {
	out      io.Writer
	now      func() time.Time
	every    time.Duration
	started  time.Time
	drawn    time.Time
	rowsDone int64
	sites    int
	total    int
	shown    bool // the line is on the terminal now
}

// NewProgress draws on out (a terminal: the line is redrawn in place with \r) at most every
// interval, with the clock now (nil: time.Now).
func NewProgress(out io.Writer, now func() time.Time, every time.Duration) *Progress {
	if now == nil {
		now = time.Now
	}
	t := now()
	return &Progress{out: out, now: now, every: every, started: t, drawn: t}
}

// TerminalProgress is a progress line on stderr when stderr is a terminal, else nil: a log
// file or a pipe gets the summary only.
func TerminalProgress() *Progress {
	if !IsTerminal(os.Stderr) {
		return nil
	}
	return NewProgress(os.Stderr, nil, 200*time.Millisecond)
}

// IsTerminal tells whether f is a terminal (a character device), without a dependency.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Websites sets how many websites the run has in all.
func (p *Progress) Websites(total int) {
	if p != nil {
		p.total = total
	}
}

func (p *Progress) rows(n int64) {
	if p == nil {
		return
	}
	p.rowsDone += n
	p.draw(false)
}

func (p *Progress) website() {
	if p == nil {
		return
	}
	p.sites++
	p.draw(true)
}

func (p *Progress) draw(force bool) {
	t := p.now()
	if !force && t.Sub(p.drawn) < p.every {
		return
	}
	p.drawn = t
	rate := 0.0
	if secs := t.Sub(p.started).Seconds(); secs > 0 {
		rate = float64(p.rowsDone) / secs
	}
	fmt.Fprintf(p.out, "\r%d rows, %d/%d websites, %.0f rows/s ", p.rowsDone, p.sites, p.total, rate)
	p.shown = true
}

// Above returns a writer for the lines printed while the progress line is drawn (on the same
// terminal): each write first clears the progress line, which its next draw puts back below.
func (p *Progress) Above(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return above{p: p, w: w}
}

type above struct {
	p *Progress
	w io.Writer
}

func (a above) Write(b []byte) (int, error) {
	if a.p.shown {
		fmt.Fprint(a.p.out, "\r\033[K")
		a.p.shown = false
	}
	return a.w.Write(b)
}

// Done ends the line, so that what is printed next starts on a line of its own.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.draw(true)
	fmt.Fprintln(p.out)
}
