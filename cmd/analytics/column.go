package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/column"
)

// columnSyncEvery is how often the service copies the days that closed into its column store:
// a day closes once a day, and a node that starts copies every day its file lacks at once.
const columnSyncEvery = 10 * time.Minute

// openColumnStore opens this node's column store (derived data, in COLUMN_STORE_DIR or the
// user's cache directory: column.DefaultDir) and keeps it filled from PostgreSQL in the
// background; the days it does not hold yet are read from the visit rows. nil when it cannot
// be opened (logged): the visit rows then answer everything, as exactly and more slowly.
func openColumnStore(ctx context.Context, repo *repository.Repository, log *slog.Logger) *column.Store {
	dir := column.DefaultDir()
	store, err := column.Open(dir)
	if err != nil {
		log.Error("column store off: the visit rows answer every day", "dir", dir, "err", err)
		return nil
	}
	repo.UseColumnStore(store)
	go func() {
		for {
			start := time.Now()
			if err := repo.SyncColumnStore(ctx); err != nil && ctx.Err() == nil {
				log.Error("column store: copy closed days", "err", err)
			} else if ctx.Err() == nil {
				log.Info("column store: closed days copied", "dir", dir, "took", time.Since(start).Round(time.Millisecond).String())
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(columnSyncEvery):
			}
		}
	}()
	return store
}
