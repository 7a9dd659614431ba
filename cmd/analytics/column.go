package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
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
	dir, err := columnDir(ctx, repo)
	if err != nil {
		log.Error("column store off: the visit rows answer every day", "err", err)
		return nil
	}
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

// columnDir is the column store's directory for this database: a subdirectory of
// column.DefaultDir named by a random value the database keeps (its "column-store" signing
// key), so that services of other databases on the machine (a test's, a second install's)
// never read each other's copies.
func columnDir(ctx context.Context, repo *repository.Repository) (string, error) {
	id, err := repo.SigningKey(ctx, "column-store")
	if err != nil {
		return "", fmt.Errorf("column store: the database's id: %w", err)
	}
	sum := sha256.Sum256(id)
	return filepath.Join(column.DefaultDir(), hex.EncodeToString(sum[:8])), nil
}
