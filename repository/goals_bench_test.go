package repository_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// benchGoals times the goals' reads on BenchmarkFilteredReads' data (issue 25's target: 1 s
// p95 over 30 days on a website of 10,000 visits a day among 20): the conversions of 20 goals
// (10 pageview patterns, matched against the range's distinct pages, and 10 event names), the
// summary filtered by a pageview goal and by an event goal, through the repository (with the
// pages of closed days kept from an earlier call, and without) and through the API.
func benchGoals(b *testing.B, f fixture, site int64, month stats.Range) {
	ctx := context.Background()
	for i := range 10 {
		pattern := fmt.Sprintf("/section-%d/*", i)
		if i%3 == 0 {
			pattern = fmt.Sprintf("/section-%d/page-1*|/section-%d/page-%d", i, i+1, 100+i)
		}
		mustGoal(b, f, site, stats.Goal{Kind: stats.GoalPageview, Page: pattern, DisplayName: fmt.Sprintf("Pages %d", i)})
		mustGoal(b, f, site, stats.Goal{Kind: stats.GoalEvent, Event: fmt.Sprintf("Event %d", i+1), DisplayName: fmt.Sprintf("Event %d", i+1)})
	}
	goals, err := f.repo.Goals(ctx, site)
	if err != nil || len(goals) != 20 {
		b.Fatalf("%d goals (%v)", len(goals), err)
	}
	byPages := stats.Filters{{Name: stats.GoalName, Value: "Pages 1"}}
	byEvent := stats.Filters{{Name: stats.GoalName, Value: "Event 2"}}
	b.Run("goals/list_20", func(b *testing.B) {
		timeWithCPU(b, f, func() error {
			conv, visitors, _, err := f.repo.Conversions(ctx, site, month, nil, goals)
			if err == nil && (visitors == 0 || conv[0].Visitors == 0) {
				err = fmt.Errorf("no conversions: %+v", conv[:1])
			}
			return err
		})
	})
	for name, filters := range map[string]stats.Filters{"pageview_goal": byPages, "event_goal": byEvent} {
		b.Run("goals/summary_"+name, func(b *testing.B) {
			timeWithCPU(b, f, func() error { return goalSummary(ctx, f.repo, site, month, filters) })
		})
	}
	// The same on a new repository each call, which keeps no closed day's pages yet: what the
	// first read of a website and range costs.
	b.Run("goals/list_20_cold", func(b *testing.B) {
		timeWithCPU(b, f, func() error {
			_, _, _, err := repository.New(f.db, nil).Conversions(ctx, site, month, nil, goals)
			return err
		})
	})
	b.Run("goals/summary_pageview_goal_cold", func(b *testing.B) {
		timeWithCPU(b, f, func() error { return goalSummary(ctx, repository.New(f.db, nil), site, month, byPages) })
	})
	h := newHTTPBench(b, f)
	b.Run("http/goals_20", func(b *testing.B) {
		timeWithCPU(b, f, h.goalList(site, query(month, nil)))
	})
	b.Run("http/summary_pageview_goal", func(b *testing.B) { timeWithCPU(b, f, h.summary(site, query(month, byPages))) })
	b.Run("http/summary_event_goal", func(b *testing.B) { timeWithCPU(b, f, h.summary(site, query(month, byEvent))) })
}

func mustGoal(b testing.TB, f fixture, site int64, g stats.Goal) {
	b.Helper()
	if _, err := f.repo.CreateGoal(context.Background(), site, g); err != nil {
		b.Fatal(err)
	}
}

// goalSummary is what the summary filtered by a goal reads: its totals, and its conversion
// rate.
func goalSummary(ctx context.Context, repo *repository.Repository, site int64, rng stats.Range, filters stats.Filters) error {
	t, err := repo.Reader(site, rng, filters).Totals(ctx)
	if err != nil {
		return err
	}
	rate, ok, err := repo.SummaryConversionRate(ctx, site, rng, filters, t.Visitors)
	if err == nil && (!ok || t.Visitors == 0 || rate <= 0 || rate > 100) {
		err = fmt.Errorf("goal summary: %d visitors, conversion rate %v (%v)", t.Visitors, rate, ok)
	}
	return err
}

// goalList reads GET /api/v1/stats/{site}/goals and wants 20 goals, the first converting.
func (h httpBench) goalList(site int64, q url.Values) func() error {
	return func() error {
		var out struct {
			Data []struct {
				Visitors int64 `json:"visitors"`
			} `json:"data"`
		}
		body, err := h.getJSON(fmt.Sprintf("/api/v1/stats/%d/goals", site), q, &out)
		if err != nil {
			return err
		}
		if len(out.Data) != 20 || out.Data[0].Visitors == 0 {
			return fmt.Errorf("goals: want 20, the first converting: %.500s", body)
		}
		return nil
	}
}
