package importer

import (
	"bytes"
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
	p.website()
	p.Done()
	if !strings.HasSuffix(out.String(), "\r2000 rows, 1/3 websites, 2000 rows/s \n") {
		t.Errorf("the end of the line: %q", out.String())
	}
	var none *Progress // no terminal: nothing drawn, nothing panics
	none.Websites(1)
	none.rows(1)
	none.website()
	none.Done()
}
