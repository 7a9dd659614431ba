package main

// What the fault tests (fault_test.go) check: the stats the database holds against the hits
// answered 202, and the servers' logs, which may hold no visitor's IP address or user agent.

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

type statSums struct {
	pageview, page, visitor int64
	// visit, landing and exit: every visit has one landing page and one exit page once the
	// servers have stopped (a stop ends the visits in progress), whatever the flushes went
	// through; visitorDays is the distinct websites and days with pageviews, the visitors of
	// these tests' one visitor.
	visit, landing, exit, visitorDays int64
	monthlyPageview                   int64
	batches                           int64
	// The visits' rows (visit_rows): how many, their pageviews and the elements of their pages.
	// rowPagesDue: the pages the rows would list if each listed its pageviews up to its bound.
	rows, rowPageviews, rowPages, rowPagesDue int64
	bySite                                    map[int64]int64 // pageviews
}

func (s statSums) of(sites []int64) int64 {
	var n int64
	for _, id := range sites {
		n += s.bySite[id]
	}
	return n
}

// readSums opens a fresh connection each time: the test's own cluster restarts under it.
func readSums(dbURL string) (statSums, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := repository.Open(ctx, dbURL)
	if err != nil {
		return statSums{}, err
	}
	defer db.Close()
	sums := statSums{bySite: map[int64]int64{}}
	var byName []struct {
		Name  string `db:"name"`
		Count int64  `db:"count"`
	}
	if err := db.SelectContext(ctx, &byName, `SELECT name, sum(count)::bigint AS count FROM stats
		WHERE name IN ('pageview', 'page', 'visitor', 'visit', 'landing_page', 'exit_page') GROUP BY name`); err != nil {
		return statSums{}, err
	}
	for _, row := range byName {
		switch row.Name {
		case "pageview":
			sums.pageview = row.Count
		case "page":
			sums.page = row.Count
		case "visitor":
			sums.visitor = row.Count
		case "visit":
			sums.visit = row.Count
		case "landing_page":
			sums.landing = row.Count
		case "exit_page":
			sums.exit = row.Count
		}
	}
	var bySite []struct {
		ID    int64 `db:"website_id"`
		Count int64 `db:"count"`
	}
	if err := db.SelectContext(ctx, &bySite, `SELECT website_id, sum(count)::bigint AS count FROM stats
		WHERE name = 'pageview' GROUP BY website_id`); err != nil {
		return statSums{}, err
	}
	for _, row := range bySite {
		sums.bySite[row.ID] = row.Count
	}
	if err := db.GetContext(ctx, &sums.visitorDays, `SELECT count(*) FROM (SELECT DISTINCT website_id, date FROM stats
		WHERE name = 'pageview') AS days`); err != nil {
		return statSums{}, err
	}
	// Flushes write the rollups of ended periods only: roll up as if this month had ended, so
	// that the monthly rows of these hits exist to compare with the daily ones.
	if err := repository.New(db, nil).RollUp(ctx, time.Now().AddDate(0, 2, 0)); err != nil {
		return statSums{}, err
	}
	if err := db.GetContext(ctx, &sums.monthlyPageview,
		`SELECT coalesce(sum(count), 0)::bigint FROM stats_monthly WHERE name = 'pageview'`); err != nil {
		return statSums{}, err
	}
	if err := db.GetContext(ctx, &sums.batches, `SELECT count(*) FROM ingest_batches`); err != nil {
		return statSums{}, err
	}
	row := db.QueryRowxContext(ctx, `SELECT count(*), coalesce(sum(pageviews), 0)::bigint, coalesce(sum(cardinality(pages)), 0)::bigint,
		coalesce(sum(least(pageviews, $1)), 0)::bigint FROM visit_rows`, stats.MaxRowHits)
	if err := row.Scan(&sums.rows, &sums.rowPageviews, &sums.rowPages, &sums.rowPagesDue); err != nil {
		return statSums{}, err
	}
	return sums, nil
}

func mustReadSums(t *testing.T, dbURL string) statSums {
	t.Helper()
	sums, err := readSums(dbURL)
	if err != nil {
		t.Fatalf("read the stats: %v", err)
	}
	return sums
}

// checkExact: the pageviews counted equal the 202 answers, and the other rows of the same
// hits agree, daily and monthly alike. Every hit of these tests comes from one visitor (one
// address and user agent): one visitor a website and day, however many nodes, restarts and
// outages; and every visit, however its flushes went, has exactly one landing page and one
// exit page (its -1 and +1 as the exit moved were each written once), and one row for filters.
func checkExact(t *testing.T, sums statSums, accepted int64) {
	t.Helper()
	if sums.pageview != accepted {
		t.Errorf("stats hold %d pageviews, the servers answered 202 to %d hits (off by %+d)",
			sums.pageview, accepted, sums.pageview-accepted)
	}
	if sums.page != sums.pageview || sums.monthlyPageview != sums.pageview {
		t.Errorf("rows of the same hits disagree: pageview %d, page %d, monthly pageview %d",
			sums.pageview, sums.page, sums.monthlyPageview)
	}
	if sums.visitor != sums.visitorDays {
		t.Errorf("%d visitors, want %d: one visitor a website and day", sums.visitor, sums.visitorDays)
	}
	if sums.visit < sums.visitor || sums.landing != sums.visit || sums.exit != sums.visit {
		t.Errorf("visits %d, landing pages %d, exit pages %d: want one landing and one exit page a visit, and a visit a visitor at least",
			sums.visit, sums.landing, sums.exit)
	}
	// One row a visit, counting each of its pageviews once and listing each once up to the
	// row's bound (stats.MaxRowHits: these tests' visits are of thousands of hits), however
	// the flushes went.
	if sums.rows != sums.visit || sums.rowPageviews != sums.pageview || sums.rowPages != sums.rowPagesDue {
		t.Errorf("visit rows %d holding %d pageviews in %d pages, want %d rows (visits) holding %d in %d",
			sums.rows, sums.rowPageviews, sums.rowPages, sums.visit, sums.pageview, sums.rowPagesDue)
	}
}

// anyIPv4 finds dotted quads in the logs; only the servers' own listen address may appear.
var anyIPv4 = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// checkLogPrivacy: no visitor IP and no user agent is ever written.
func checkLogPrivacy(t testing.TB, name, logs string) {
	t.Helper()
	for _, secret := range []string{visitorIP, uaMarker, "AppleWebKit"} {
		if strings.Contains(logs, secret) {
			t.Errorf("%s logged %q: no IP address or user agent may be written", name, secret)
		}
	}
	for _, ip := range anyIPv4.FindAllString(logs, -1) {
		if ip != "127.0.0.1" {
			t.Errorf("%s logged the IP address %s", name, ip)
		}
	}
}
