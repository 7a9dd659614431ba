package repository_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

// benchFunnels times a funnel's numbers on BenchmarkFilteredReads' data (issue 28's target: a
// funnel of up to 8 steps over 30 days within 1 s p95 on a website of 10,000 visits a day
// among 20): an 8-step funnel of page patterns and event names whose first step is a section
// of the site (about 1 visit in 5 enters), the same with a first step that every visit
// reaches (/*, the worst case: every row is walked), one of them filtered by country, and the
// first through the API. The data's events come after each visit's first page (hit_order).
func benchFunnels(b *testing.B, f fixture, site int64, month stats.Range) {
	ctx := context.Background()
	// The data set's rows are ordered from its first day on.
	if _, err := f.db.Exec(`UPDATE websites SET funnels_from = '2000-01-01', filters_from = '2000-01-01' WHERE id = $1`, site); err != nil {
		b.Fatal(err)
	}
	goal := func(g stats.Goal) int64 {
		b.Helper()
		made, err := f.repo.CreateGoal(ctx, site, g)
		if err != nil {
			b.Fatal(err)
		}
		return made.ID
	}
	page := func(i int, pattern string) int64 {
		return goal(stats.Goal{Kind: stats.GoalPageview, Page: pattern, DisplayName: fmt.Sprintf("Funnel page %d", i)})
	}
	event := func(name string) int64 {
		return goal(stats.Goal{Kind: stats.GoalEvent, Event: name, DisplayName: "Funnel " + name})
	}
	rest := []int64{event("Event 1"), page(2, "/section-2/*"), page(3, "/section-3/*"), event("Event 2"),
		page(4, "/section-4/*|/section-5/*"), page(6, "/section-6/*"), page(7, "/section-7/*")}
	section, err := f.repo.CreateFunnel(ctx, site, "Section", append([]int64{page(1, "/section-1/*")}, rest...))
	if err != nil {
		b.Fatal(err)
	}
	everyone, err := f.repo.CreateFunnel(ctx, site, "Everyone", append([]int64{page(0, "/*")}, rest...))
	if err != nil {
		b.Fatal(err)
	}
	country := stats.Filters{{Name: stats.Country, Value: "K1:Country 1"}}
	for _, c := range []struct {
		name    string
		funnel  stats.Funnel
		filters stats.Filters
	}{
		{"funnels/8_steps", section, nil},
		{"funnels/8_steps_all_enter", everyone, nil},
		{"funnels/8_steps_all_enter_country", everyone, country},
	} {
		b.Run(c.name, func(b *testing.B) {
			timeWithCPU(b, f, func() error {
				n, _, err := f.repo.FunnelNumbers(ctx, site, month, c.filters, c.funnel)
				if err == nil && (n.Entering() == 0 || n.Steps[1] == 0) {
					err = fmt.Errorf("nobody went through: %+v", n)
				}
				return err
			})
		})
	}
	h := newHTTPBench(b, f)
	b.Run("http/funnel_8_steps", func(b *testing.B) {
		timeWithCPU(b, f, func() error {
			var out struct {
				Data struct {
					Entering int64 `json:"entering_visitors"`
				} `json:"data"`
			}
			body, err := h.getJSON(fmt.Sprintf("/api/v1/stats/%d/funnels/%d", site, section.ID), query(month, nil), &out)
			if err == nil && out.Data.Entering == 0 {
				err = fmt.Errorf("nobody entered: %.300s", body)
			}
			return err
		})
	})
}
