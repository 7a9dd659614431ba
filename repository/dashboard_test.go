package repository_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Events are grouped by name: the names with the largest totals, each with its most counted
// value:unit parts beneath, over the range only.
func TestTopEvents(t *testing.T) {
	f := newFixture(t, "example.com")
	repo, site := f.repo, f.sites[0]
	ctx := context.Background()
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	add := func(d time.Time, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: site, Name: "event", Date: d, Value: value, Count: n}
	}
	batch := []repository.StatCount{
		add(day, "Purchase:5:USD", 3), add(day.AddDate(0, 0, 1), "Purchase:5:USD", 2), add(day, "Purchase:10:EUR", 4),
		add(day, "Purchase::", 1), add(day, "Signup::", 6), add(day, "Download::pdf", 2), add(day, "Download::zip", 2),
		add(day, "A:1:x:y", 1),                   // a unit with a colon stays whole
		add(day.AddDate(0, 0, 5), "Late::", 100), // outside the range
		{WebsiteID: site, Name: "page", Date: day, Value: "Purchase:1:USD", Count: 50},
	}
	if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
		t.Fatal(err)
	}
	rng := stats.Range{From: day, To: day.AddDate(0, 0, 1)}
	groups, distinct, err := repo.Reader(site, rng, nil).Events(ctx, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []repository.EventGroup{
		{Name: "Purchase", Total: 10, Values: []repository.StatEntry{{Value: "5:USD", Count: 5}, {Value: "10:EUR", Count: 4}}},
		{Name: "Signup", Total: 6, Values: []repository.StatEntry{{Value: ":", Count: 6}}},
		{Name: "Download", Total: 4, Values: []repository.StatEntry{{Value: ":pdf", Count: 2}, {Value: ":zip", Count: 2}}},
	}
	if !reflect.DeepEqual(groups, want) || distinct != 4 {
		t.Fatalf("got %+v (%d names), want %+v (4 names)", groups, distinct, want)
	}
	groups, _, err = repo.Reader(site, rng, nil).Events(ctx, 10, 5)
	if err != nil || len(groups) != 4 || groups[3].Name != "A" || groups[3].Values[0].Value != "1:x:y" {
		t.Fatalf("all names: %+v (%v)", groups, err)
	}
	if has, err := repo.HasStats(ctx, site); !has || err != nil {
		t.Fatalf("HasStats of a website with counters: %v %v", has, err)
	}
	if has, err := repo.HasStats(ctx, site+1000); has || err != nil {
		t.Fatalf("HasStats of a website without counters: %v %v", has, err)
	}
	none, distinct, err := repo.Reader(site, stats.Range{From: day.AddDate(1, 0, 0), To: day.AddDate(1, 0, 0)}, nil).Events(ctx, 10, 5)
	if err != nil || len(none) != 0 || distinct != 0 {
		t.Fatalf("empty range: %+v %d %v", none, distinct, err)
	}
}
