package repository_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// One confirmation link, used by many requests at once, moves the address once; the others
// find it spent. An address another account has, in any case, is refused when asked for.
func TestEmailChangeOnce(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	owner, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateUser(ctx, "taken@example.com"); err != nil {
		t.Fatal(err)
	}
	limit := repository.EmailChangeLimit{Max: 3, Window: time.Hour}
	if _, err := repo.RequestEmailChange(ctx, owner.ID, "Taken@Example.com", time.Hour, limit); !errors.Is(err, repository.ErrConflict) {
		t.Fatalf("asking for a taken address: %v, want a conflict", err)
	}
	token, err := repo.RequestEmailChange(ctx, owner.ID, "new@example.com", time.Hour, limit)
	if err != nil {
		t.Fatal(err)
	}
	const tries = 20
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := repo.ConfirmEmailChange(ctx, token, "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	done := 0
	for err := range errs {
		switch {
		case err == nil:
			done++
		case !errors.Is(err, repository.ErrNotFound):
			t.Fatalf("a confirmation failed otherwise: %v", err)
		}
	}
	if done != 1 {
		t.Fatalf("%d confirmations of one link succeeded, want 1", done)
	}
	if u, err := repo.UserByEmail(ctx, "NEW@example.com"); err != nil || u.ID != owner.ID {
		t.Fatalf("the new address finds user %d (%v), want %d", u.ID, err, owner.ID)
	}
}
