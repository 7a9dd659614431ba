package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/phpanalytics"
	"github.com/analytics-service/analytics/repository"
)

// importCommand runs `analytics import SOURCE ...`.
func importCommand(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("import needs a source\n%s", usage)
	}
	switch args[1] {
	case "phpanalytics":
		return importPHPAnalytics(ctx, cfg, args[2:], stdout, importer.TerminalProgress())
	}
	return fmt.Errorf("unknown import source %q\n%s", args[1], usage)
}

// importPHPAnalytics runs `analytics import phpanalytics`; progress may be nil.
func importPHPAnalytics(ctx context.Context, cfg config, args []string, stdout io.Writer, progress *importer.Progress) error {
	fs := flag.NewFlagSet("import phpanalytics", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dsn := fs.String("dsn", "", "the phpAnalytics database: user:password@tcp(host:3306)/database")
	user := fs.String("user", "", "e-mail of the user who gets every website (default: each website's phpAnalytics owner)")
	appKey := fs.String("app-key", "", "phpAnalytics' APP_KEY (base64:...), to bring site passwords along")
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
