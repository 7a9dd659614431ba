package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
)

// A stats flush racing a website delete leaves no row of the deleted website, whichever of the
// two comes first. A third transaction holds a row lock that stops the first of the two half
// way, so the second starts while the first is inside its transaction; the test then lets both
// finish. No sleep decides the order: each step waits until PostgreSQL reports the blocked
// session waiting on a lock.
func TestFlushRacingDeleteLeavesNoRows(t *testing.T) {
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	row := func(id int64, value string, n int64) repository.StatCount {
		return repository.StatCount{WebsiteID: id, Name: "page", Date: day, Value: value, Count: n}
	}

	t.Run("flush first, the delete waits for it", func(t *testing.T) {
		r := newRace(t)
		r.add(row(r.b, "/", 1))
		// The flush writes the deleted website's rows, then stops at the other website's row.
		blocker := r.lock(r.b)
		flushed := r.flush(row(r.a, "/", 2), row(r.b, "/", 3))
		r.waitForLockWaits(1)
		deleted := r.delete(r.a)
		r.waitForLockWaits(2)
		mustRollback(t, blocker)
		r.check(<-flushed, <-deleted, 4)
	})

	t.Run("delete first, the flush drops the deleted website's counts", func(t *testing.T) {
		r := newRace(t)
		r.add(row(r.a, "/", 1))
		// The delete removes the website row, then stops at one of its stats rows.
		blocker := r.lock(r.a)
		deleted := r.delete(r.a)
		r.waitForLockWaits(1)
		flushed := r.flush(row(r.a, "/other", 2), row(r.b, "/", 3))
		r.waitForLockWaits(2)
		mustRollback(t, blocker)
		r.check(<-flushed, <-deleted, 3)
	})
}

type race struct {
	t    *testing.T
	db   *sqlx.DB
	repo *repository.Repository
	user int64
	a, b int64 // a < b, so a batch writes a's rows first
}

func newRace(t *testing.T) *race {
	f := newFixture(t, "a.example.com", "b.example.com")
	return &race{t: t, db: f.db, repo: f.repo, user: f.user, a: f.sites[0], b: f.sites[1]}
}

func (r *race) add(counts ...repository.StatCount) {
	if _, err := r.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0); err != nil {
		r.t.Fatal(err)
	}
}

// lock holds a row lock on a website's stats row in a transaction of its own.
func (r *race) lock(websiteID int64) *sqlx.Tx {
	tx, err := r.db.Beginx()
	if err != nil {
		r.t.Fatal(err)
	}
	var n int
	if err := tx.Get(&n, `SELECT count(*) FROM (SELECT 1 FROM stats WHERE website_id = $1 FOR UPDATE) AS locked`, websiteID); err != nil || n != 1 {
		r.t.Fatalf("lock stats row: %d rows, %v", n, err)
	}
	return tx
}

type flushResult struct {
	applied bool
	err     error
}

func (r *race) flush(counts ...repository.StatCount) <-chan flushResult {
	out := make(chan flushResult, 1)
	go func() {
		added, err := r.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, 0)
		out <- flushResult{added.Applied, err}
	}()
	return out
}

func (r *race) delete(id int64) <-chan error {
	out := make(chan error, 1)
	go func() { out <- r.repo.DeleteWebsite(context.Background(), id) }()
	return out
}

// waitForLockWaits waits until n sessions of this test's database wait for a lock.
func (r *race) waitForLockWaits(n int) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var waiting int
		if err := r.db.Get(&waiting, `
			SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			r.t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%d sessions wait for a lock after 20 s, want %d: the write did not wait for the other", waiting, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// check: both finished without error, nothing of the deleted website is left, and the other
// website's page count is bTotal.
func (r *race) check(flush flushResult, deleteErr error, bTotal int64) {
	r.t.Helper()
	if flush.err != nil || !flush.applied || deleteErr != nil {
		r.t.Fatalf("flush applied %v, err %v; delete err %v", flush.applied, flush.err, deleteErr)
	}
	for _, table := range []string{"stats", "stats_monthly"} {
		var left int
		if err := r.db.Get(&left, `SELECT count(*) FROM `+table+` WHERE website_id = $1`, r.a); err != nil {
			r.t.Fatal(err)
		}
		if left != 0 {
			r.t.Errorf("%s: %d rows of the deleted website", table, left)
		}
		var total int64
		if err := r.db.Get(&total, `SELECT coalesce(sum(count), 0) FROM `+table+` WHERE website_id = $1`, r.b); err != nil {
			r.t.Fatal(err)
		}
		if total != bTotal {
			r.t.Errorf("%s: the other website counts %d, want %d", table, total, bTotal)
		}
	}
	var counted int
	if err := r.db.Get(&counted, `SELECT count(*) FROM stats_value_counts WHERE website_id = $1`, r.a); err != nil {
		r.t.Fatal(err)
	}
	if counted != 0 {
		r.t.Errorf("stats_value_counts: %d rows of the deleted website", counted)
	}
}

func mustRollback(t *testing.T, tx *sqlx.Tx) {
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
}

// Updating a website does not wait for a flush writing its counts (both lock the row, in modes
// that do not conflict), so a slow flush never holds up the API.
func TestUpdateDoesNotWaitForAFlush(t *testing.T) {
	r := newRace(t)
	tx, err := r.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.Exec(`SELECT 1 FROM websites WHERE id = $1 FOR KEY SHARE`, r.a); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	favorite := true
	if _, err := r.repo.UpdateWebsite(ctx, r.a, repository.WebsiteChanges{Favorite: &favorite}); err != nil {
		t.Fatalf("update while a flush holds the website: %v", err)
	}
}

// Migration 0006 removes the rows that the race left before the stats writer locked websites.
func TestMigrationRemovesOrphanStats(t *testing.T) {
	r := newRace(t)
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	r.add(repository.StatCount{WebsiteID: r.a, Name: "page", Date: day, Value: "/", Count: 2})
	for _, q := range []string{
		`INSERT INTO stats VALUES (987654, 'page', '2026-06-01', '/', 5)`,
		`INSERT INTO stats_monthly VALUES (987654, 'page', '2026-06-01', '/', 5)`,
		`DELETE FROM schema_migrations WHERE version LIKE '0006%'`,
	} {
		if _, err := r.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := repository.Migrate(context.Background(), r.db); err != nil {
		t.Fatal(err)
	}
	var orphans, kept int
	r.db.Get(&orphans, `SELECT (SELECT count(*) FROM stats WHERE website_id = 987654) + (SELECT count(*) FROM stats_monthly WHERE website_id = 987654)`)
	r.db.Get(&kept, `SELECT (SELECT count(*) FROM stats WHERE website_id = $1) + (SELECT count(*) FROM stats_monthly WHERE website_id = $1)`, r.a)
	if orphans != 0 || kept != 2 {
		t.Fatalf("%d orphan rows left, %d rows of a live website (want 0 and 2)", orphans, kept)
	}
}
