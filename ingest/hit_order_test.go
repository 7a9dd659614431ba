package ingest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/app"
)

// A visit's row keeps the order of its hits across pages and events (hit_order, which funnels
// read): one letter a hit, appended by later writes of the row as its arrays are.
func TestVisitRowKeepsTheOrderOfItsHits(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("order.test")
	e.send(hit{body: pageHit("order.test", "/a", "")})
	e.flush() // the row's first write: /a
	clock.Add(10 * time.Second)
	e.send(hit{body: `{"page":"https://order.test/a","event":{"name":"Signup"}}`})
	clock.Add(10 * time.Second)
	e.send(hit{body: pageHit("order.test", "/b", "")})
	clock.Add(10 * time.Second)
	e.send(hit{body: `{"page":"https://order.test/b","event":{"name":"Play"}}`})
	clock.Add(time.Hour)
	e.stats(id) // the visit ended: its later part is written
	var rows []struct {
		Order string         `db:"hit_order"`
		Pages pq.StringArray `db:"pages"`
		Names pq.StringArray `db:"event_names"`
	}
	if err := e.DB.Select(&rows, `SELECT hit_order, pages, event_names FROM visit_rows WHERE website_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if got, want := fmt.Sprintf("%s %v %v", rows[0].Order, []string(rows[0].Pages), []string(rows[0].Names)), "pepe [/a /b] [Signup Play]"; got != want {
		t.Errorf("hit_order pages names: %s, want %s", got, want)
	}
}
