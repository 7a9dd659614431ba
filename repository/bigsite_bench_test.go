package repository_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/column"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// BenchmarkBigSite measures the big sites' targets (docs/big-sites.md): one website of
// BENCH_VISITS_PER_DAY visits a day (default 100,000) sharing visit_rows with BENCH_WEBSITES
// websites of 10,000 (default 20), for BENCH_DAYS days (default 30), written by
// repotest.WriteFilterBench, with a year of its counters (repotest.SeedYear). Over the last
// BENCH_DAYS days it times every query of BenchmarkQueryAPI's set (visit/NAME within 300 ms
// p95, hit/NAME within 1 s), funnels of 2 to 8 steps (hit/funnel_N, 1 s; counted by day as the
// service does after a copy, and hit/funnel_N_uncounted, each day counted first) and the
// dashboard's reads unfiltered (300 ms) and filtered by a country, a page, a source, a goal
// and a property (dashboard/NAME, 1.5 s), and logs the bytes visit_rows takes per pageview.
// Every call is timed cold: what the column store keeps for the next reads (a filtered
// funnel's counts, the selections of a page or goal filter) is emptied first, as for the
// first view of it; dashboard/unfiltered_warm is the same view again, within their 10
// minutes. With
// BENCH_COLUMN=1 (the default) the column store holds every day but the last BENCH_OPEN_DAYS
// (those the service cannot have copied: not closed yet, repository/repository/closed: 0 from
// 12:01 UTC on the day after the data, the default; 1 before it; 3 under the static rule
// alone), which the visit rows answer; with BENCH_COLUMN=0 the visit rows answer everything;
// BENCH_COLUMN=2 times each visit-level query and each dashboard with the visit rows alone
// first, as rows/visit/NAME and rows/dashboard/NAME, on the same data. BENCH_PARTS=1 also
// times each of a dashboard's reads alone, as parts/NAME/READ. BENCH_LISTED_PAGES sets the
// column store's ListedPages (how many pages a filter tests on each visit's list before it
// joins a selection), to measure the choice.
//
//	make bench-bigsite (BENCH_RUNS runs each, default 10)
func BenchmarkBigSite(b *testing.B) {
	perDay := benchKnob(b, "BENCH_VISITS_PER_DAY", 100_000, 1)
	small := benchKnob(b, "BENCH_WEBSITES", 20, 0)
	days := benchKnob(b, "BENCH_DAYS", 30, 1)
	domains := []string{"big.example"}
	visits := []int{perDay}
	for i := range small {
		domains = append(domains, fmt.Sprintf("site%d.example", i))
		visits = append(visits, 10_000)
	}
	f := newFixture(b, domains...)
	site := f.sites[0]
	last := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	repotest.WriteFilterBench(b, f.db, repotest.FilterBench{Websites: f.sites, Visits: visits, Days: days, Last: last})
	start := time.Now()
	repotest.SeedYear(b, f.repo, site, last.AddDate(0, 0, -364), repotest.Year{Pages: 1000, Others: true, Visits: perDay})
	if _, err := f.db.Exec(`VACUUM ANALYZE stats, stats_weekly, stats_monthly`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded a year of counters in %v", time.Since(start).Round(time.Second))
	logFilterStorage(b, f)
	columns := benchKnob(b, "BENCH_COLUMN", 1, 0)
	parts := benchKnob(b, "BENCH_PARTS", 0, 0)
	rowsOnly := repository.New(f.db, nil)
	// cold empties what the column store keeps for the next reads (a filtered funnel's
	// counts, selections), so that every call is timed as the first view of it is; the
	// unfiltered dashboard is timed warm too. forgetCounted empties the funnels' counts by day.
	cold, forgetCounted := func() {}, func() {}
	closed := last.AddDate(0, 0, -benchKnob(b, "BENCH_OPEN_DAYS", 0, 0))
	if columns > 0 {
		store := useColumnStore(b, f, closed)
		cold, forgetCounted = store.ForgetKept, store.ForgetFunnelDays
		store.ListedPages = benchKnob(b, "BENCH_LISTED_PAGES", store.ListedPages, 0)
	}
	goals := queryBenchGoals(b, f, site)
	// The rows are ordered from the data's first day on (funnels and filters read them).
	if _, err := f.db.Exec(`UPDATE websites SET funnels_from = '2000-01-01', filters_from = '2000-01-01' WHERE id = $1`, site); err != nil {
		b.Fatal(err)
	}
	rng := stats.Range{From: last.AddDate(0, 0, 1-days), To: last}
	ctx := context.Background()

	env := queryapi.Env{Now: last.AddDate(0, 0, 1).Add(12 * time.Hour), Location: time.UTC}
	head := fmt.Sprintf(`"site_id": "big.example", "date_range": ["%s", "%s"], `, rng.From.Format(time.DateOnly), rng.To.Format(time.DateOnly))
	for _, c := range queryBenchCases {
		q, err := queryapi.Parse([]byte(`{`+head+c.body+`}`), env)
		if err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		run := func(name string, repo *repository.Repository) {
			b.Run(name, func(b *testing.B) {
				timeWithCPU(b, f, func() error {
					cold()
					answer, err := repo.RunQuery(ctx, site, q, stats.FixedZone(time.UTC))
					if err == nil && len(answer.Rows) == 0 {
						err = fmt.Errorf("no rows")
					}
					return err
				})
			})
		}
		if columns == 2 && strings.HasPrefix(c.name, "visit/") {
			run("rows/"+c.name, rowsOnly)
		}
		run(c.name, f.repo)
	}

	// Funnels of the first N of 8 steps: pages of a section, then events and other sections.
	// The service counts them by day once it has copied the closed days (CountColumnFunnels):
	// hit/funnel_N reads them so, hit/funnel_N_uncounted counts every day first.
	steps := []int64{goals[1], goals[10], goals[2], goals[11], goals[4], goals[12], goals[5], goals[7]}
	var funnels []stats.Funnel
	for n := 2; n <= 8; n++ {
		funnel, err := f.repo.CreateFunnel(ctx, site, fmt.Sprintf("%d steps", n), steps[:n])
		if err != nil {
			b.Fatal(err)
		}
		funnels = append(funnels, funnel)
	}
	countFunnels := func() {
		start := time.Now()
		days, err := f.repo.CountColumnFunnels(ctx, closed)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("counted %d funnel days through %s in %v", days, closed.Format(time.DateOnly), time.Since(start).Round(time.Millisecond))
	}
	countFunnels()
	for _, funnel := range funnels {
		n := len(funnel.Steps)
		for _, uncounted := range []bool{false, true} {
			name := fmt.Sprintf("hit/funnel_%d", n)
			if uncounted {
				name += "_uncounted"
			}
			b.Run(name, func(b *testing.B) {
				timeWithCPU(b, f, func() error {
					cold()
					if uncounted {
						forgetCounted()
					}
					numbers, _, err := f.repo.FunnelNumbers(ctx, site, rng, nil, funnel)
					if err == nil && numbers.Entering() == 0 {
						err = fmt.Errorf("nobody entered %d steps", n)
					}
					return err
				})
			})
		}
	}
	countFunnels() // again: each funnel_N_uncounted forgot the others' counts
	countFunnels() // and as at every later copy, nothing new: what a sync adds when idle

	for _, d := range []struct {
		name    string
		filters stats.Filters
	}{
		{"unfiltered", nil},
		{"country", stats.Filters{{Name: stats.Country, Value: "K1:Country 1"}}},
		{"page", stats.Filters{{Name: stats.Page, Value: "/section-1/page-1"}}},
		{"source", stats.Filters{{Name: stats.Referrer, Value: "referrer-1.example"}}},
		{"goal", stats.Filters{{Name: stats.GoalName, Value: "Pages 1"}}},
		{"property", stats.Filters{{Name: stats.Property, Key: "plan", Value: "plan-1"}}},
	} {
		run := func(name string, repo *repository.Repository, first func()) {
			b.Run(name, func(b *testing.B) {
				timeWithCPU(b, f, func() error {
					first()
					return dashboardReads(ctx, repo, site, rng, d.filters)
				})
			})
		}
		if columns == 2 {
			run("rows/dashboard/"+d.name, rowsOnly, cold)
		}
		run("dashboard/"+d.name, f.repo, cold)
		if d.filters == nil {
			run("dashboard/"+d.name+"_warm", f.repo, func() {})
		}
		if parts == 1 {
			for _, part := range dashboardParts(f.repo, site, rng, d.filters) {
				b.Run("parts/"+d.name+"/"+part.name, func(b *testing.B) {
					timeWithCPU(b, f, func() error {
						cold()
						return part.read(ctx)
					})
				})
			}
		}
		if d.filters != nil {
			checkSampledOrder(b, f.repo, site, rng, d.filters)
		}
	}
}

// checkSampledOrder holds a sampled view's top 10 of every list (a filtered view is read from
// the visit rows) in the exact order, and logs how many it compared: a fraction too small to
// keep it would fail here. An exact view has nothing to check.
func checkSampledOrder(b *testing.B, repo *repository.Repository, site int64, rng stats.Range, filters stats.Filters) {
	ctx := context.Background()
	basis, err := repo.RowReader(site, rng, filters).Basis(ctx)
	if err != nil || basis.Fraction == 1 {
		if err != nil {
			b.Fatal(err)
		}
		return
	}
	var names []stats.Name
	for _, n := range stats.Names {
		if n != stats.Pageview && n != stats.Visitor && n != stats.Visit {
			names = append(names, n)
		}
	}
	sampled, err := repo.RowReader(site, rng, filters).Top(ctx, names, 10)
	if err != nil {
		b.Fatal(err)
	}
	exact, err := repository.ExactRowReader(repo, site, rng, filters).Top(ctx, names, 10)
	if err != nil {
		b.Fatal(err)
	}
	compared := 0
	for _, n := range names {
		got, want := values(sampled[n].Entries), values(exact[n].Entries)
		if len(want) < 2 {
			continue
		}
		compared++
		if !slices.Equal(got, want) {
			b.Errorf("%v sampled at %v: top 10 of %s %v, exact %v", filters, basis.Fraction, n, sampled[n].Entries, exact[n].Entries)
		}
	}
	b.Logf("%v sampled at %v: %d lists' top 10 compared with the exact ones", filters, basis.Fraction, compared)
}

func values(entries []repository.StatEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Value
	}
	return out
}

// benchKnob is the environment variable name as a number of at least least, or def when unset.
func benchKnob(b *testing.B, name string, def, least int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		b.Fatalf("%s=%q: want a whole number of at least %d", name, s, least)
	}
	return n
}

// useColumnStore makes f's repository read the days through lastClosed from a column store
// filled from f's database, and logs the time the copy took and the file's bytes.
func useColumnStore(b *testing.B, f fixture, lastClosed time.Time) *column.Store {
	dir := b.TempDir()
	store, err := column.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	start := time.Now()
	if err := store.Sync(context.Background(), f.db.DB, lastClosed); err != nil {
		b.Fatal(err)
	}
	if err := store.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, column.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("column store: copied the days through %s in %v, %.1f MB", lastClosed.Format(time.DateOnly), time.Since(start).Round(time.Second), float64(info.Size())/1e6)
	f.repo.UseColumnStore(store)
	return store
}
