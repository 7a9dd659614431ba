package importer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/testkit"
)

func TestProgressLine(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	p := NewProgress(&out, clock.Now, 200*time.Millisecond)
	p.Websites(3)
	p.rows(1000)
	if out.Len() != 0 {
		t.Errorf("drawn before its interval: %q", out.String())
	}
	clock.Advance(time.Second)
	p.rows(1000)
	if got := out.String(); got != "\r2000 rows, 0/3 websites, 2000 rows/s " {
		t.Errorf("progress line %q", got)
	}
	var lines bytes.Buffer
	fmt.Fprintln(p.Above(&lines), "example.com: imported")
	if !strings.HasSuffix(out.String(), "\r\033[K") || lines.String() != "example.com: imported\n" {
		t.Errorf("a line printed above: progress %q, lines %q", out.String(), lines.String())
	}
	p.website()
	p.Done()
	if !strings.HasSuffix(out.String(), "\r2000 rows, 1/3 websites, 2000 rows/s \n") {
		t.Errorf("the end of the line: %q", out.String())
	}
	var none *Progress // no terminal: nothing drawn, nothing panics
	if none.Above(&lines) != &lines {
		t.Error("no progress line, yet the lines are wrapped")
	}
	none.Websites(1)
	none.rows(1)
	none.website()
	none.Done()
}
