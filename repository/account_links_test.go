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

// An admin making links while being unmade or removed, 20 times over: every link either was refused
// (ErrNotAdmin) or is voided with the unmaking; none made by a non-admin stays usable, and
// the two never deadlock.
func TestAdminLinksCannotSlipPastUnmaking(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	root, err := repo.CreateUser(ctx, "root@example.com") // the first: an admin
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i := range 20 {
		boss, err := repo.CreateAdmin(ctx, fmt.Sprintf("boss%d@example.com", i))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		tokens := make([]string, 5)
		errs := make([]error, 5)
		for j := range tokens {
			// Invitations, and set-password links for the other admin, whose row the
			// unmaking locks too (its key is shared by the link's foreign key).
			link := repository.Link{Kind: repository.LinkInvite, Email: fmt.Sprintf("evil%d-%d@example.com", i, j), MakeAdmin: true}
			if j%2 == 1 {
				link = repository.Link{Kind: repository.LinkSetPassword, Email: root.Email, UserID: &root.ID}
			}
			link.CreatedBy = &boss.ID
			wg.Go(func() { tokens[j], errs[j] = repo.CreateLink(ctx, link, time.Hour) })
		}
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				err = repo.SetAdmin(ctx, boss.ID, false)
			} else {
				_, err = repo.RemoveUser(ctx, boss.ID)
			}
			if err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		for j, token := range tokens {
			if errors.Is(errs[j], repository.ErrNotAdmin) {
				refused++
				continue
			}
			if errs[j] != nil {
				t.Fatal(errs[j])
			}
			if _, err := repo.LinkByToken(ctx, token); !errors.Is(err, repository.ErrNotFound) {
				t.Fatalf("round %d: a link of an unmade admin still works (%v)", i, err)
			}
		}
	}
	t.Logf("%d of 100 links refused, the others voided", refused)
	if _, err := repo.CreateLink(ctx, repository.Link{Kind: repository.LinkInvite, Email: "x@example.com"}, time.Hour); err == nil {
		t.Fatal("an invitation without its maker was stored")
	}
}

// VoidUserLinks voids the user's links and the invitations for their address and the
// addresses given, in any case; the links of others stay.
func TestVoidUserLinks(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	root, err := repo.CreateUser(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	user, err := repo.CreateUser(ctx, "user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	link := func(l repository.Link) string {
		t.Helper()
		l.CreatedBy = &root.ID
		token, err := repo.CreateLink(ctx, l, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	voided := []string{
		link(repository.Link{Kind: repository.LinkSetPassword, Email: user.Email, UserID: &user.ID}),
		link(repository.Link{Kind: repository.LinkInvite, Email: "USER@example.com"}),
		link(repository.Link{Kind: repository.LinkInvite, Email: "Old@Example.com"}),
	}
	kept := []string{
		link(repository.Link{Kind: repository.LinkSetPassword, Email: root.Email, UserID: &root.ID}),
		link(repository.Link{Kind: repository.LinkInvite, Email: "someone@example.com"}),
	}
	if err := repo.VoidUserLinks(ctx, user.ID, "old@example.com"); err != nil {
		t.Fatal(err)
	}
	for i, token := range voided {
		if _, err := repo.LinkByToken(ctx, token); !errors.Is(err, repository.ErrNotFound) {
			t.Errorf("link %d still works (%v)", i, err)
		}
	}
	for i, token := range kept {
		if _, err := repo.LinkByToken(ctx, token); err != nil {
			t.Errorf("another's link %d was voided (%v)", i, err)
		}
	}
}

// Every change of an account that uses or voids links, at once on one user and one address,
// 30 times over: none fails but as the rules say (a used or voided link, a taken address),
// none deadlocks, and no address gets two accounts.
func TestAccountChangesNeverDeadlock(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	root, err := repo.CreateUser(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	const hash = "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA"
	for i := range 30 {
		x, y := fmt.Sprintf("x%d@example.com", i), fmt.Sprintf("y%d@example.com", i)
		user, err := repo.CreateUser(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		link := func(l repository.Link) string {
			t.Helper()
			l.CreatedBy = &root.ID
			token, err := repo.CreateLink(ctx, l, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return token
		}
		reset, _, ok, err := repo.CreateResetLink(ctx, x, time.Hour, 3, time.Hour)
		if err != nil || !ok {
			t.Fatalf("reset: %v %v", ok, err)
		}
		tokens := []string{reset,
			link(repository.Link{Kind: repository.LinkSetPassword, Email: x, UserID: &user.ID}),
			link(repository.Link{Kind: repository.LinkInvite, Email: x}),
			link(repository.Link{Kind: repository.LinkInvite, Email: y}),
			link(repository.Link{Kind: repository.LinkInvite, Email: y}),
		}
		changes := []func() error{
			func() error { return repo.ChangePassword(ctx, user.ID, hash, "") },
			func() error { return repo.ChangeEmail(ctx, user.ID, y) },
			func() error { return repo.SetUserPassword(ctx, x, hash) },
		}
		for _, token := range tokens {
			changes = append(changes, func() error { _, err := repo.UseLink(ctx, token, hash); return err })
		}
		var wg sync.WaitGroup
		for _, change := range changes {
			wg.Go(func() {
				if err := change(); err != nil && !errors.Is(err, repository.ErrNotFound) && !errors.Is(err, repository.ErrConflict) {
					t.Errorf("round %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		var most int
		if err := db.Get(&most, `SELECT max(n) FROM (SELECT count(*) AS n FROM users GROUP BY lower(email)) c`); err != nil || most != 1 {
			t.Fatalf("round %d: an address has %d accounts (%v)", i, most, err)
		}
	}
}

// Migration 0021 voids the pending invitations and set-password links made before it, whose
// maker it cannot know; resets and used links are left as they were.
func TestMigrationVoidsLinksOfUnknownMakers(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	root, err := repo.CreateUser(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	invite, err := repo.CreateLink(ctx, repository.Link{Kind: repository.LinkInvite, Email: "new@example.com", CreatedBy: &root.ID}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	reset, _, ok, err := repo.CreateResetLink(ctx, root.Email, time.Hour, 3, time.Hour)
	if err != nil || !ok {
		t.Fatalf("reset: %v %v", ok, err)
	}
	// The database as it was before 0021, with these links in it.
	for _, q := range []string{
		`DROP INDEX account_links_pending_by, account_links_pending_email, account_links_pending_expiry`,
		`ALTER TABLE account_links DROP COLUMN created_by`,
		`DELETE FROM schema_migrations WHERE version LIKE '0021%'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := repository.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.LinkByToken(ctx, invite); !errors.Is(err, repository.ErrNotFound) {
		t.Errorf("an invitation of unknown maker still works after the migration (%v)", err)
	}
	if _, err := repo.LinkByToken(ctx, reset); err != nil {
		t.Errorf("a reset link was voided by the migration (%v)", err)
	}
}
