package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// A batch retried after an unknown outcome must not count twice; counts of a website that no
// longer exists are dropped rather than failing the batch.
func TestAddStatsOncePerBatch(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	u, err := repo.CreateUser(ctx, "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	w, err := repo.CreateWebsite(ctx, u.ID, repository.NewWebsite{Domain: "example.com", ExcludeBots: 1})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	batch := []repository.StatCount{
		{WebsiteID: w.ID, Name: "page", Date: day, Value: "/", Count: 2},
		{WebsiteID: w.ID, Name: "page", Date: day, Value: "/", Count: 3},
		{WebsiteID: w.ID + 1000, Name: "page", Date: day, Value: "/", Count: 9}, // no such website
	}
	id := uuid.NewString()
	for attempt, wantApplied := range []bool{true, false, false} {
		applied, err := repo.AddStats(ctx, id, batch)
		if err != nil || applied != wantApplied {
			t.Fatalf("attempt %d: applied %v, err %v; want %v", attempt, applied, err, wantApplied)
		}
	}
	var daily, monthly, orphans int64
	db.Get(&daily, `SELECT sum(count) FROM stats WHERE website_id = $1`, w.ID)
	db.Get(&monthly, `SELECT sum(count) FROM stats_monthly WHERE website_id = $1`, w.ID)
	db.Get(&orphans, `SELECT count(*) FROM stats WHERE website_id <> $1`, w.ID)
	if daily != 5 || monthly != 5 || orphans != 0 {
		t.Fatalf("daily %d, monthly %d, orphan rows %d; want 5, 5, 0", daily, monthly, orphans)
	}
	if _, err := repo.AddStats(ctx, uuid.NewString(), batch); err != nil {
		t.Fatal(err)
	}
	db.Get(&daily, `SELECT sum(count) FROM stats WHERE website_id = $1`, w.ID)
	if daily != 10 {
		t.Fatalf("a new batch added %d, want 10 in all", daily)
	}
	if err := repo.ForgetBatches(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}
