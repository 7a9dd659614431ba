package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// losingWriter writes through to the repository, and loses the answer of its first write: the
// batch committed but the flusher does not know, as when the connection dies around COMMIT.
type losingWriter struct {
	repo    *repository.Repository
	batches []string
	applied []bool
}

func (w *losingWriter) AddVisitBatch(ctx context.Context, b repository.VisitBatch, maxValues int) (repository.Added, error) {
	added, err := w.repo.AddVisitBatch(ctx, b, maxValues)
	w.batches = append(w.batches, b.ID)
	w.applied = append(w.applied, added.Applied)
	if err == nil && len(w.batches) == 1 {
		return repository.Added{}, errors.New("connection reset")
	}
	return added, err
}

// A flush past the limit of values whose outcome was lost is retried with the same batch, which
// adds nothing: no count twice, under its value or under (other).
func TestRetriedFlushPastTheLimitAddsOnce(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	user, err := repo.CreateUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	site, err := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	counters := NewCounters(100)
	writer := &losingWriter{repo: repo}
	f := NewFlusher(counters, writer, time.Second, 2, nil, slog.New(slog.DiscardHandler))
	day := dayNumber(time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC))
	page := func(v string) Key { return Key{WebsiteID: site.ID, Name: stats.Page, Day: day, Value: v} }
	if err := counters.Add([]Key{page("/a"), page("/b"), page("/c"), page("/c")}); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(ctx); err == nil {
		t.Fatal("the lost write was not reported")
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if len(writer.batches) != 2 || writer.batches[0] != writer.batches[1] || !writer.applied[0] || writer.applied[1] {
		t.Fatalf("batches %v applied %v: want one batch written, then retried without effect", writer.batches, writer.applied)
	}
	var rows []struct {
		Value string `db:"value"`
		Count int64  `db:"count"`
	}
	if err := db.Select(&rows, `SELECT value, count FROM stats ORDER BY value`); err != nil {
		t.Fatal(err)
	}
	// The two places go to the most counted (/c), then the first by value (/a).
	want := `[{(other) 1} {/a 1} {/c 2}]`
	if got := fmt.Sprint(rows); got != want {
		t.Fatalf("stats %s, want %s", got, want)
	}
}

// Deltas that cancel out in a batch are not written, and free their place in the buffer all
// the same: the buffer's count of keys returns to 0 (a leak here filled it until every hit
// was a 503, and kept a stopping node draining for ever).
func TestCancelledDeltasFreeTheBuffer(t *testing.T) {
	counters := NewCounters(100)
	f := NewFlusher(counters, nil, time.Second, 10, nil, slog.New(slog.DiscardHandler))
	k := Key{WebsiteID: 1, Name: stats.ExitPage, Day: 1, Value: "/a"}
	counters.addDeltas([]delta{{k, 1}, {k, -1}})
	if counters.Size() != 1 {
		t.Fatalf("size %d, want 1", counters.Size())
	}
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if counters.Size() != 0 {
		t.Fatalf("size %d after the flush, want 0", counters.Size())
	}
	if err := f.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A batch split in parts (refused content) carries what the node may still write in its last
// part only: it holds once every row before it is written.
func TestSplitBatchReportsLast(t *testing.T) {
	open := &repository.NodeOpen{Node: "n", Oldest: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), At: time.Now()}
	b := &repository.VisitBatch{ID: "b", Node: "n", Open: open, Counts: make([]repository.StatCount, 5)}
	first, second := splitBatch(b)
	if first.Open != nil || second.Open != open {
		t.Fatalf("parts carry %v and %v, want nothing and then the report", first.Open, second.Open)
	}
	left, right := splitBatch(second)
	if left.Open != nil || right.Open != open {
		t.Fatalf("a part split again carries %v and %v, want nothing and then the report", left.Open, right.Open)
	}
}
