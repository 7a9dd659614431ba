package ingest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/app"
)

// What one website may cost a day holds whatever its visitors send (docs/filters.md, "What
// one website may cost a day"): past VISIT_ROW_BYTES_PER_DAY its visits' rows of the day are
// no longer written (and counted), its hits still count, and another website's rows are
// written as before.
func TestAWebsitesRowsOfADayAreBounded(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, VisitRowBytesPerDay: 20_000})
	junk, other := e.site("junk.test"), e.site("other.test")
	for i := range 200 {
		page := strings.Repeat("x", 198) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
		e.accepted(hit{body: `{"page":"https://junk.test/` + page + `"}`, ua: fmt.Sprintf("Mozilla/5.0 junk/%d", i)})
		if i%50 == 49 {
			e.flush()
		}
	}
	e.accepted(hit{body: `{"page":"https://other.test/"}`})
	if got := e.stats(junk)["pageview"][day]; got != 200 {
		t.Fatalf("%d pageviews of the junk website counted, want 200", got)
	}
	rows := func(id int64) int {
		var n int
		if err := e.DB.Get(&n, `SELECT count(*) FROM visit_rows WHERE website_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A row of a 201-character page as page, landing and exit page costs some 760 bytes.
	if n := rows(junk); n < 20 || n > 30 {
		t.Fatalf("%d rows of the junk website written, want the 20-30 that 20,000 bytes hold", n)
	}
	if n := rows(other); n != 1 {
		t.Fatalf("%d rows of the other website, want 1", n)
	}
	if got := e.Metric("analytics_visit_rows_over_day_total"); int(got)+rows(junk) != 200 {
		t.Fatalf("analytics_visit_rows_over_day_total %v, want the %d rows not written", got, 200-rows(junk))
	}
}
