package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/repository"
)

// loadReportConfig reads SMTP_URL, REPORT_FROM and REPORT_PERIOD.
func loadReportConfig(cfg *config) error {
	var errs []error
	kind, err := reports.ParseKind(envOr("REPORT_PERIOD", reports.Month))
	if err != nil {
		errs = append(errs, fmt.Errorf("REPORT_PERIOD: %w", err))
	}
	cfg.ReportPeriod = kind
	if v := os.Getenv("SMTP_URL"); v != "" {
		m, err := reports.NewMailer(v, os.Getenv("REPORT_FROM"))
		if err != nil {
			errs = append(errs, err)
		}
		cfg.Mailer = m
	}
	return errors.Join(errs...)
}

// newReporter is the reporter of `analytics report send`, outside the service. Its links are
// under PUBLIC_URL; without it nothing can be sent.
func newReporter(cfg config, repo *repository.Repository, log *slog.Logger) *reports.Reporter {
	return reports.New(reports.Config{
		Repo: repo, Location: cfg.Location, Links: reports.Links{Base: cfg.PublicURL}, Mailer: cfg.Mailer,
		Kind: cfg.ReportPeriod, Log: log,
	}, nil)
}

// reportCommand runs `analytics report send`.
func reportCommand(ctx context.Context, cfg config, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) < 2 || args[1] != "send" {
		return fmt.Errorf("unknown command %q\n%s", args, usage)
	}
	fs := flag.NewFlagSet("report send", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kind := fs.String("period", cfg.ReportPeriod, "month or week")
	date := fs.String("date", "", "YYYY-MM-DD: send the last complete period before this day (default today)")
	dryRun := fs.Bool("dry-run", false, "print the text part of each report instead of sending")
	if err := fs.Parse(args[2:]); err != nil {
		return fmt.Errorf("report send: %w\n%s", err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("report send: unexpected %q\n%s", fs.Args(), usage)
	}
	k, err := reports.ParseKind(*kind)
	if err != nil {
		return fmt.Errorf("--period: %w", err)
	}
	day := time.Now().In(cfg.Location)
	if *date != "" {
		if day, err = time.Parse(time.DateOnly, *date); err != nil {
			return fmt.Errorf("--date: %q is not a date YYYY-MM-DD", *date)
		}
	}
	switch {
	case !*dryRun && cfg.Mailer == nil:
		return errors.New("SMTP_URL is not set: nothing can be sent (--dry-run shows the reports)")
	case !*dryRun && cfg.PublicURL == nil:
		return errors.New("PUBLIC_URL is not set: nothing can be sent, as a report's links need the service's " +
			"public address (--dry-run shows the reports with PUBLIC_URL in place of it)")
	case *dryRun && cfg.PublicURL == nil:
		log.Warn("PUBLIC_URL is not set: the links are shown as PUBLIC_URL/...; no report can be sent until it is set")
	}
	db, repo, err := openRepo(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	reporter := newReporter(cfg, repo, log)
	period := reports.LastComplete(k, day)
	if *dryRun {
		return reporter.DryRun(ctx, period, stdout)
	}
	lines, failed := 0, 0
	err = reporter.SendPeriod(ctx, period, func(o reports.Outcome) {
		fmt.Fprintln(stdout, o)
		lines++
		if o.Status == "failed" {
			failed++
		}
	})
	if err != nil {
		return err
	}
	if lines == 0 {
		fmt.Fprintf(stdout, "no report of %s left to send\n", period.Name())
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d reports failed; they stay due and are retried (by analytics serve, or by running this again)", failed, lines)
	}
	return nil
}
