// Package repotest gives each test its own fresh, migrated PostgreSQL database.
//
// DATABASE_URL names a server (any database on it, usually "postgres"); `make test` starts a
// throw-away cluster and sets it. Without it tests fail: a test that needs PostgreSQL never
// skips. The first use in a test binary migrates a template database; each test then gets a
// clone of it, dropped when the test ends unless KEEP_TEST_DB=1 (to inspect it with psql).
package repotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mathrand "math/rand/v2"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

const templateName = "analytics_test_template"

// templateLock serialises template migration and cloning across test binaries that run in
// parallel: CREATE DATABASE refuses a template that has an open connection.
const templateLock = 7_273_111_002

var migrateOnce sync.Once
var migrateErr error

// ServerURL returns DATABASE_URL or fails the test.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		t.Fatal("DATABASE_URL is not set: tests need a real PostgreSQL. Run `make test`, which starts a throw-away cluster, or set DATABASE_URL to a server you own.")
	}
	return u
}

// NewEmpty creates a fresh database with no tables at all, for tests of the migrations.
func NewEmpty(t testing.TB) (*sqlx.DB, string) {
	t.Helper()
	return create(t, "template0")
}

// New creates a fresh migrated database for the test and returns it open, with its URL.
func New(t testing.TB) (*sqlx.DB, string) {
	t.Helper()
	return create(t, templateName)
}

func create(t testing.TB, template string) (*sqlx.DB, string) {
	t.Helper()
	server := ServerURL(t)
	ctx := context.Background()
	admin, err := repository.Open(ctx, server)
	if err != nil {
		t.Fatalf("connect to DATABASE_URL: %v", err)
	}
	defer admin.Close()

	if template == templateName {
		migrateOnce.Do(func() { migrateErr = migrateTemplate(ctx, admin, server) })
		if migrateErr != nil {
			t.Fatalf("prepare template database: %v", migrateErr)
		}
	}

	name := "test_" + randomSuffix()
	if err := withLock(ctx, admin, func(conn *sqlx.Conn) error {
		_, err := conn.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE `+template)
		return err
	}); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	dbURL := WithDatabase(server, name)
	db, err := repository.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() {
		db.Close()
		if os.Getenv("KEEP_TEST_DB") == "1" {
			t.Logf("kept test database %s", name)
			return
		}
		drop, err := repository.Open(ctx, server)
		if err != nil {
			t.Errorf("drop test database: %v", err)
			return
		}
		defer drop.Close()
		if _, err := drop.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})
	return db, dbURL
}

func migrateTemplate(ctx context.Context, admin *sqlx.DB, server string) error {
	return withLock(ctx, admin, func(conn *sqlx.Conn) error {
		var exists bool
		if err := conn.GetContext(ctx, &exists,
			`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, templateName); err != nil {
			return err
		}
		if !exists {
			if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+templateName); err != nil {
				return err
			}
		}
		tmpl, err := repository.Open(ctx, WithDatabase(server, templateName))
		if err != nil {
			return err
		}
		defer tmpl.Close()
		return repository.Migrate(ctx, tmpl)
	})
}

func withLock(ctx context.Context, admin *sqlx.DB, fn func(*sqlx.Conn) error) error {
	conn, err := admin.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, templateLock); err != nil {
		return err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, templateLock) //nolint:errcheck
	return fn(conn)
}

// WithDatabase returns the connection string with its database replaced; it accepts both the
// URL form (postgres://...) and the key=value form.
func WithDatabase(conn, name string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return conn + " dbname=" + name
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%d_%s", time.Now().Unix()%100000, hex.EncodeToString(b))
}

// Year describes a year of stats for benchmarks: Pages distinct pages every day, and with
// Others, the daily pageview and visitor series and every other statistic with as many
// values as a busy website has.
type Year struct {
	Pages  int
	Others bool
	// Visits, with Others, adds the counters of section 8 (RandomVisitDay's, about this many visits a
	// day: visitors, visits, bounces, durations, hourly counters) and the landing and exit
	// pages, search engines and social networks of a busy website.
	Visits int
}

// visitLists are the values a day of the visit-level lists of section 8 has on a busy website.
var visitLists = []struct {
	name   stats.Name
	values int
}{{stats.LandingPage, 300}, {stats.ExitPage, 300}, {stats.SearchEngine, 8}, {stats.SocialNetwork, 8}}

// SeedYear writes 365 days of stats from first on, through AddVisitBatch (so the monthly rollup is
// filled as in production), with skewed counts: a few popular values, a long tail.
func SeedYear(tb testing.TB, repo *repository.Repository, websiteID int64, first time.Time, y Year) {
	tb.Helper()
	rng := mathrand.New(mathrand.NewPCG(7, 7))
	batch := make([]repository.StatCount, 0, 50_000)
	flush := func() {
		if _, err := repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: batch}, 0); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	add := func(name stats.Name, date time.Time, value string, count int64) {
		batch = append(batch, repository.StatCount{WebsiteID: websiteID, Name: string(name), Date: date, Value: value, Count: count})
		if len(batch) == cap(batch) {
			flush()
		}
	}
	// Distinct values a day of a busy website, per statistic.
	others := []struct {
		name   stats.Name
		values int
	}{
		{stats.Referrer, 200}, {stats.Campaign, 20}, {stats.Continent, 6}, {stats.Country, 80}, {stats.City, 300},
		{stats.Browser, 15}, {stats.OperatingSystem, 10}, {stats.Device, 4}, {stats.Language, 40},
		{stats.ScreenResolution, 120}, {stats.Event, 50},
	}
	for d := 0; d < 365; d++ {
		date := first.AddDate(0, 0, d)
		for p := 0; p < y.Pages; p++ {
			add(stats.Page, date, fmt.Sprintf("/section-%d/page-%d", p%17, p), int64(1+rng.IntN(10)+5000/(p+1)))
		}
		if !y.Others {
			continue
		}
		day := stats.DayValue(date)
		if y.Visits > 0 {
			for _, c := range RandomVisitDay(rng, date, y.Visits).Counts(websiteID) {
				add(stats.Name(c.Name), c.Date, c.Value, c.Count)
			}
			for _, o := range visitLists {
				for v := 0; v < o.values; v++ {
					add(o.name, date, fmt.Sprintf("%s-%d", o.name, v), int64(1+rng.IntN(5)+3000/(v+1)))
				}
			}
		} else {
			add(stats.Pageview, date, day, int64(20_000+rng.IntN(5000)))
			add(stats.Visitor, date, day, int64(6_000+rng.IntN(2000)))
		}
		for _, o := range others {
			for v := 0; v < o.values; v++ {
				add(o.name, date, fmt.Sprintf("%s-%d", o.name, v), int64(1+rng.IntN(5)+3000/(v+1)))
			}
		}
	}
	flush()
}

// CountPageviews adds n pageviews to the website's daily counters of day, through
// AddVisitBatch: a view holding that many pageviews, for the reads whose sample is chosen by
// volume (stats.SampleFraction).
func CountPageviews(tb testing.TB, repo *repository.Repository, websiteID int64, day time.Time, n int64) {
	tb.Helper()
	batch := repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
		{WebsiteID: websiteID, Name: string(stats.Pageview), Date: day, Value: stats.DayValue(day), Count: n},
	}}
	if _, err := repo.AddVisitBatch(context.Background(), batch, 0); err != nil {
		tb.Fatal(err)
	}
}
