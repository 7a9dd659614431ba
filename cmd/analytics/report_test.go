package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/analytics-service/analytics/reports/smtptest"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
)

// reportFixture makes owners with an email-1 website each, created in September 2026, with
// some October traffic, and points SMTP_URL at a plain test server (the CLI trusts only the
// system's certificates, so this server offers no STARTTLS; TLS and AUTH are tested in
// reports/).
func reportFixture(t *testing.T, owners int) (*smtptest.Server, string, *repository.Repository) {
	t.Helper()
	db, dbURL := repotest.New(t)
	created := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	repo := repository.New(db, func() time.Time { return created })
	ctx := context.Background()
	for i := range owners {
		u, err := repo.CreateUser(ctx, fmt.Sprintf("owner%02d@example.com", i))
		if err != nil {
			t.Fatal(err)
		}
		w, err := repo.CreateWebsite(ctx, u.ID, repository.NewWebsite{Domain: fmt.Sprintf("site%02d.example", i), Email: 1, ExcludeBots: 1})
		if err != nil {
			t.Fatal(err)
		}
		oct := time.Date(2026, 10, 7, 0, 0, 0, 0, time.UTC)
		if _, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Counts: []repository.StatCount{
			{WebsiteID: w.ID, Name: "pageview", Date: oct, Value: "2026-10-07", Count: 42},
			{WebsiteID: w.ID, Name: "visitor", Date: oct, Value: "2026-10-07", Count: 40},
			{WebsiteID: w.ID, Name: "page", Date: oct, Value: "/pricing", Count: 42},
		}}, 0); err != nil {
			t.Fatal(err)
		}
	}
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
	t.Setenv("DATABASE_URL", dbURL)
	t.Setenv("SMTP_URL", srv.URL())
	t.Setenv("REPORT_FROM", "Analytics <reports@example.test>")
	t.Setenv("PUBLIC_URL", "https://stats.example.test")
	return srv, dbURL, repo
}

func TestReportSendCommand(t *testing.T) {
	srv, _, repo := reportFixture(t, 1)
	ctx := context.Background()

	out, err := runCmd(t, "report", "send", "--date", "2026-11-15", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"To: owner00@example.com\n", "Subject: Analytics report for October 2026\n",
		"site00.example", "Visitors", "40", "/pricing",
		"https://stats.example.test/stats/site00.example?from=2026-10-01&to=2026-10-31"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("the dry run sent %d messages", n)
	}
	if ds, err := repo.ReportDeliveries(ctx, "month", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)); err != nil || len(ds) != 0 {
		t.Fatalf("the dry run claimed %v (%v)", ds, err)
	}

	// A 451: the line says so, the command fails, the report stays due.
	srv.FailNext(smtptest.ErrTryLater)
	out, err = runCmd(t, "report", "send", "--date", "2026-11-15")
	if err == nil || !strings.HasPrefix(out, "owner00@example.com\tfailed: ") || !strings.Contains(out, "451") {
		t.Fatalf("with a 451: %v\n%s", err, out)
	}
	// Run again: sent now, whatever the backoff.
	out, err = runCmd(t, "report", "send", "--date", "2026-11-15")
	if err != nil || out != "owner00@example.com\tsent\n" {
		t.Fatalf("send: %v\n%q", err, out)
	}
	got := srv.Messages()
	if len(got) != 1 || got[0].To[0] != "owner00@example.com" {
		t.Fatalf("messages %v", got)
	}
	// And once only.
	out, err = runCmd(t, "report", "send", "--date", "2026-11-01")
	if err != nil || out != "no report of October 2026 left to send\n" || len(srv.Messages()) != 1 {
		t.Fatalf("again: %v %q, %d messages", err, out, len(srv.Messages()))
	}

	// A week, chosen by flag.
	out, err = runCmd(t, "report", "send", "--period", "week", "--date", "2026-10-12")
	if err != nil || out != "owner00@example.com\tsent\n" {
		t.Fatalf("week: %v %q", err, out)
	}
	if m := srv.Messages()[1].Parse(t); m.Header.Get("Subject") != "Analytics report for the week of 5 October 2026" {
		t.Fatalf("week subject %q", m.Header.Get("Subject"))
	}

	for _, bad := range [][]string{
		{"report"}, {"report", "frobnicate"}, {"report", "send", "extra"},
		{"report", "send", "--period", "year"}, {"report", "send", "--date", "2026-13-01"},
		{"report", "send", "--frob"},
	} {
		if _, err := runCmd(t, bad...); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
	t.Setenv("SMTP_URL", "")
	if _, err := runCmd(t, "report", "send"); err == nil || !strings.Contains(err.Error(), "SMTP_URL") {
		t.Errorf("without SMTP_URL: %v", err)
	}
	if _, err := runCmd(t, "report", "send", "--dry-run", "--date", "2026-11-15"); err != nil {
		t.Errorf("a dry run needs no SMTP_URL: %v", err)
	}
	t.Setenv("SMTP_URL", "smtp://mail.example.com")
	t.Setenv("REPORT_FROM", "")
	if _, err := runCmd(t, "report", "send"); err == nil || !strings.Contains(err.Error(), "REPORT_FROM") {
		t.Errorf("without REPORT_FROM: %v", err)
	}
	t.Setenv("REPORT_PERIOD", "year")
	if _, err := runCmd(t, "migrate"); err == nil || !strings.Contains(err.Error(), "REPORT_PERIOD") {
		t.Errorf("REPORT_PERIOD=year: %v", err)
	}
	if !strings.Contains(usage, "analytics report send [--period week|month] [--date YYYY-MM-DD] [--dry-run]") {
		t.Error("the usage text lacks report send")
	}
}

// Without PUBLIC_URL a report's links have no address: `report send` refuses and sends
// nothing; --dry-run shows the reports with PUBLIC_URL in place of the address.
func TestReportSendNeedsPublicURL(t *testing.T) {
	srv, _, _ := reportFixture(t, 1)
	t.Setenv("PUBLIC_URL", "")
	if _, err := runCmd(t, "report", "send", "--date", "2026-11-15"); err == nil || !strings.Contains(err.Error(), "PUBLIC_URL is not set") {
		t.Fatalf("without PUBLIC_URL: %v", err)
	}
	out, err := runCmd(t, "report", "send", "--date", "2026-11-15", "--dry-run")
	if err != nil || !strings.Contains(out, "PUBLIC_URL/stats/site00.example?from=2026-10-01&to=2026-10-31") || strings.Contains(out, "localhost") {
		t.Fatalf("dry run without PUBLIC_URL: %v\n%s", err, out)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages sent without PUBLIC_URL", n)
	}
}

// Two `analytics report send` processes at once, on the same database: each report goes out
// once.
func TestTwoReportSendProcesses(t *testing.T) {
	const owners = 12
	srv, dbURL, _ := reportFixture(t, owners)
	bin := buildServerBinary(t)
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "report", "send", "--date", "2026-11-01")
			cmd.Env = childEnv(dbURL, "SMTP_URL="+srv.URL(), "REPORT_FROM=reports@example.test", "PUBLIC_URL=https://stats.example.test")
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("process %d: %v\n%s", i, err, out)
			}
			outs[i] = string(out)
		}()
	}
	wg.Wait()
	got := srv.Messages()
	to := map[string]int{}
	for _, m := range got {
		to[m.To[0]]++
	}
	sentLines := strings.Count(outs[0]+outs[1], "\tsent\n")
	if len(got) != owners || len(to) != owners || sentLines != owners {
		t.Fatalf("%d messages to %d owners, %d sent lines; want %d each:\n%s\n%s", len(got), len(to), sentLines, owners, outs[0], outs[1])
	}
}

// serve wires the reports: without SMTP_URL the log says once that none are sent, the
// unsubscribe links are served (a bad one is a 404 page), and the metrics exist.
func TestServeWithoutSMTP(t *testing.T) {
	bin := buildServerBinary(t)
	s := startServerProc(t, bin, "serve", freshDatabase(t), "SMTP_URL=")
	if got := s.status("/unsubscribe/1.1.bad"); got != 404 {
		t.Fatalf("/unsubscribe/1.1.bad: %d, want 404", got)
	}
	for _, name := range []string{"analytics_reports_sent_total", "analytics_reports_failed_total", "analytics_reports_oldest_unsent_age_seconds"} {
		s.metrics(t).Require(t, name)
	}
	s.terminate(t)
	s.waitExit(t)
	if n := strings.Count(s.logs.String(), "SMTP_URL is not set"); n != 1 {
		t.Fatalf("the log says SMTP_URL is not set %d times, want once:\n%s", n, s.logs)
	}
}
