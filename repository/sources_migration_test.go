package repository_test

import (
	"context"
	"testing"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// Migration 0026: a website that existed before it counts sources, channels and the UTM tags
// from the next day (its upgrade day is partial), one created later from its first day; the
// visit rows gain a column for each.
func TestMigrationStartsSourcesTomorrow(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	before, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "before.example"})
	if err != nil {
		t.Fatal(err)
	}
	// The database as it was before 0026, with the website in it.
	for _, q := range []string{
		`ALTER TABLE visit_rows DROP COLUMN source, DROP COLUMN channel, DROP COLUMN utm_source,
			DROP COLUMN utm_medium, DROP COLUMN utm_term, DROP COLUMN utm_content`,
		`ALTER TABLE websites DROP COLUMN sources_from`,
		`DELETE FROM schema_migrations WHERE version LIKE '0026%'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := repository.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	after, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "after.example"})
	if err != nil {
		t.Fatal(err)
	}
	var days []int
	if err := db.Select(&days, `SELECT sources_from - current_date FROM websites WHERE id IN ($1, $2) ORDER BY id`, before.ID, after.ID); err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0] != 1 || days[1] != 0 {
		t.Errorf("sources_from minus today: %v, want [1 0] (existing website, new one)", days)
	}
	var columns int
	if err := db.Get(&columns, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'visit_rows'
		AND column_name IN ('source', 'channel', 'utm_source', 'utm_medium', 'utm_term', 'utm_content')`); err != nil || columns != 6 {
		t.Errorf("visit_rows has %d of the 6 columns (%v)", columns, err)
	}
}
