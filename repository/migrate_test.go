package repository_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// Several instances starting at once must apply each migration exactly once.
func TestMigrateConcurrently(t *testing.T) {
	db, url := repotest.NewEmpty(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := repository.Open(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close()
			errs[i] = repository.Migrate(ctx, conn)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	var applied, tables int
	if err := db.Get(&applied, `SELECT count(*) FROM schema_migrations`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&tables, `SELECT count(*) FROM pg_tables WHERE tablename IN ('users', 'api_keys', 'websites', 'stats', 'stats_monthly', 'ingest_batches')`); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("list migrations: %v (%d files)", err, len(files))
	}
	if applied != len(files) || tables != 6 {
		t.Fatalf("%d migrations recorded, %d of the core tables; want %d and 6", applied, tables, len(files))
	}
	// And again later: nothing to do, no error.
	if err := repository.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
}
