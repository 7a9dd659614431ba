package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/counters"
)

// Two writers (nodes) change the same rows at once, the second waiting for the first's lock
// with a snapshot taken before the first committed: every count of both is applied once, in
// the daily table and in the rollups. An exit page's -1 and +1 move as a visit's exit moves;
// each node counts its own visits. With two websites, the second's -1s bring two rows that
// its snapshot saw at 2 to 0: both must be deleted (the writer deleted only the first, in
// the statement of its upsert, and left the other at 1: TestTwoServersOneDatabase's extra
// exit pages).
func TestCountsOfTwoWritersAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		seed          map[string]int64
		first, second map[string]int64
		want          string
	}{
		{"both take theirs back", map[string]int64{"/a": 2}, map[string]int64{"/a": -1}, map[string]int64{"/a": -1}, "[]"},
		{"both move to a later value", map[string]int64{"/a": 2}, map[string]int64{"/a": -1, "/b": 1}, map[string]int64{"/a": -1, "/b": 1}, "[{/b 2}]"},
		{"both move to an earlier value", map[string]int64{"/b": 2}, map[string]int64{"/b": -1, "/a": 1}, map[string]int64{"/b": -1, "/a": 1}, "[{/a 2}]"},
		{"one leaves a row the other comes to", map[string]int64{"/a": 1}, map[string]int64{"/a": -1}, map[string]int64{"/a": 1}, "[{/a 1}]"},
		{"one comes to a row the other leaves", map[string]int64{"/a": 1}, map[string]int64{"/a": 1}, map[string]int64{"/a": -1}, "[{/a 1}]"},
		{"both come to a new row", nil, map[string]int64{"/a": 1}, map[string]int64{"/a": 1}, "[{/a 2}]"},
		{"two websites: both take theirs back", map[string]int64{"/a": 2, "2/a": 2}, map[string]int64{"/a": -1, "2/a": -1}, map[string]int64{"/a": -1, "2/a": -1}, "[]"},
		{"two websites: both move", map[string]int64{"/a": 2, "2/a": 2}, map[string]int64{"/a": -1, "/b": 1, "2/a": -1, "2/b": 1}, map[string]int64{"/a": -1, "/b": 1, "2/a": -1, "2/b": 1}, "[{/b 2} {2/b 2}]"},
		{"two websites: one leaves, one comes", map[string]int64{"/a": 1, "2/a": 1}, map[string]int64{"/a": -1, "2/a": -1}, map[string]int64{"/a": 1, "2/a": 1}, "[{/a 1} {2/a 1}]"},
		{"two websites: one comes, one leaves", map[string]int64{"/a": 1, "2/a": 1}, map[string]int64{"/a": 1, "2/a": 1}, map[string]int64{"/a": -1, "2/a": -1}, "[{/a 1} {2/a 1}]"},
	} {
		t.Run(tc.name, func(t *testing.T) { twoWritersAtOnce(t, tc.seed, tc.first, tc.second, tc.want) })
	}
}

func twoWritersAtOnce(t *testing.T, seed, first, second map[string]int64, want string) {
	f := newFixture(t, "two-writers.example", "two-writers-2.example")
	ctx := context.Background()
	day := date("2026-02-10")
	// A key "2/a" is the value /a of the second website.
	exits := func(m map[string]int64) []repository.StatCount {
		var out []repository.StatCount
		for key, n := range m {
			site, value := f.sites[0], key
			if strings.HasPrefix(key, "2/") {
				site, value = f.sites[1], key[1:]
			}
			out = append(out, repository.StatCount{WebsiteID: site, Name: "exit_page", Date: day, Value: value, Count: n})
		}
		return out
	}
	if _, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: exits(seed)}, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.repo.RollUp(ctx, date("2026-04-01")); err != nil {
		t.Fatal(err)
	}

	// The first writer writes and holds its locks, uncommitted.
	conn, err := f.db.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := counters.WriteBatch(ctx, tx, conn, repository.VisitBatch{Counts: exits(first)}, 0); err != nil {
		t.Fatal(err)
	}
	// The second takes its snapshot and waits for a lock of the first.
	done := make(chan error, 1)
	go func() {
		_, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: exits(second)}, 0)
		done <- err
	}()
	waitForLockWait(t, f)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"stats", "stats_weekly", "stats_monthly"} {
		var rows []struct {
			Value string `db:"value"`
			Count int64  `db:"count"`
		}
		if err := f.db.Select(&rows, `SELECT CASE WHEN website_id = $2 THEN '2' ELSE '' END || value AS value, count FROM `+table+`
			WHERE website_id = ANY($1) AND name = 'exit_page' ORDER BY website_id, value`, pq.Array(f.sites), f.sites[1]); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rows); got != want {
			t.Errorf("%s: %s, want %s", table, got, want)
		}
	}
}

// waitForLockWait waits until a backend of the test's database waits for a lock.
func waitForLockWait(t *testing.T, f fixture) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := f.db.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the second writer never waited for the first's lock")
}

// Writers (nodes) that each hold one visit on each of three websites move their exit pages
// among three pages at once, so that they meet on every row, raising, lowering and deleting
// it: the exit pages always sum to the visits. (Each run lost -1s before the rows brought to 0
// were deleted by a statement of their own.)
func TestExitPagesOfConcurrentWritersSumToVisits(t *testing.T) {
	f := newFixture(t, "w1.example", "w2.example", "w3.example")
	ctx := context.Background()
	day := date("2026-02-10")
	const writers, rounds, pages = 4, 60, 3
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := repository.New(f.db, nil)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			exits := make([]string, len(f.sites))
			for r := range rounds {
				var counts []repository.StatCount
				for i, site := range f.sites {
					next := fmt.Sprintf("/p%d", rng.IntN(pages))
					if next == exits[i] {
						continue
					}
					if exits[i] != "" {
						counts = append(counts, repository.StatCount{WebsiteID: site, Name: "exit_page", Date: day, Value: exits[i], Count: -1})
					}
					counts = append(counts, repository.StatCount{WebsiteID: site, Name: "exit_page", Date: day, Value: next, Count: 1},
						repository.StatCount{WebsiteID: site, Name: "visit_seconds", Date: day, Value: "2026-02-10", Count: int64(r + 1)})
					exits[i] = next
				}
				if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var sum int64
	if err := f.db.Get(&sum, `SELECT coalesce(sum(count), 0) FROM stats WHERE name = 'exit_page'`); err != nil {
		t.Fatal(err)
	}
	if want := int64(writers * len(f.sites)); sum != want {
		t.Fatalf("exit pages sum to %d, want %d (one a visit)", sum, want)
	}
}
