package repository_test

import (
	"context"
	"testing"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Values a stranger sends reach visit_rows exactly, whatever array-literal syntax they hold:
// the flush sends every text column as one literal made by the repository.
func TestVisitRowsKeepStrangersValues(t *testing.T) {
	f := newFixture(t, "literal.test")
	ctx := context.Background()
	day := date("2026-03-04")
	if err := f.repo.EnsureVisitRowPartitions(ctx, day, day); err != nil {
		t.Fatal(err)
	}
	odd := []string{`a"b`, `c\d`, `{x,y}`, `NULL`, ``, ` spaced `, `é,"}\`}
	row := repository.VisitRow{WebsiteID: f.sites[0], Day: day, Visitor: -7, ID: 42, Hour: 3, Pageviews: len(odd),
		Values: stats.ValuesOf(map[stats.Name]string{stats.Campaign: odd[0], stats.Referrer: odd[1], stats.Language: odd[2],
			stats.City: odd[3], stats.Browser: odd[6], stats.LandingPage: odd[2], stats.ExitPage: odd[1]}),
		Pages: odd, Events: []string{odd[3], odd[6]}}
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: "6f1c2d3e-0000-4000-8000-000000000001", Rows: repository.VisitRowList{row}}, 100); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Campaign, Referrer, Language, City, Browser, Landing, Exit string
		Pages, Events                                              pq.StringArray
	}
	err := f.db.QueryRowContext(ctx, `SELECT campaign, referrer, language, city, browser, landing_page, exit_page, pages, events
		FROM visit_rows WHERE website_id = $1 AND id = 42`, f.sites[0]).Scan(&got.Campaign, &got.Referrer, &got.Language,
		&got.City, &got.Browser, &got.Landing, &got.Exit, &got.Pages, &got.Events)
	if err != nil {
		t.Fatal(err)
	}
	if got.Campaign != odd[0] || got.Referrer != odd[1] || got.Language != odd[2] || got.City != odd[3] || got.Browser != odd[6] ||
		got.Landing != odd[2] || got.Exit != odd[1] {
		t.Errorf("values %+v", got)
	}
	if len(got.Pages) != len(odd) || len(got.Events) != 2 || got.Events[0] != odd[3] || got.Events[1] != odd[6] {
		t.Fatalf("pages %q, events %q", got.Pages, got.Events)
	}
	for i := range odd {
		if got.Pages[i] != odd[i] {
			t.Errorf("page %d: %q, want %q", i, got.Pages[i], odd[i])
		}
	}
}
