package reports_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit"
	"github.com/analytics-service/analytics/testkit/harness"
)

// A 451 is recorded and retried after the backoff, not before, and the retry is the same
// message (same Message-ID); nothing is sent twice.
func TestTemporaryFailureIsRetriedLater(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	r, reg := e.reporter(e.Repo, e.smtp.URL())
	e.smtp.FailNext(smtptest.ErrTryLater, smtptest.ErrTryLater)
	e.Clock.Set(dueOctober.Add(5 * time.Minute))

	tick(t, r)
	checkFailed(t, e, 1, "451")
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_failed_total"); v != 1 {
		t.Fatalf("failed counter %v, want 1", v)
	}
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_oldest_unsent_age_seconds"); v != 300 {
		t.Fatalf("oldest unsent age %v, want 300 (due 5 minutes ago)", v)
	}
	e.Clock.Advance(59 * time.Second)
	tick(t, r)
	checkFailed(t, e, 1, "451") // still waiting for the first retry, a minute after

	e.Clock.Advance(time.Second)
	tick(t, r)
	checkFailed(t, e, 2, "451") // second failure: next wait is 2 minutes
	e.Clock.Advance(time.Minute + 59*time.Second)
	tick(t, r)
	checkFailed(t, e, 2, "451")

	e.Clock.Advance(time.Second)
	tick(t, r)
	got := e.smtp.WaitFor(t, 1, 10*time.Second)
	e.Clock.Advance(time.Hour)
	tick(t, r)
	if got = e.smtp.Messages(); len(got) != 1 {
		t.Fatalf("%d messages after recovery, want 1", len(got))
	}
	if id := decode(t, got[0]).get("Message-Id"); id != fmt.Sprintf("<report-%d-month-2026-10@example.test>", f.owner.ID) {
		t.Fatalf("Message-ID %q", id)
	}
	ds := e.deliveries()
	if len(ds) != 1 || ds[0].Status != "sent" || ds[0].Attempts != 3 {
		t.Fatalf("deliveries %+v", ds)
	}
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_sent_total"); v != 1 {
		t.Fatalf("sent counter %v", v)
	}
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_oldest_unsent_age_seconds"); v != 0 {
		t.Fatalf("oldest unsent age %v after sending", v)
	}
}

// checkFailed asserts that nothing was sent and the one report waits with its error.
func checkFailed(t testing.TB, e *env, attempts int, reason string) {
	t.Helper()
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages, want none yet", n)
	}
	ds := e.deliveries()
	if len(ds) != 1 || ds[0].Status != "pending" || ds[0].Attempts != attempts ||
		ds[0].LastError == nil || !strings.Contains(*ds[0].LastError, reason) {
		t.Fatalf("deliveries %+v, want one pending after %d attempts with %q", ds, attempts, reason)
	}
}

// A server that is down (connection refused), then up on the same address.
func TestConnectionRefusedThenRecovery(t *testing.T) {
	e := newEnv(t)
	setupOctober(e)
	addr := smtptest.FreeAddr(t)
	down := strings.Replace(e.smtp.URL(), e.smtp.Addr(), addr, 1)
	r, reg := e.reporter(e.Repo, down)
	e.Clock.Set(dueOctober)
	tick(t, r)
	checkFailed(t, e, 1, "connection refused")
	if v := testkit.GatherMetrics(t, reg).Require(t, "analytics_reports_failed_total"); v != 1 {
		t.Fatalf("failed counter %v", v)
	}

	up := smtptest.Start(t, smtptest.Options{Addr: addr, Like: e.smtp})
	e.Clock.Advance(time.Minute)
	tick(t, r)
	if got := up.WaitFor(t, 1, 10*time.Second); len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	if ds := e.deliveries(); ds[0].Status != "sent" || ds[0].Attempts != 2 {
		t.Fatalf("deliveries %+v", ds)
	}
}

// A server that accepts the connection and then says nothing: the attempt times out and is
// retried like any failure.
func TestSilentServerTimesOut(t *testing.T) {
	e := newEnv(t)
	setupOctober(e)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	m := e.mailer("smtp://" + l.Addr().String())
	m.Timeout = 500 * time.Millisecond
	r := reports.New(reports.Config{Repo: e.Repo, Links: reports.Links{Base: publicURL}, Mailer: m, Now: e.Clock.Now,
		Log: slog.New(slog.NewTextHandler(e.Logs, nil))}, nil)
	e.Clock.Set(dueOctober)
	start := time.Now()
	tick(t, r)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the attempt took %s despite a 500ms timeout", took)
	}
	ds := e.deliveries()
	if len(ds) != 1 || ds[0].Status != "pending" || ds[0].LastError == nil || !strings.Contains(*ds[0].LastError, "timeout") {
		t.Fatalf("deliveries %+v, want one pending with a timeout", ds)
	}
}

// Two processes (separate connection pools, separate reporters) ticking at the same time
// send each owner's report exactly once.
func TestTwoProcessesSendEachReportOnce(t *testing.T) {
	e := newEnv(t)
	e.Clock.Set(time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC))
	const owners = 25
	for i := range owners {
		o := e.User(fmt.Sprintf("owner%02d@example.com", i))
		e.site(o, fmt.Sprintf("site%02d.example", i), 1)
	}
	e.Clock.Set(dueOctober)
	var wg sync.WaitGroup
	for p := range 2 {
		r, _ := e.reporter(e.otherProcess(), e.smtp.URL())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if err := r.Tick(context.Background()); err != nil {
					t.Errorf("process %d: %v", p, err)
				}
			}
		}()
	}
	wg.Wait()
	got := e.smtp.Messages()
	seen := map[string]int{}
	ids := map[string]bool{}
	for _, m := range got {
		seen[m.To[0]]++
		ids[decode(t, m).get("Message-Id")] = true
	}
	if len(got) != owners || len(seen) != owners || len(ids) != owners {
		t.Fatalf("%d messages to %d owners with %d Message-IDs, want %d of each: %v", len(got), len(seen), len(ids), owners, seen)
	}
}

// A process that claimed a report and died: the report is taken over once its lease runs out,
// and not before.
func TestCrashedClaimIsTakenOverAfterTheLease(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.Clock.Set(dueOctober)
	p := reports.Due(reports.Month, e.Clock.Now(), time.UTC)
	if _, err := e.Repo.EnqueueReports(context.Background(), p.Kind, p.From, p.End(time.UTC), p.DueAt(time.UTC)); err != nil {
		t.Fatal(err)
	}
	// The "crashed" process: claims, then never finishes.
	dead := e.otherProcess()
	if _, err := dead.ClaimReport(context.Background(), repository.ReportClaimQuery{Now: e.Clock.Now(), Lease: reports.DefaultLease}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(reports.DefaultLease - time.Second)
	tick(t, r)
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("a claim was taken over %d times before its lease ran out", n)
	}
	e.Clock.Advance(time.Second)
	tick(t, r)
	got := e.smtp.WaitFor(t, 1, 10*time.Second)
	if id := decode(t, got[0]).get("Message-Id"); id != fmt.Sprintf("<report-%d-month-2026-10@example.test>", f.owner.ID) {
		t.Fatalf("Message-ID %q: a takeover must send the same message", id)
	}
	if ds := e.deliveries(); ds[0].Status != "sent" || ds[0].Attempts != 2 {
		t.Fatalf("deliveries %+v", ds)
	}
}

// Without SMTP_URL nothing is made or sent, and the log says so once.
func TestWithoutSMTPNothingIsSentAndTheLogSaysSoOnce(t *testing.T) {
	e := newEnv(t)
	setupOctober(e)
	r, _ := e.reporter(e.Repo, "")
	r.LogSetup() // at start-up
	e.Clock.Set(dueOctober)
	for range 3 {
		tick(t, r)
		e.Clock.Advance(time.Minute)
	}
	if n := strings.Count(e.Logs.String(), "SMTP_URL is not set"); n != 1 {
		t.Fatalf("the log says SMTP_URL is not set %d times, want once:\n%s", n, e.Logs)
	}
	if ds := e.deliveries(); len(ds) != 0 {
		t.Fatalf("reports made without SMTP: %+v", ds)
	}
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages", n)
	}
	if err := r.SendPeriod(context.Background(), reports.LastComplete(reports.Month, dueOctober), func(reports.Outcome) {}); err == nil {
		t.Fatal("SendPeriod without SMTP succeeded")
	}
}

// Without PUBLIC_URL a report's links would point wherever this process guesses: nothing is
// made or sent, and the log says so once.
func TestWithoutPublicURLNothingIsSentAndTheLogSaysSoOnce(t *testing.T) {
	e := newEnv(t)
	setupOctober(e)
	r, _ := e.reporterLinking(e.Repo, e.smtp.URL(), reports.Links{})
	r.LogSetup() // at start-up
	e.Clock.Set(dueOctober)
	for range 3 {
		tick(t, r)
		e.Clock.Advance(time.Minute)
	}
	if n := strings.Count(e.Logs.String(), "PUBLIC_URL is not set"); n != 1 || strings.Contains(e.Logs.String(), "SMTP_URL") {
		t.Fatalf("the log says PUBLIC_URL is not set %d times, want once (and nothing of SMTP_URL):\n%s", n, e.Logs)
	}
	if ds := e.deliveries(); len(ds) != 0 {
		t.Fatalf("reports made without PUBLIC_URL: %+v", ds)
	}
	err := r.SendPeriod(context.Background(), reports.LastComplete(reports.Month, dueOctober), func(reports.Outcome) {})
	if err == nil || !strings.Contains(err.Error(), "PUBLIC_URL") {
		t.Fatalf("SendPeriod without PUBLIC_URL: %v", err)
	}
	// A dry run shows the reports, with a placeholder where the address goes.
	var out strings.Builder
	if err := r.DryRun(context.Background(), reports.LastComplete(reports.Month, dueOctober), &out); err != nil ||
		!strings.Contains(out.String(), "PUBLIC_URL/stats/a.example?from=2026-10-01&to=2026-10-31") {
		t.Fatalf("dry run: %v\n%s", err, out.String())
	}
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages", n)
	}
}

// An owner who switched every website off after the report was made gets no message.
func TestReportOfAnOwnerWithNothingLeftIsSkipped(t *testing.T) {
	e := newEnv(t)
	f := setupOctober(e)
	r, _ := e.reporter(e.Repo, e.smtp.URL())
	e.smtp.FailNext(smtptest.ErrTryLater)
	e.Clock.Set(dueOctober)
	tick(t, r)
	for _, id := range []int64{f.a, f.b} {
		e.Do(harness.Request{Method: "PATCH", Path: fmt.Sprintf("/api/v1/websites/%d", id), Key: f.owner.Key, Form: map[string][]string{"email": {"0"}}})
	}
	e.Clock.Advance(time.Minute)
	tick(t, r)
	if n := len(e.smtp.Messages()); n != 0 {
		t.Fatalf("%d messages", n)
	}
	if ds := e.deliveries(); len(ds) != 1 || ds[0].Status != "skipped" {
		t.Fatalf("deliveries %+v", ds)
	}
}
