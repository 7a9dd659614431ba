package repository_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Many members of three websites and three days, new and existing mixed, with duplicates in a
// batch, written by two nodes at once (overlapping keys, each node's batches in its own
// order), one batch retried: every key is counted once a day as a visitor if any member of it
// visited, once in each hour any member of it had, and visitor_days holds the union of them.
func TestManyMembersCountedOnceAcrossConcurrentFlushes(t *testing.T) {
	f := newFixture(t, "m1.example", "m2.example", "m3.example")
	ctx := context.Background()
	days := []time.Time{date("2026-03-03"), date("2026-03-04"), date("2026-03-05")}
	rng := rand.New(rand.NewPCG(29, 1))
	type ref struct {
		site int64
		day  time.Time
		key  [16]byte
	}
	want := map[ref]repository.Member{} // the union of every member sent
	batches := make([][]repository.Member, 8)
	for i := range batches {
		for range 2500 {
			m := repository.Member{WebsiteID: f.sites[rng.IntN(3)], Day: days[rng.IntN(3)], Visited: rng.IntN(3) > 0}
			m.Key[0], m.Key[15] = byte(rng.IntN(40)), byte(rng.IntN(20)) // 800 keys: many met again
			for range 1 + rng.IntN(3) {
				m.Hours |= 1 << rng.IntN(24)
			}
			batches[i] = append(batches[i], m)
			r := ref{m.WebsiteID, m.Day, m.Key}
			u := want[r]
			u.WebsiteID, u.Day, u.Key, u.Visited, u.Hours = m.WebsiteID, m.Day, m.Key, u.Visited || m.Visited, u.Hours|m.Hours
			want[r] = u
		}
	}
	ids := make([]string, len(batches))
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	write := func(i int) error {
		members := append([]repository.Member(nil), batches[i]...) // AddVisitBatch sorts them
		_, err := f.repo.AddVisitBatch(ctx, repository.VisitBatch{ID: ids[i], Members: members}, 100)
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for node := range 2 {
		wg.Go(func() {
			for j := range len(batches) / 2 {
				i := node*len(batches)/2 + j
				if node == 1 {
					i = len(batches) - 1 - j
				}
				if errs[node] = write(i); errs[node] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := write(3); err != nil || errs[0] != nil || errs[1] != nil { // 3: retried
		t.Fatal(err, errs)
	}

	counts := map[string]int64{}
	for _, m := range want {
		if m.Visited {
			counts[fmt.Sprintf("%d %s visitor %s", m.WebsiteID, m.Day.Format(time.DateOnly), stats.DayValue(m.Day))]++
		}
		for h := range 24 {
			if m.Hours&(1<<h) != 0 {
				counts[fmt.Sprintf("%d %s visitor_hour %s", m.WebsiteID, m.Day.Format(time.DateOnly), stats.HourValue(h))]++
			}
		}
	}
	var rows []struct {
		Site  int64     `db:"website_id"`
		Date  time.Time `db:"date"`
		Name  string    `db:"name"`
		Value string    `db:"value"`
		Count int64     `db:"count"`
	}
	if err := f.db.Select(&rows, `SELECT website_id, date, name, value, count FROM stats WHERE name IN ('visitor', 'visitor_hour')`); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[fmt.Sprintf("%d %s %s %s", r.Site, r.Date.Format(time.DateOnly), r.Name, r.Value)] = r.Count
	}
	if len(got) != len(counts) || len(counts) < 200 {
		t.Errorf("%d counters, want %d", len(got), len(counts))
	}
	for k, n := range counts {
		if got[k] != n {
			t.Errorf("%s: %d, want %d", k, got[k], n)
		}
	}

	var stored []struct {
		Site    int64     `db:"website_id"`
		Day     time.Time `db:"day"`
		Key     []byte    `db:"key"`
		Visited bool      `db:"visited"`
		Hours   int64     `db:"hours"`
	}
	if err := f.db.Select(&stored, `SELECT website_id, day, key, visited, hours FROM visitor_days`); err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(want) {
		t.Errorf("%d rows in visitor_days, want %d", len(stored), len(want))
	}
	for _, s := range stored {
		r := ref{site: s.Site, day: stats.Day(s.Day)}
		copy(r.key[:], s.Key)
		if m := want[r]; m.Visited != s.Visited || int64(m.Hours) != s.Hours {
			t.Errorf("%v: visited %v hours %b, want %v %b", r, s.Visited, s.Hours, m.Visited, m.Hours)
		}
	}
}
