package repository_test

import (
	"context"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestQueryMatchesKeepsClosedDays: a matches filter keeps the distinct values of the days no
// flush writes any more, and reads the recent days from the rows each time, so that a value
// first seen today is matched at once; the values of days whose rows are gone go.
func TestQueryMatchesKeepsClosedDays(t *testing.T) {
	f := newFixture(t, "example.com")
	site := f.sites[0]
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	repo := repository.New(f.db, func() time.Time { return now })
	visit := func(day, referrer string) repotest.Visit {
		return repotest.Visit{Day: date(day), Visitor: int32(len(referrer) + date(day).Day()), Pages: []string{"/"},
			Values: map[stats.Name]string{stats.Referrer: referrer, stats.LandingPage: "/", stats.ExitPage: "/"}}
	}
	repotest.WriteVisitRows(t, f.db, site, []repotest.Visit{visit("2026-03-01", "a.example"), visit("2026-03-09", "b.example")})
	// Values of a day whose rows are gone (before the first partition).
	if _, err := f.db.Exec(`INSERT INTO visit_row_values VALUES ($1, 'visit:referrer', '2025-01-01', '{old.example}')`, site); err != nil {
		t.Fatal(err)
	}
	q, err := queryapi.Parse([]byte(`{"site_id": "example.com", "date_range": ["2026-03-01", "2026-03-09"],
		"metrics": ["visits"], "filters": [["matches", "visit:referrer", ["example$"]]]}`), queryapi.Env{Now: now, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	visits := func() float64 {
		t.Helper()
		answer, err := repo.RunQuery(context.Background(), site, q, stats.FixedZone(time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if len(answer.Rows) != 1 {
			t.Fatalf("rows %v, want one", answer.Rows)
		}
		return answer.Rows[0].Metrics[0]
	}
	if got := visits(); got != 2 {
		t.Errorf("visits %v, want 2", got)
	}
	var kept []string
	if err := f.db.Select(&kept, `SELECT day::text FROM visit_row_values WHERE website_id = $1 AND name = 'visit:referrer' AND vals <> '{}' ORDER BY day`, site); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0] != "2026-03-01" {
		t.Errorf("kept days with values %v, want [2026-03-01] (2026-03-09 is still written, 2025-01-01 has no rows)", kept)
	}
	repotest.WriteVisitRows(t, f.db, site, []repotest.Visit{visit("2026-03-09", "c.example")})
	if got := visits(); got != 3 {
		t.Errorf("after a new referrer today: visits %v, want 3", got)
	}
}
