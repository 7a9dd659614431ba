package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// fixture is a fresh migrated database with one user owning a website per domain asked for.
type fixture struct {
	db    *sqlx.DB
	repo  *repository.Repository
	user  int64
	sites []int64 // in the order of the domains
}

func newFixture(t testing.TB, domains ...string) fixture {
	t.Helper()
	db, _ := repotest.New(t)
	f := fixture{db: db, repo: repository.New(db, nil)}
	ctx := context.Background()
	u, err := f.repo.CreateUser(ctx, "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	f.user = u.ID
	for _, d := range domains {
		w, err := f.repo.CreateWebsite(ctx, u.ID, repository.NewWebsite{Domain: d, ExcludeBots: 1})
		if err != nil {
			t.Fatal(err)
		}
		f.sites = append(f.sites, w.ID)
	}
	return f
}

// date is a calendar day written YYYY-MM-DD.
func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// runQuery parses a query API body and answers it over the website's rows in UTC, failing
// the test on either error.
func (f fixture) runQuery(t testing.TB, site int64, body string, env queryapi.Env) repository.QueryAnswer {
	t.Helper()
	q, err := queryapi.Parse([]byte(body), env)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	answer, err := f.repo.RunQuery(context.Background(), site, q, stats.FixedZone(time.UTC))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return answer
}
