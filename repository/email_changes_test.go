package repository_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// One confirmation link, used by many requests at once, moves the address once; the others
// find it spent. An address another account has, in any case, is stored as a request that
// counts like any other and gives no link to confirm.
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
	if req, err := repo.RequestEmailChange(ctx, owner.ID, "Taken@Example.com", time.Hour, limit); err != nil || !req.Taken || req.Token != "" {
		t.Fatalf("asking for a taken address: %+v, %v; want a request that is taken, without a token", req, err)
	}
	req, err := repo.RequestEmailChange(ctx, owner.ID, "new@example.com", time.Hour, limit)
	if err != nil || req.Taken {
		t.Fatal(req, err)
	}
	token := req.Token
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

// A confirmation and a new request of the same user at the same moment wait for each other
// (the user's row first, then the changes): neither fails on a deadlock.
func TestEmailChangeRequestAndConfirmAtOnce(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	owner, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	limit := repository.EmailChangeLimit{Max: 1000, Window: time.Hour}
	for round := range 15 {
		req, err := repo.RequestEmailChange(ctx, owner.ID, fmt.Sprintf("a%d@example.com", round), time.Hour, limit)
		if err != nil {
			t.Fatal(err)
		}
		token := req.Token
		var wg sync.WaitGroup
		var confirmErr, requestErr error
		wg.Add(2)
		go func() { defer wg.Done(); _, confirmErr = repo.ConfirmEmailChange(ctx, token, "") }()
		go func() {
			defer wg.Done()
			_, requestErr = repo.RequestEmailChange(ctx, owner.ID, fmt.Sprintf("b%d@example.com", round), time.Hour, limit)
		}()
		wg.Wait()
		if confirmErr != nil && !errors.Is(confirmErr, repository.ErrNotFound) || requestErr != nil {
			t.Fatalf("round %d: confirm %v, request %v", round, confirmErr, requestErr)
		}
	}
}
