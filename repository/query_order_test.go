package repository_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestQueryOrdersByGroupConversionRate: ordered by group_conversion_rate, rows come in the
// order of the rate, not of their converting visitors, and the page is cut after that order.
// Three countries: DE converts 4 of 20 visitors (20 %), FR 3 of 5 (60 %), IT 1 of 2 (50 %);
// by converting visitors DE would come first.
func TestQueryOrdersByGroupConversionRate(t *testing.T) {
	f := newFixture(t, "order.example")
	site, ctx := f.sites[0], context.Background()
	day := date("2026-03-02")
	var visits []repotest.Visit
	add := func(country string, visitors, converting int) {
		for i := range visitors {
			page := "/home"
			if i < converting {
				page = "/signup"
			}
			visits = append(visits, repotest.Visit{Day: day, Visitor: int32(len(visits) + 1), Hour: 10, Pages: []string{page},
				Values: map[stats.Name]string{stats.Country: country, stats.LandingPage: page, stats.ExitPage: page}})
		}
	}
	add("DE:Germany", 20, 4)
	add("FR:France", 5, 3)
	add("IT:Italy", 2, 1)
	repotest.WriteVisitRows(t, f.db, site, visits)
	if _, err := f.repo.CreateGoal(ctx, site, stats.Goal{Kind: stats.GoalPageview, Page: "/signup", DisplayName: "Signup"}); err != nil {
		t.Fatal(err)
	}
	env := queryapi.Env{Now: date("2026-03-05").Add(12 * time.Hour), Location: time.UTC}
	for _, c := range []struct{ order, page, want string }{
		{`[["group_conversion_rate", "desc"]]`, `{"limit": 10}`, `[FR 60] [IT 50] [DE 20]`},
		{`[["group_conversion_rate", "asc"]]`, `{"limit": 10}`, `[DE 20] [IT 50] [FR 60]`},
		{`[["group_conversion_rate", "desc"]]`, `{"limit": 1}`, `[FR 60]`},
		{`[["group_conversion_rate", "desc"]]`, `{"limit": 2, "offset": 1}`, `[IT 50] [DE 20]`},
		// Visitors first, then the rate: the statement's order, untouched.
		{`[["visitors", "desc"]]`, `{"limit": 10}`, `[DE 20] [FR 60] [IT 50]`},
	} {
		body := `{"site_id": "order.example", "date_range": ["2026-03-01", "2026-03-04"], "metrics": ["group_conversion_rate", "visitors"],
			"dimensions": ["visit:country"], "filters": [["is", "event:goal", ["Signup"]]], "order_by": ` + c.order + `, "pagination": ` + c.page + `}`
		answer := f.runQuery(t, site, body, env)
		got := ""
		for i, row := range answer.Rows {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("[%s %g]", row.Dimensions[0], row.Metrics[0])
		}
		if got != c.want {
			t.Errorf("order %s, page %s: got %s, want %s", c.order, c.page, got, c.want)
		}
		if answer.TotalRows != 3 {
			t.Errorf("order %s, page %s: total rows %d, want 3", c.order, c.page, answer.TotalRows)
		}
	}
}
