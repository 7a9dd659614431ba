package repository_test

import (
	"context"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A row's hit_order holds a letter a hit in the order they came, and a later write of the row
// appends its own, as it appends pages and events.
func TestHitOrderAppends(t *testing.T) {
	f := newFixture(t, "a.example")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	values := stats.ValuesOf(map[stats.Name]string{stats.LandingPage: "/a", stats.ExitPage: "/a"})
	first := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 5, ID: 1, Pageviews: 1, Values: values,
		Pages: []string{"/a"}, Events: []string{"Signup::"}, EventNames: []string{"Signup"}, Order: []byte("pe")}
	later := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: 5, ID: 1, Pageviews: 1, Values: values,
		Pages: []string{"/b"}, Events: []string{"Play::"}, EventNames: []string{"Play"}, Order: []byte("ep")}
	for i, row := range []repository.VisitRow{first, later} {
		batch := repository.VisitBatch{ID: []string{"6f1c2d3e-0000-4000-8000-000000000021", "6f1c2d3e-0000-4000-8000-000000000022"}[i],
			Rows: repository.VisitRowList{row}}
		if _, err := f.repo.AddVisitBatch(ctx, batch, 100); err != nil {
			t.Fatal(err)
		}
	}
	var order string
	if err := f.db.Get(&order, `SELECT hit_order FROM visit_rows WHERE website_id = $1`, f.sites[0]); err != nil {
		t.Fatal(err)
	}
	if order != "peep" {
		t.Errorf("hit_order %q, want peep", order)
	}
}
