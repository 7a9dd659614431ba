package ingest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
)

// The realtime view counts the visitors with a hit in the last 5 minutes, whether their visit
// is still open or not: with a VISIT_TIMEOUT of one minute, and with visits ended early past
// MAX_OPEN_VISITS, a visitor seen 2 minutes ago is still a current visitor, and one seen 6
// minutes ago no longer is.
func TestCurrentVisitorsOutlastTheirVisits(t *testing.T) {
	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, Node: "node-a", VisitTimeout: time.Minute, MaxOpenVisits: 32})
	id := e.site("now.test")
	current := func() int64 {
		t.Helper()
		e.flush()
		n, err := repository.New(e.DB, clock.Now).CurrentVisitors(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// 40 visitors, a second apart: past MAX_OPEN_VISITS 32 (one a shard), the oldest end early.
	for i := range 40 {
		e.send(hit{body: pageHit("now.test", "/", ""), remote: fmt.Sprintf("198.51.100.%d:1", i+1)})
		clock.Add(time.Second)
	}
	if got := current(); got != 40 {
		t.Errorf("at once: %d current visitors, want 40", got)
	}
	clock.Add(2 * time.Minute) // every visit has timed out
	if got := current(); got != 40 {
		t.Errorf("2 minutes later: %d current visitors, want 40", got)
	}
	e.send(hit{body: pageHit("now.test", "/b", ""), remote: "198.51.100.1:1"}) // a new visit of one of them
	if got := current(); got != 40 {
		t.Errorf("one back: %d current visitors, want 40 (the returning visitor once)", got)
	}
	clock.Add(4 * time.Minute)
	if got := current(); got != 1 {
		t.Errorf("6 minutes later: %d current visitors, want 1 (the one that came back)", got)
	}
	clock.Add(5 * time.Minute)
	if got := current(); got != 0 {
		t.Errorf("11 minutes later: %d current visitors, want 0", got)
	}
}
