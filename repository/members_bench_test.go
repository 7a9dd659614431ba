package repository_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
)

// BenchmarkAddMembers writes a flush's day membership (one op: one batch of 28,000 members of
// two websites, half of them new, as a flush of new-visitor traffic) through AddVisitBatch, as
// the flusher does: so its figures include the counters the new visitors add (addStats). Half
// of the others gain an hour. Its second case keeps 2 million rows of another day in
// visitor_days first, as a large website's day. It reports, for the writes alone (not the
// seeding of the existing rows between them), B/op and allocs/op, the CPU time of this process
// (go-cpu-ms/op) and of the PostgreSQL backend (pg-cpu-ms/op, when the server runs on this
// machine).
//
//	scripts/test.sh go test -run '^$' -bench AddMembers -benchmem ./repository/
func BenchmarkAddMembers(b *testing.B) {
	for _, kept := range []int{0, 2_000_000} {
		b.Run(fmt.Sprintf("kept=%d", kept), func(b *testing.B) { benchAddMembers(b, kept) })
	}
}

func benchAddMembers(b *testing.B, kept int) {
	f := newFixture(b, "members.a.bench", "members.b.bench")
	f.db.SetMaxOpenConns(1) // one backend, whose CPU time is read
	ctx := context.Background()
	const keep = `
		INSERT INTO visitor_days (website_id, day, key, visited, hours)
		SELECT CASE WHEN i % 2 = 0 THEN $1::bigint ELSE $2::bigint END, '2026-03-03', decode(md5(i::text), 'hex'), true, 512
		FROM generate_series(1, $3::bigint) AS i`
	if _, err := f.db.ExecContext(ctx, keep, f.sites[0], f.sites[1], kept); err != nil {
		b.Fatal(err)
	}
	if _, err := f.db.ExecContext(ctx, `ANALYZE visitor_days`); err != nil {
		b.Fatal(err)
	}
	const n = 28000
	members := make([]repository.Member, n)
	b.ReportAllocs()
	var self, pg time.Duration
	for op := 0; b.Loop(); op++ {
		b.StopTimer()
		day := date("2026-03-04").AddDate(0, 0, op)
		// The even keys were seen that day, in hour 9: seeded here, outside the figures.
		const seed = `
			INSERT INTO visitor_days (website_id, day, key, visited, hours)
			SELECT CASE WHEN i % 4 < 2 THEN $1::bigint ELSE $2::bigint END, $3::date,
				decode(lpad(to_hex(i), 32, '0'), 'hex'), true, 512
			FROM generate_series(0, $4::bigint - 1, 2) AS i`
		if _, err := f.db.ExecContext(ctx, seed, f.sites[0], f.sites[1], day.Format(time.DateOnly), n); err != nil {
			b.Fatal(err)
		}
		for i := range members {
			m := repository.Member{WebsiteID: f.sites[i%4/2], Day: day, Visited: true, Hours: 1 << 9}
			binary.BigEndian.PutUint64(m.Key[8:], uint64(i))
			if i%4 == 0 || i%2 == 1 {
				m.Hours |= 1 << 10 // new for half the existing ones
			}
			members[i] = m
		}
		// Shuffled as a flush's map order would give them.
		for i := range members {
			j := int(uint64(i) * 2654435761 % n)
			members[i], members[j] = members[j], members[i]
		}
		batch := repository.VisitBatch{ID: fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", op), Members: members}
		pg0, self0 := backendCPU(b, f.db), processCPU(b)
		b.StartTimer()
		if _, err := f.repo.AddVisitBatch(ctx, batch, 100); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		self += processCPU(b) - self0
		pg += backendCPU(b, f.db) - pg0
		b.StartTimer()
	}
	b.ReportMetric(float64(self)/float64(time.Millisecond)/float64(b.N), "go-cpu-ms/op")
	if pg >= 0 {
		b.ReportMetric(float64(pg)/float64(time.Millisecond)/float64(b.N), "pg-cpu-ms/op")
	}
}
