package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// BenchmarkStatsWriter is one flush of `make bench-ingest`'s size: 10,000 counters of 20 websites
// on a day whose 14,400 rows hold that traffic's values (pages, cities, referrers... per
// website). Besides the time of an op it reports pg-cpu-ms/op, the CPU time of the PostgreSQL
// backend that ran it (from /proc, when the server runs on this machine), which a busy machine
// disturbs less than the time. Cases: every value stored already (the steady state); 200 new
// values a flush, far from the limit; 200 new values a flush on days at the limit (a flood).
//
//	scripts/test.sh go test -run '^$' -bench StatsWriter -benchtime 50x ./repository/
func BenchmarkStatsWriter(b *testing.B) {
	for _, c := range []struct {
		name      string
		fresh     int // new values a flush
		maxValues int
	}{
		{"stored", 0, repository.DefaultMaxValuesPerDay},
		{"new_values", 200, repository.DefaultMaxValuesPerDay},
		{"at_the_limit", 200, 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := newFixture(b, benchDomains()...)
			f.db.SetMaxOpenConns(1)      // one backend, whose CPU time is read
			day := stats.Day(time.Now()) // today: its week and month are not rolled up yet
			stored := benchDay(f.sites, day)
			for i := 0; i < len(stored); i += 5000 {
				if _, err := f.repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: stored[i:min(i+5000, len(stored))]}, 0); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := f.db.Exec(`VACUUM ANALYZE`); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			batches := make([][]repository.StatCount, b.N)
			for i := range batches {
				batch := make([]repository.StatCount, 0, 10_000+c.fresh)
				for _, j := range rng.Perm(len(stored))[:10_000] {
					s := stored[j]
					s.Count = 1 + rng.Int64N(5)
					batch = append(batch, s)
				}
				for j := range c.fresh {
					s := stored[rng.IntN(len(stored))]
					s.Value += fmt.Sprintf("/new-%d-%d", i, j)
					batch = append(batch, s)
				}
				batches[i] = batch
			}
			cpu0 := backendCPU(b, f.db)
			b.ResetTimer()
			for i := range b.N {
				if _, err := writeBatch(f.repo, batches[i], c.maxValues); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if cpu := backendCPU(b, f.db); cpu0 >= 0 && cpu >= 0 {
				b.ReportMetric(float64(cpu-cpu0)/float64(time.Millisecond)/float64(b.N), "pg-cpu-ms/op")
			}
		})
	}
}

// writeBatch writes one batch as the flusher does.
func writeBatch(repo *repository.Repository, counts []repository.StatCount, maxValues int) (bool, error) {
	added, err := repo.AddVisitBatch(context.Background(), repository.VisitBatch{ID: uuid.NewString(), Counts: counts}, maxValues)
	return added.Applied, err
}

func benchDomains() []string {
	out := make([]string, 20)
	for i := range out {
		out[i] = fmt.Sprintf("bench%d.example.com", i+1)
	}
	return out
}

// benchDay is a day of every website's counters, with the numbers of values per statistic that
// `make bench-ingest` stores: 14,400 rows.
func benchDay(sites []int64, day time.Time) []repository.StatCount {
	values := map[string]int{"page": 354, "city": 170, "referrer": 53, "country": 50, "screen_resolution": 28,
		"event": 15, "language": 14, "campaign": 8, "browser": 7, "continent": 7, "operating_system": 7,
		"device": 5, "pageview": 1, "visitor": 1}
	var out []repository.StatCount
	for _, site := range sites {
		for name, n := range values {
			for v := range n {
				out = append(out, repository.StatCount{WebsiteID: site, Name: name, Date: day, Value: fmt.Sprintf("/%s/%d", name, v), Count: 1})
			}
		}
	}
	return out
}

// clusterCPU is the CPU time the whole database cluster has used (its postmaster, every live
// process it started and those it has reaped), or -1 when its processes cannot be read: the
// database's CPU of reads that run on several connections at once (the dashboard's), which no
// one backend's figure holds. Background processes (the checkpointer, autovacuum) add a little.
func clusterCPU(b *testing.B, db *sqlx.DB) time.Duration {
	var pid int
	if err := db.Get(&pid, `SELECT pg_backend_pid()`); err != nil {
		b.Fatal(err)
	}
	self, err := procStat(pid)
	if err != nil {
		return -1
	}
	postmaster := int(self[1]) // the field after the state: the parent's pid
	main, err := procStat(postmaster)
	if err != nil {
		return -1
	}
	ticks := main[11] + main[12] + main[13] + main[14] // its own and its reaped children's
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, err := procStat(child); err == nil && int(f[1]) == postmaster {
			ticks += f[11] + f[12]
		}
	}
	return time.Duration(ticks) * time.Second / 100 // clock ticks, 100 a second on Linux
}

// procStat are the fields of /proc/PID/stat after the command's closing parenthesis, as numbers:
// 0 the state (not a number, so 0), 1 the parent's pid, 11 and 12 utime and stime, 13 and 14
// the same of its reaped children, in clock ticks.
func procStat(pid int) ([]int64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	out := make([]int64, len(fields))
	for i, f := range fields {
		out[i], _ = strconv.ParseInt(f, 10, 64) // the state is not a number: 0
	}
	return out, nil
}

// backendCPU is the CPU time the database's only connection has used, or -1 when its
// process cannot be read (another machine).
func backendCPU(b *testing.B, db *sqlx.DB) time.Duration {
	var pid int
	if err := db.Get(&pid, `SELECT pg_backend_pid()`); err != nil {
		b.Fatal(err)
	}
	f, err := procStat(pid)
	if err != nil {
		return -1
	}
	return time.Duration(f[11]+f[12]) * time.Second / 100 // clock ticks, 100 a second on Linux
}
