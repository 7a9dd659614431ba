package repository_test

import (
	"context"
	"errors"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// Accounts that differ only by case, kept from before migration 0016 (marked case_duplicate):
// each signs in by its exact spelling, any other spelling finds the oldest, and no new one
// can be made.
func TestCaseDuplicatesKept(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	owner, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var dup int64
	if err := db.Get(&dup, `INSERT INTO users (email, created_at, case_duplicate) VALUES ('Owner@Example.com', now(), true) RETURNING id`); err != nil {
		t.Fatal(err)
	}
	for email, want := range map[string]int64{"owner@example.com": owner.ID, "Owner@Example.com": dup, "OWNER@EXAMPLE.COM": owner.ID} {
		if u, err := repo.UserByEmail(ctx, email); err != nil || u.ID != want {
			t.Errorf("%s: user %d (%v), want %d", email, u.ID, err, want)
		}
		if u, _, err := repo.UserPasswordHash(ctx, email); err != nil || u.ID != want {
			t.Errorf("sign-in as %s: user %d (%v), want %d", email, u.ID, err, want)
		}
	}
	if _, err := repo.CreateUser(ctx, "OWNER@example.com"); !errors.Is(err, repository.ErrConflict) {
		t.Fatalf("a third spelling: %v, want a conflict", err)
	}
	// The duplicate moves to a free address and becomes an ordinary account.
	if err := repo.ChangeEmail(ctx, dup, "other@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := repo.ChangeEmail(ctx, dup, "OWNER@example.com"); !errors.Is(err, repository.ErrConflict) {
		t.Fatalf("back to a taken address: %v", err)
	}
}

// Two admins unmaking each other at once leave one: the admins' rows are locked first.
func TestLastAdminHoldsUnderRace(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	a, err := repo.CreateUser(ctx, "a@example.com") // the first user: an admin
	if err != nil {
		t.Fatal(err)
	}
	b, err := repo.CreateAdmin(ctx, "b@example.com")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for _, id := range []int64{a.ID, b.ID} {
		go func() { errs <- repo.SetAdmin(ctx, id, false) }()
	}
	lastAdmin := 0
	for range 2 {
		if err := <-errs; errors.Is(err, repository.ErrLastAdmin) {
			lastAdmin++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	var admins int
	if err := db.Get(&admins, `SELECT count(*) FROM users WHERE is_admin`); err != nil || admins != 1 || lastAdmin != 1 {
		t.Fatalf("%d admins left, %d refusals (%v)", admins, lastAdmin, err)
	}
	last := b.ID
	if isAdmin(t, repo, a.ID) {
		last = a.ID
	}
	if _, err := repo.RemoveUser(ctx, last); !errors.Is(err, repository.ErrLastAdmin) {
		t.Fatalf("removing the last admin: %v", err)
	}
}

func isAdmin(t *testing.T, repo *repository.Repository, id int64) bool {
	t.Helper()
	u, err := repo.UserRowByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u.IsAdmin
}
