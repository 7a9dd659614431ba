package ingest_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
)

// Each flush reports, in the transaction of the rows it writes, the oldest day of the node's
// open visits (NULL: none), so that readers know which days get no more rows. A visit that
// goes on past midnight holds its day back; once it ends, its row is written with a report
// past its day; a node with nothing to write still reports every minute; a node that stops
// deletes its report.
func TestNodesReportWhatTheyMayStillWrite(t *testing.T) {
	clock := newClock(at("2026-03-04", "23:50:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, VisitTimeout: 30 * time.Minute, Node: "node-a"})
	e.site("open.test")
	send := func(remote string, after time.Duration) {
		t.Helper()
		clock.Add(after)
		res := e.send(hit{body: `{"n":"pageview","u":"https://open.test/","d":"open.test"}`, remote: remote})
		if res.Status != http.StatusAccepted {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	}
	report := func() string {
		t.Helper()
		var oldest sql.NullString
		var at time.Time
		err := e.DB.QueryRow(`SELECT oldest::text, flushed_at FROM node_open_days WHERE node = 'node-a'`).Scan(&oldest, &at)
		if err == sql.ErrNoRows {
			return "none"
		}
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s at %s", map[bool]string{true: oldest.String, false: "NULL"}[oldest.Valid], at.UTC().Format("01-02 15:04"))
	}
	rowsOf := func(day string) int {
		t.Helper()
		var n int
		if err := e.DB.Get(&n, `SELECT count(*) FROM visit_rows WHERE day = $1`, day); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(want string) {
		t.Helper()
		if got := report(); got != want {
			t.Fatalf("the node reports %q, want %q", got, want)
		}
	}

	send("198.51.100.1:1", 0) // 23:50 a visit of the 4th
	e.flush()
	check("2026-03-04 at 03-04 23:50")
	send("198.51.100.1:1", 20*time.Minute) // 00:10 it goes on past midnight
	send("198.51.100.2:1", 0)              // 00:10 a visit of the 5th
	e.flush()
	check("2026-03-04 at 03-05 00:10")
	send("198.51.100.3:1", 20*time.Minute) // 00:30 another of the 5th
	clock.Add(15 * time.Minute)            // 00:45: the visits of 00:10 ended
	e.flush()
	check("2026-03-05 at 03-05 00:45")
	if n := rowsOf("2026-03-04"); n != 1 {
		t.Fatalf("%d rows of the 4th once its report is past it, want its one visit's", n)
	}
	clock.Add(30 * time.Second) // nothing to write: the report stands
	e.flush()
	check("2026-03-05 at 03-05 00:45")
	clock.Add(time.Minute) // a minute after it: written again
	e.flush()
	check("2026-03-05 at 03-05 00:46")
	clock.Add(time.Hour) // every visit ended
	e.flush()
	check("NULL at 03-05 01:46")
	send("198.51.100.4:1", time.Minute)
	if err := e.App.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("none")
	if n := rowsOf("2026-03-05"); n != 3 {
		t.Fatalf("%d rows of the 5th after the node stopped, want 3", n)
	}
}
