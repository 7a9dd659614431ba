package handlers

import (
	"context"
	"sync"
	"time"

	"github.com/analytics-service/analytics/repository"
)

// KeyUses notes which API keys were used, for the account page's "last used", without a write
// on the API's request path: a request only notes a key whose stored last use is a minute old
// or more (in memory), and a background job writes the noted keys in one statement, which
// leaves alone any key another node wrote less than a minute before. So a key's last use is
// written at most once a minute, shown to the minute, late by at most the job's period.
type KeyUses struct {
	repo *repository.Repository
	now  func() time.Time
	mu   sync.Mutex
	// pending are the keys noted since the last write, with when they were last used.
	pending map[int64]time.Time
}

// maxPendingKeyUses bounds the keys noted between two writes; past it a use goes unnoted (the
// next request of that key notes it again).
const maxPendingKeyUses = 10_000

// NewKeyUses makes the notes of one node; now nil means time.Now.
func NewKeyUses(repo *repository.Repository, now func() time.Time) *KeyUses {
	if now == nil {
		now = time.Now
	}
	return &KeyUses{repo: repo, now: now, pending: map[int64]time.Time{}}
}

// note records that a key authenticated a request now.
func (k *KeyUses) note(key repository.KeyUse) {
	if k == nil {
		return
	}
	now := k.now()
	if key.LastUsed != nil && now.Sub(*key.LastUsed) < repository.KeyUseInterval {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.pending[key.KeyID]; ok || len(k.pending) < maxPendingKeyUses {
		k.pending[key.KeyID] = now
	}
}

// Flush writes the noted uses: the job "record API key use".
func (k *KeyUses) Flush(ctx context.Context) error {
	k.mu.Lock()
	pending := k.pending
	k.pending = map[int64]time.Time{}
	k.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	// One statement for all: the latest use stands for them (they are at most one period apart).
	ids := make([]int64, 0, len(pending))
	var latest time.Time
	for id, at := range pending {
		ids = append(ids, id)
		if at.After(latest) {
			latest = at
		}
	}
	if err := k.repo.RecordKeyUses(ctx, ids, latest); err != nil {
		k.mu.Lock()
		for id, at := range pending { // kept for the next run
			if _, ok := k.pending[id]; !ok {
				k.pending[id] = at
			}
		}
		k.mu.Unlock()
		return err
	}
	return nil
}
