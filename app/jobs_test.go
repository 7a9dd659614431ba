package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/testkit"
)

// Each job runs every period; a failure is logged and counted and the job runs again; stop
// waits for a running job to return, and for a loop until it has returned.
func TestRunnerRunsJobsAndStopWaitsForThem(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	reg := prometheus.NewRegistry()
	var runs, running, loopDone atomic.Int32
	jobs := []Job{
		{Name: "holding job", Period: 10 * time.Millisecond, Run: func(ctx context.Context) error {
			running.Add(1)
			defer running.Add(-1)
			runs.Add(1)
			<-ctx.Done() // holds on until stop: stop must wait for it
			time.Sleep(50 * time.Millisecond)
			return errors.New("stopped")
		}},
		{Name: "failing job", Period: 10 * time.Millisecond, Run: func(context.Context) error {
			return errors.New("boom")
		}},
		{Name: "good job", Period: 10 * time.Millisecond, Run: func(context.Context) error { return nil }},
		{Name: "loop", Period: time.Hour, Loop: func(ctx context.Context) {
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond)
			loopDone.Store(1)
		}},
	}
	r := newRunner(jobs, reg, slog.New(slog.NewTextHandler(logs, nil)))
	r.start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for (runs.Load() == 0 || testutil.ToFloat64(r.failures.WithLabelValues("failing job")) < 2 ||
		testutil.ToFloat64(r.lastSuccess.WithLabelValues("good job")) == 0) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if runs.Load() == 0 {
		t.Fatal("the holding job never ran")
	}
	if n := testutil.ToFloat64(r.failures.WithLabelValues("failing job")); n < 2 {
		t.Fatalf("the failing job failed %v times, want it to run again after failing", n)
	}
	if ts := testutil.ToFloat64(r.lastSuccess.WithLabelValues("good job")); time.Since(time.Unix(int64(ts), 0)) > time.Minute {
		t.Fatalf("last success of the good job %v", ts)
	}
	r.stop(context.Background())
	if running.Load() != 0 {
		t.Fatal("stop returned while a job was still running")
	}
	if loopDone.Load() != 1 {
		t.Fatal("stop returned before the loop did")
	}
	if !strings.Contains(logs.String(), "failing job failed; will retry") {
		t.Fatalf("a failing job is not logged: %s", logs)
	}
	// The holding job's error came after stop had cancelled it: not a failure.
	if n := testutil.ToFloat64(r.failures.WithLabelValues("holding job")); n != 0 {
		t.Fatalf("a job cut short by stop counted as failed %v times", n)
	}
}

// The service's background work is one list, each job with a name, a period and exactly one
// of Run and Loop.
func TestJobList(t *testing.T) {
	db, _ := repotest.New(t)
	a, err := New(context.Background(), repository.New(db, nil), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, job := range a.Jobs() {
		if job.Name == "" || job.Period <= 0 || (job.Run == nil) == (job.Loop == nil) {
			t.Errorf("job %+v: want a name, a period and one of Run and Loop", job)
		}
		names = append(names, job.Name)
	}
	want := []string{"flush counters", "reload website settings", "forget old flush ids",
		"roll up ended weeks and months", "send e-mail reports", "send traffic alerts", "forget forgiven password attempts",
		"record API key use", "send account mail", "forget expired account links",
		"rotate visitor salts", "forget old realtime data", "forget old minutes", "keep visit row partitions"}
	if strings.Join(names, ", ") != strings.Join(want, ", ") {
		t.Fatalf("jobs %q, want %q", names, want)
	}
}

// The job "keep visit row partitions", on a fake clock: the partitions of yesterday to a week
// ahead exist from the start and are made ahead as days go by; each run rewrites one closed day
// (two days ago or older) in key order and says so; days past FACTS_RETENTION are dropped whole.
func TestKeepVisitRowPartitions(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	var clock atomic.Int64
	set := func(day string) {
		d, _ := time.Parse(time.DateOnly, day)
		clock.Store(d.Add(12 * time.Hour).UnixNano())
	}
	set("2026-03-04")
	a, err := New(ctx, repo, Config{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, FactsRetention: 32}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keep func(context.Context) error
	for _, job := range a.Jobs() {
		if job.Name == "keep visit row partitions" {
			keep = job.Run
		}
	}
	partitions := func() string {
		t.Helper()
		var days []string
		if err := db.Select(&days, `SELECT to_char(day, 'MM-DD') || CASE WHEN clustered THEN '*' ELSE '' END
			FROM visit_row_partitions ORDER BY day`); err != nil {
			t.Fatal(err)
		}
		return strings.Join(days, " ")
	}
	run := func() {
		t.Helper()
		if err := keep(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := partitions(), "03-02 03-03 03-04 03-05 03-06 03-07 03-08 03-09 03-10 03-11"; got != want {
		t.Fatalf("at startup: partitions %s, want %s", got, want)
	}
	// Rows of the 3rd written out of key order, as flushes write them over a day.
	for _, id := range []int{5, 3, 9, 1, 7} {
		if _, err := db.Exec(`INSERT INTO visit_rows (website_id, day, visitor, id, hour) VALUES ($1, '2026-03-03', $2, $3, 10)`, id%3+1, 10-id, id); err != nil {
			t.Fatal(err)
		}
	}
	set("2026-03-06")
	run()
	run()
	run() // the 4th is not over everywhere yet (a website's zone up to 26 hours behind TZ)
	if got, want := partitions(), "03-02* 03-03* 03-04 03-05 03-06 03-07 03-08 03-09 03-10 03-11 03-12 03-13"; got != want {
		t.Fatalf("on the 6th: partitions %s, want %s", got, want)
	}
	var order []string
	if err := db.Select(&order, `SELECT website_id || '/' || visitor || '/' || id FROM visit_rows_20260303 ORDER BY ctid`); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(order, " "), "1/1/9 1/7/3 2/3/7 2/9/1 3/5/5"; got != want {
		t.Fatalf("rows of a rewritten day in the order %s, want the key's %s", got, want)
	}
	var clustered bool
	if err := db.Get(&clustered, `SELECT indisclustered FROM pg_index WHERE indexrelid = 'visit_rows_20260303_pkey'::regclass`); err != nil || !clustered {
		t.Fatalf("the 3rd's key is not its clustering index (%v)", err)
	}
	// 33 days after the 4th, with a retention of 32 days: the 3rd to the 5th go, with their rows.
	set("2026-04-06")
	run()
	if got := partitions(); !strings.HasPrefix(got, "03-06* 03-07 ") || !strings.HasSuffix(got, " 04-13") {
		t.Fatalf("on April 6th: partitions %s, want 03-06 (rewritten) to 04-13", got)
	}
	var left int
	if err := db.Get(&left, `SELECT count(*) FROM pg_class WHERE relname IN ('visit_rows_20260303', 'visit_rows_20260304', 'visit_rows_20260305')`); err != nil || left != 0 {
		t.Fatalf("%d dropped partitions left (%v)", left, err)
	}
	if err := db.Get(&left, `SELECT count(*) FROM visit_rows`); err != nil || left != 0 {
		t.Fatalf("%d rows left (%v)", left, err)
	}
}

// FACTS_RETENTION is 32 to 3660 days: the service does not start with another.
func TestFactsRetentionBounds(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	for _, days := range []int{-1, 31, 3661} {
		_, err := New(context.Background(), repo, Config{FactsRetention: days}, nil)
		if err == nil || !strings.Contains(err.Error(), "FACTS_RETENTION") {
			t.Errorf("FACTS_RETENTION=%d: %v", days, err)
		}
	}
	for _, days := range []int{0, 32, 3660} {
		if _, err := New(context.Background(), repo, Config{FactsRetention: days, Registry: prometheus.NewRegistry()}, nil); err != nil {
			t.Errorf("FACTS_RETENTION=%d: %v", days, err)
		}
	}
}

// The same job deletes the visit rows of a website that keeps fewer days than FACTS_RETENTION
// past its own retention, and those days only; the other websites keep FACTS_RETENTION's.
func TestKeepVisitRowPartitionsAppliesEachRetention(t *testing.T) {
	db, _ := repotest.New(t)
	repo := repository.New(db, nil)
	ctx := context.Background()
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	a, err := New(ctx, repo, Config{Now: func() time.Time { return now }, FactsRetention: 60}, nil)
	if err != nil {
		t.Fatal(err)
	}
	user, err := repo.CreateUser(ctx, "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	short, _ := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "short.example", RetentionDays: ptr(32)})
	long, _ := repo.CreateWebsite(ctx, user.ID, repository.NewWebsite{Domain: "long.example"})
	// Rows on the 40th, 33rd, 32nd and 1st day counting today: 32 days keep the last two.
	if err := repo.EnsureVisitRowPartitions(ctx, now.AddDate(0, 0, -39), now); err != nil {
		t.Fatal(err)
	}
	for _, back := range []int{39, 32, 31, 0} {
		day := now.AddDate(0, 0, -back).Format(time.DateOnly)
		for _, site := range []int64{short.ID, long.ID} {
			db.MustExec(`INSERT INTO visit_rows (website_id, day, visitor, id, hour) VALUES ($1, $2, 1, $3, 10)`, site, day, back)
		}
	}
	for _, job := range a.Jobs() {
		if job.Name == "keep visit row partitions" {
			if err := job.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	days := func(site int64) string {
		var out []string
		if err := db.Select(&out, `SELECT to_char(day, 'MM-DD') FROM visit_rows WHERE website_id = $1 ORDER BY day`, site); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, " ")
	}
	if got, want := days(short.ID), "02-01 03-04"; got != want {
		t.Errorf("a website keeping 32 days: rows of %s, want %s", got, want)
	}
	if got, want := days(long.ID), "01-24 01-31 02-01 03-04"; got != want {
		t.Errorf("a website keeping FACTS_RETENTION: rows of %s, want %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }
