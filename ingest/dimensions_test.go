package ingest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A visit-level name is one entry of stats.Dimensions and its column: declared here, with the
// column added to the test's database, its value goes from a collected hit through the flush
// to the counters, the visit's row and the filtered reads, with no other change.
func TestOneEntryDeclaresAVisitLevelName(t *testing.T) {
	const name stats.Name = "utm_test"
	declared := stats.Dimensions
	stats.Dimensions = append(slices.Clip(declared), stats.Dimension{Name: name, Column: "utm_test", From: stats.FromQuery,
		Param: "utm_test", Title: "Tests", Label: "Test"})
	t.Cleanup(func() { stats.Dimensions = declared })

	clock := newClock(at("2026-03-04", "10:00:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	if _, err := e.DB.Exec(`ALTER TABLE visit_rows ADD COLUMN utm_test text NOT NULL DEFAULT ''`); err != nil {
		t.Fatal(err)
	}
	id := e.site("dims.test")
	e.send(hit{body: pageHit("dims.test", "/spring?utm_test=spring", "")})
	e.send(hit{body: pageHit("dims.test", "/plain", ""), ua: safariIPhone}) // another visitor: none
	if got := fmt.Sprint(e.stats(id)[string(name)]); got != "map[:1 spring:1]" {
		t.Fatalf("counted %s: %s, want map[:1 spring:1]", name, got)
	}
	var columns []string
	if err := e.DB.Select(&columns, `SELECT utm_test FROM visit_rows WHERE website_id = $1 ORDER BY utm_test`, id); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(columns) != "[ spring]" {
		t.Fatalf("visit_rows.utm_test: %q, want the two visits' \"\" and spring", columns)
	}

	ctx := context.Background()
	day := stats.Range{From: stats.Day(clock.Now()), To: stats.Day(clock.Now())}
	list := func(of stats.Name, filters stats.Filters) string {
		t.Helper()
		entries, _, err := e.Repo.Reader(id, day, filters).List(ctx, repository.StatQuery{Name: of, SortBy: "count", Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(entries)
	}
	if got, want := list(stats.Page, stats.Filters{{Name: name, Value: "spring"}}), "[{/spring?utm_test=spring 1}]"; got != want {
		t.Errorf("pages filtered by %s=spring: %s, want %s", name, got, want)
	}
	if got, want := list(name, stats.Filters{{Name: stats.Browser, Value: "Chrome"}}), "[{spring 1}]"; got != want {
		t.Errorf("%s filtered by browser: %s, want %s", name, got, want)
	}
}
