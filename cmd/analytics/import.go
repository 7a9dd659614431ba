package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/goatcounter"
	"github.com/analytics-service/analytics/importer/phpanalytics"
	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/repository"
)

// importCommand runs `analytics import SOURCE ...`.
func importCommand(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("import needs a source\n%s", usage)
	}
	switch args[1] {
	case "plausible":
		return importPlausible(ctx, cfg, args[2:], stdout)
	case "goatcounter":
		return importGoatCounter(ctx, cfg, args[2:], stdout)
	case "phpanalytics":
		return importPHPAnalytics(ctx, cfg, args[2:], stdout, importer.TerminalProgress())
	}
	return fmt.Errorf("unknown command %q: the sources are plausible, goatcounter and phpanalytics\n%s", "import "+args[1], usage)
}

// exportFile is the file and website of `analytics import SOURCE --website DOMAIN FILE`.
type exportFile struct {
	file *os.File
	size int64
	site repository.Website
	repo *repository.Repository
	// progress prints the phases on a terminal; nil elsewhere (a log gets the summary only).
	progress func(importer.PhaseProgress)
	close    func()
}

// openExport reads the flags of an import of one file into one website, and opens both.
func openExport(ctx context.Context, cfg config, source, file string, args []string) (*exportFile, error) {
	fs := flag.NewFlagSet("import "+source, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	domain := fs.String("website", "", "the domain of the website to import into")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("import %s: %w\n%s", source, err, usage)
	}
	if *domain == "" || fs.NArg() != 1 {
		return nil, fmt.Errorf("import %s: give --website DOMAIN and one %s\n%s", source, file, usage)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", source, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("import %s: %w", source, err)
	}
	db, repo, err := openRepo(ctx, cfg)
	if err != nil {
		f.Close()
		return nil, err
	}
	out := &exportFile{file: f, size: info.Size(), repo: repo, close: func() { f.Close(); db.Close() }}
	out.site, err = repo.WebsiteByDomain(ctx, *domain)
	if err != nil {
		out.close()
		if errors.Is(err, repository.ErrNotFound) {
			return nil, fmt.Errorf("import %s: no website has the domain %q", source, *domain)
		}
		return nil, fmt.Errorf("import %s: %w", source, err)
	}
	if isTerminal(os.Stderr) {
		out.progress = func(p importer.PhaseProgress) { printProgress(os.Stderr, p) }
	}
	return out, nil
}

// done ends the progress line, and says that a failed import imported nothing.
func (x *exportFile) done(source string, err error) error {
	if x.progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return fmt.Errorf("import %s: %s: %w; nothing was imported", source, x.file.Name(), err)
	}
	return nil
}

// importPlausible runs `analytics import plausible --website DOMAIN FILE.zip`.
func importPlausible(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	x, err := openExport(ctx, cfg, "plausible", "FILE.zip", args)
	if err != nil {
		return err
	}
	defer x.close()
	sum, err := plausible.Import(ctx, x.repo, plausible.Website{ID: x.site.ID, Domain: x.site.Domain}, x.file, x.size, plausible.Options{Progress: x.progress})
	if err := x.done("plausible", err); err != nil {
		return err
	}
	printSummary(stdout, x.site.Domain, sum)
	return nil
}

// importGoatCounter runs `analytics import goatcounter --website DOMAIN FILE.csv[.gz]`.
func importGoatCounter(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	x, err := openExport(ctx, cfg, "goatcounter", "FILE.csv (or FILE.csv.gz)", args)
	if err != nil {
		return err
	}
	defer x.close()
	site := goatcounter.Website{ID: x.site.ID, Domain: x.site.Domain, Zone: x.site.Zone(cfg.Location)}
	sum, err := goatcounter.Import(ctx, x.repo, site, x.file, x.size, goatcounter.Options{Progress: x.progress})
	if err := x.done("goatcounter", err); err != nil {
		return err
	}
	printGoatCounterSummary(stdout, x.site.Domain, sum)
	return nil
}

// isTerminal tells whether f is a terminal, where a progress line rewritten in place reads well.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func printProgress(w io.Writer, p importer.PhaseProgress) {
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Rows) / s
	}
	fmt.Fprintf(w, "\r%s %s: %d rows, %.0f rows/s\033[K", p.Phase, p.File, p.Rows, rate)
}

// printSummary writes what the import did, and what it left out.
func printSummary(w io.Writer, domain string, s plausible.Summary) {
	fmt.Fprintf(w, "imported into %s: %d files, %d rows, %d days", domain, s.Files, s.Rows, s.Days)
	if s.Days > 0 {
		fmt.Fprintf(w, " (%s to %s)", s.First.Format(time.DateOnly), s.Last.Format(time.DateOnly))
	}
	fmt.Fprintf(w, ", %d counters: %d visitors, %d visits, %d pageviews\n", s.Counters, s.Visitors, s.Visits, s.Pageviews)
	printRefused(w, s.Refused)
	for _, line := range s.Transformed {
		fmt.Fprintln(w, "changed:", line)
	}
	if len(s.LeftOut) > 0 {
		fmt.Fprintln(w, "left out (no counterpart here):")
		importer.PrintReasons(w, "  ", s.LeftOut)
	}
	for _, line := range s.UnusedColumns {
		fmt.Fprintln(w, "left out:", line)
	}
	for _, name := range s.OtherFiles {
		fmt.Fprintln(w, "left out: file", name, "(not a Plausible table)")
	}
}

// printRefused lists the days an import left out because they held data.
func printRefused(w io.Writer, refused []repository.HeldDay) {
	var imported, collected []time.Time
	for _, h := range refused {
		if h.Source != "" {
			imported = append(imported, h.Day)
		} else {
			collected = append(collected, h.Day)
		}
	}
	if len(imported) > 0 {
		fmt.Fprintf(w, "skipped %d days imported before: %s\n", len(imported), importer.DayRanges(imported))
	}
	if len(collected) > 0 {
		fmt.Fprintf(w, "refused %d days that hold collected data: %s\n", len(collected), importer.DayRanges(collected))
	}
}

// printGoatCounterSummary writes what a GoatCounter import did, and what it left out.
func printGoatCounterSummary(w io.Writer, domain string, s goatcounter.Summary) {
	fmt.Fprintf(w, "imported into %s: %d rows (hits), %d days", domain, s.Rows, s.Days)
	if s.Days > 0 {
		fmt.Fprintf(w, " (%s to %s)", s.First.Format(time.DateOnly), s.Last.Format(time.DateOnly))
	}
	fmt.Fprintf(w, ", %d counters: %d visitors, %d visits, %d pageviews, %d events\n", s.Counters, s.Visitors, s.Visits, s.Pageviews, s.Events)
	printRefused(w, s.Refused)
	if len(s.LeftOut) > 0 {
		fmt.Fprintln(w, "left out or changed (no counterpart here):")
		importer.PrintReasons(w, "  ", s.LeftOut)
	}
}

// importPHPAnalytics runs `analytics import phpanalytics`; progress may be nil.
func importPHPAnalytics(ctx context.Context, cfg config, args []string, stdout io.Writer, progress *importer.Progress) error {
	fs := flag.NewFlagSet("import phpanalytics", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// The DSN's password and the APP_KEY may come from the environment instead, where other
	// users of the machine cannot read them in the process list.
	dsn := fs.String("dsn", os.Getenv("PHPANALYTICS_DSN"), "the phpAnalytics database: user:password@tcp(host:3306)/database")
	user := fs.String("user", "", "e-mail of the user who gets every website (default: each website's phpAnalytics owner)")
	appKey := fs.String("app-key", os.Getenv("PHPANALYTICS_APP_KEY"), "phpAnalytics' APP_KEY (base64:...), to bring site passwords along")
	dryRun := fs.Bool("dry-run", false, "read everything and print what would be imported; write nothing")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("import phpanalytics: %w\n%s", err, usage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("import phpanalytics: unexpected %q\n%s", fs.Args(), usage)
	}
	if *dsn == "" {
		return fmt.Errorf("import phpanalytics needs --dsn\n%s", usage)
	}
	repo, closeRepo, err := importRepo(ctx, cfg, *dryRun)
	if err != nil {
		return err
	}
	defer closeRepo()
	summary, err := phpanalytics.Run(ctx, phpanalytics.Options{
		DSN: *dsn, User: *user, AppKey: *appKey, DryRun: *dryRun, Location: cfg.Location,
		Repo: repo, Out: progress.Above(stdout), Progress: progress,
	})
	if summary != nil {
		summary.Print(stdout, *dryRun)
	}
	return err
}

// importRepo opens the service's database: migrated for an import, as it is for a dry run
// (which writes nothing, not even a migration), and none for a dry run without DATABASE_URL
// (which then cannot tell which domains and users exist here).
func importRepo(ctx context.Context, cfg config, dryRun bool) (*repository.Repository, func(), error) {
	if !dryRun {
		db, repo, err := openRepo(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		return repo, func() { db.Close() }, nil
	}
	if cfg.DatabaseURL == "" {
		return nil, func() {}, nil
	}
	db, err := repository.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	return repository.New(db, nil), func() { db.Close() }, nil
}
