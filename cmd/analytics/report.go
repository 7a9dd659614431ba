package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
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

// reportLinks is the address the reports link to: PUBLIC_URL, else this node's own address on
// localhost, which only works for a reader on this machine; the caller says so once.
func reportLinks(cfg config) (reports.Links, bool) {
	if cfg.PublicURL != nil {
		return reports.Links{Base: cfg.PublicURL}, true
	}
	host, port, err := net.SplitHostPort(cfg.ListenAddr)
	if err != nil {
		host, port = "", "8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return reports.Links{Base: &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port)}}, false
}

// newReporter is the reporter of `analytics report send`, outside the service.
func newReporter(cfg config, repo *repository.Repository, log *slog.Logger) *reports.Reporter {
	links, _ := reportLinks(cfg)
	return reports.New(reports.Config{
		Repo: repo, Location: cfg.Location, Links: links, Mailer: cfg.Mailer,
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
	if !*dryRun && cfg.Mailer == nil {
		return errors.New("SMTP_URL is not set: nothing can be sent (--dry-run shows the reports)")
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
