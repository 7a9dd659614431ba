// Command analytics is the service's one binary: it serves the API, runs migrations and manages
// users and API keys. Configuration comes from the environment (see README).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/handlers"
	"github.com/analytics-service/analytics/repository"
)

const usage = `usage:
  analytics serve                      migrate, then serve the API on LISTEN_ADDR
  analytics migrate                    apply database migrations and exit
  analytics user create --email E      create a user; prints its API key on the last line
  analytics key create --email E       add an API key to a user; prints it on the last line
  analytics key revoke KEY             revoke an API key at once
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(ctx, os.Args[1:], os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "analytics:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		return errors.New("no command\n" + usage)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	switch cmd := args[0]; cmd {
	case "serve":
		return serve(ctx, cfg, log)
	case "migrate":
		db, err := openDB(ctx, cfg)
		if err != nil {
			return err
		}
		defer db.Close()
		return repository.Migrate(ctx, db)
	case "user", "key":
		return manage(ctx, cfg, args, stdout)
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}

// config is everything read from the environment.
type config struct {
	DatabaseURL string
	ListenAddr  string
	Location    *time.Location
	RateLimit   float64
}

func loadConfig() (config, error) {
	cfg := config{
		DatabaseURL: os.Getenv("DATABASE_URL"),
		ListenAddr:  envOr("LISTEN_ADDR", ":8080"),
		Location:    time.UTC,
		RateLimit:   50,
	}
	if tz := os.Getenv("TZ"); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return config{}, fmt.Errorf("TZ: %w", err)
		}
		cfg.Location = loc
	}
	if v := os.Getenv("API_RATE_LIMIT"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n < 0 {
			return config{}, fmt.Errorf("API_RATE_LIMIT: %q is not a number >= 0", v)
		}
		cfg.RateLimit = n
	}
	return cfg, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func openDB(ctx context.Context, cfg config) (*sqlx.DB, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set")
	}
	return repository.Open(ctx, cfg.DatabaseURL)
}

func serve(ctx context.Context, cfg config, log *slog.Logger) error {
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := repository.Migrate(ctx, db); err != nil {
		return err
	}
	e, err := handlers.NewServer(handlers.Options{
		Repo:      repository.New(db, nil),
		Logger:    log,
		RateLimit: cfg.RateLimit,
	})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr:              cfg.ListenAddr,
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("serving", "addr", cfg.ListenAddr, "time_zone", cfg.Location.String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func manage(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New(usage)
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := repository.Migrate(ctx, db); err != nil {
		return err
	}
	repo := repository.New(db, nil)
	what := args[0] + " " + args[1]
	switch what {
	case "user create", "key create":
		fs := flag.NewFlagSet(what, flag.ContinueOnError)
		email := fs.String("email", "", "the user's e-mail address")
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		if *email == "" || fs.NArg() > 0 {
			return fmt.Errorf("%s needs --email and nothing else", what)
		}
		var user repository.User
		if what == "user create" {
			user, err = repo.CreateUser(ctx, *email)
			if errors.Is(err, repository.ErrConflict) {
				return fmt.Errorf("a user with e-mail %q exists; use `analytics key create --email %s`", *email, *email)
			}
		} else {
			user, err = repo.UserByEmail(ctx, *email)
			if errors.Is(err, repository.ErrNotFound) {
				return fmt.Errorf("no user with e-mail %q", *email)
			}
		}
		if err != nil {
			return err
		}
		key, err := repo.CreateAPIKey(ctx, user.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "API key for %s (user %d), shown only once:\n%s\n", user.Email, user.ID, key)
		return nil
	case "key revoke":
		if len(args) != 3 {
			return errors.New("key revoke needs exactly one KEY")
		}
		err := repo.RevokeAPIKey(ctx, args[2])
		if errors.Is(err, repository.ErrNotFound) {
			return errors.New("no such API key")
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "revoked")
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", what, usage)
}
