package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// HasProperties says whether a range has a property, from the keys the flush registers with
// the rows: true for the day a hit carried one, false for other days and other websites.
func TestHasProperties(t *testing.T) {
	f := newFixture(t, "props.example", "plain.example")
	ctx := context.Background()
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	repotest.WriteVisitRows(t, f.db, f.sites[0], []repotest.Visit{
		{Day: day, Visitor: 1, Pages: []string{"/"}, Props: []string{stats.PropPair("plan", "pro")}},
	})
	repotest.WriteVisitRows(t, f.db, f.sites[1], []repotest.Visit{{Day: day, Visitor: 2, Pages: []string{"/"}}})
	for _, c := range []struct {
		site     int64
		from, to time.Time
		want     bool
	}{
		{f.sites[0], day, day, true},
		{f.sites[0], day.AddDate(0, 0, -5), day.AddDate(0, 0, 5), true},
		{f.sites[0], day.AddDate(0, 0, 1), day.AddDate(0, 0, 5), false},
		{f.sites[1], day, day, false},
	} {
		got, err := f.repo.HasProperties(ctx, c.site, stats.Range{From: c.from, To: c.to})
		if err != nil || got != c.want {
			t.Errorf("site %d %s..%s: %v (%v), want %v", c.site, c.from.Format("01-02"), c.to.Format("01-02"), got, err, c.want)
		}
	}
}
