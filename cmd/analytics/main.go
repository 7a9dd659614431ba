// Command analytics is the service's one binary: `serve` reads the environment (see README)
// and runs the service that package app builds; the other commands migrate the database,
// manage users and API keys, and send e-mail reports by hand.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/handlers"
	"github.com/analytics-service/analytics/ingest"
	"github.com/analytics-service/analytics/reports"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/sso"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

const usage = `usage:
  analytics serve                      migrate, then serve the API on LISTEN_ADDR
  analytics migrate                    apply database migrations and exit
  analytics user create --email E [--admin] [--scope stats:read]
                                       create a user (an admin with --admin; the first user is
                                       one anyway); prints its API key on the last line
  analytics key create --email E [--name N] [--scope stats:read]
                                       add an API key (named N, as the account page shows it)
                                       to a user; prints it on the last line. A key may do
                                       everything (sites:provision) unless --scope stats:read
                                       limits it to reading
  analytics key revoke KEY             revoke an API key at once
  analytics user password --email E    set a user's sign-in password for the stats pages, read
                                       from the first line of stdin (8..128 characters); ends
                                       the user's sessions
  analytics report send [--period week|month] [--date YYYY-MM-DD] [--dry-run]
                                       send now the e-mail reports of the last complete period
                                       before DATE (default today) not sent yet; one line per
                                       message; --dry-run prints their text instead
  analytics import plausible --website DOMAIN FILE.zip
                                       add a Plausible CSV export to the website's history;
                                       days that hold data already are left out and listed
  analytics import goatcounter --website DOMAIN FILE.csv[.gz]
                                       add a GoatCounter CSV export (format version 2, plain
                                       or gzipped) to the website's history; days that hold
                                       data already are left out and listed
  analytics import phpanalytics --dsn 'user:pass@tcp(host:3306)/db' [--user EMAIL]
                                       [--app-key KEY] [--dry-run]
                                       import a phpAnalytics database's websites and stats
                                       (read only there); --dry-run writes nothing;
                                       PHPANALYTICS_DSN and PHPANALYTICS_APP_KEY stand for
                                       --dsn and --app-key, out of the process list
  analytics snippet --url URL --domain D
                                       print the tracker's tag for the website D of the service
                                       at URL (with data-local for a local domain, as the pages
                                       show it); needs no database
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, log); err != nil {
		fmt.Fprintln(os.Stderr, "analytics:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		return errors.New("no command\n" + usage)
	}
	if args[0] == "snippet" {
		return snippetCommand(args[1:], stdout)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	switch cmd := args[0]; cmd {
	case "serve":
		return serve(ctx, cfg, log)
	case "migrate":
		db, _, err := openRepo(ctx, cfg)
		if err != nil {
			return err
		}
		return db.Close()
	case "user", "key":
		return manage(ctx, cfg, args, stdin, stdout)
	case "report":
		return reportCommand(ctx, cfg, args, stdout, log)
	case "import":
		return importCommand(ctx, cfg, args, stdout)
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}

// snippetCommand prints the tag the pages show for a website (web.SnippetFor): make run
// prints it for the demo's localhost.
func snippetCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("snippet", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base := fs.String("url", "", "the service's address")
	domain := fs.String("domain", "", "the website's domain")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return errors.New("usage: analytics snippet --url URL --domain D")
	}
	u, err := url.Parse(*base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q is not an http(s) address", *base)
	}
	if *domain == "" {
		return errors.New("--domain is required")
	}
	_, err = fmt.Fprintln(stdout, web.SnippetFor(*base, *domain))
	return err
}

// config is everything read from the environment.
type config struct {
	DatabaseURL     string
	ListenAddr      string
	Location        *time.Location
	RateLimit       float64
	PlausibleHourly int
	AuthFailLimit   float64
	EventRateLimit  float64
	GeoIPDB         string
	TrustedProxies  []netip.Prefix
	MetricsAllow    []netip.Prefix // nil: app.DefaultMetricsAllow
	FlushInterval   time.Duration
	SettingsTTL     time.Duration
	BufferMaxKeys   int
	MaxValuesPerDay int
	RowBytesPerDay  int // VISIT_ROW_BYTES_PER_DAY
	VisitTimeout    time.Duration
	MaxOpenVisits   int
	FactsRetention  int // days
	ShutdownTimeout time.Duration
	// QueryTimeout, MaxQueriesPerKey and MaxQueriesPerWebsite bound the stats reads
	// (QUERY_TIMEOUT, MAX_QUERIES_PER_KEY, MAX_QUERIES_PER_WEBSITE).
	QueryTimeout                           time.Duration
	MaxQueriesPerKey, MaxQueriesPerWebsite int
	// PublicURL is the service's address as people and e-mail readers reach it (links, the
	// tracker snippet, Secure cookies, e-mail reports); nil when PUBLIC_URL is unset.
	PublicURL *url.URL
	// AllowedHosts (ALLOWED_HOSTS) are the hosts whose address the pages may link to
	// absolutely when PUBLIC_URL is unset.
	AllowedHosts []string
	// Mailer sends the e-mail reports (SMTP_URL, REPORT_FROM); nil when SMTP_URL is unset.
	Mailer       *reports.Mailer
	ReportPeriod string // REPORT_PERIOD: reports.Month or reports.Week
	// OIDC is single sign-on (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET,
	// OIDC_AUTO_CREATE, OIDC_ALLOWED_DOMAINS); off without OIDC_ISSUER.
	OIDC sso.Config
}

// app is the service's configuration, from the environment's.
func (cfg config) app(geo *ingest.GeoDB) app.Config {
	return app.Config{
		Location: cfg.Location, PublicURL: cfg.PublicURL, AllowedHosts: cfg.AllowedHosts, TrustedProxies: cfg.TrustedProxies,
		APIRateLimit: cfg.RateLimit, PlausibleHourlyLimit: cfg.PlausibleHourly, AuthFailLimit: cfg.AuthFailLimit, EventRateLimit: cfg.EventRateLimit,
		Geo: geo, FlushInterval: cfg.FlushInterval, SettingsTTL: cfg.SettingsTTL, BufferMaxKeys: cfg.BufferMaxKeys,
		Mailer: cfg.Mailer, ReportPeriod: cfg.ReportPeriod, OIDC: cfg.OIDC,
		MetricsAllow:    cfg.MetricsAllow,
		MaxValuesPerDay: cfg.MaxValuesPerDay, VisitRowBytesPerDay: int64(cfg.RowBytesPerDay),
		VisitTimeout: cfg.VisitTimeout, MaxOpenVisits: cfg.MaxOpenVisits,
		FactsRetention: cfg.FactsRetention,
		QueryTimeout:   cfg.QueryTimeout, MaxQueriesPerKey: cfg.MaxQueriesPerKey, MaxQueriesPerWebsite: cfg.MaxQueriesPerWebsite,
	}
}

func loadConfig() (config, error) {
	cfg := config{
		DatabaseURL: os.Getenv("DATABASE_URL"),
		ListenAddr:  envOr("LISTEN_ADDR", ":8080"),
		Location:    time.UTC,
		GeoIPDB:     os.Getenv("GEOIP_DB"),
	}
	var errs []error
	if tz := os.Getenv("TZ"); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			errs = append(errs, fmt.Errorf("TZ: %w", err))
		}
		cfg.Location = loc
	}
	cfg.RateLimit = envFloat("API_RATE_LIMIT", 50, &errs)
	cfg.PlausibleHourly = envCountOrOff("PLAUSIBLE_API_RATE_LIMIT", 600, &errs)
	cfg.AuthFailLimit = envFloat("API_AUTH_FAILURE_LIMIT", 1, &errs)
	cfg.EventRateLimit = envFloat("EVENT_RATE_LIMIT", ingest.DefaultEventRateLimit, &errs)
	cfg.FlushInterval = envDuration("FLUSH_INTERVAL", ingest.DefaultFlushInterval, &errs)
	cfg.SettingsTTL = envDuration("SETTINGS_TTL", ingest.DefaultSettingsTTL, &errs)
	cfg.ShutdownTimeout = envDuration("SHUTDOWN_TIMEOUT", 30*time.Second, &errs)
	cfg.BufferMaxKeys = int(envFloat("BUFFER_MAX_KEYS", ingest.DefaultBufferMaxKeys, &errs))
	cfg.MaxValuesPerDay = envCount("MAX_VALUES_PER_DAY", ingest.DefaultMaxValuesPerDay, &errs)
	cfg.RowBytesPerDay = envCount("VISIT_ROW_BYTES_PER_DAY", repository.DefaultRowBytesPerDay, &errs)
	cfg.VisitTimeout = envDuration("VISIT_TIMEOUT", ingest.DefaultVisitTimeout, &errs)
	if cfg.VisitTimeout > ingest.MaxVisitTimeout {
		errs = append(errs, fmt.Errorf("VISIT_TIMEOUT: %s is longer than the most allowed, %s", cfg.VisitTimeout, ingest.MaxVisitTimeout))
	}
	cfg.MaxOpenVisits = envCount("MAX_OPEN_VISITS", ingest.DefaultMaxOpenVisits, &errs)
	cfg.QueryTimeout = envDuration("QUERY_TIMEOUT", handlers.DefaultQueryTimeout, &errs)
	if cfg.QueryTimeout > handlers.MaxQueryTimeout {
		errs = append(errs, fmt.Errorf("QUERY_TIMEOUT: %s is longer than the most allowed, %s", cfg.QueryTimeout, handlers.MaxQueryTimeout))
	}
	cfg.MaxQueriesPerKey = envCount("MAX_QUERIES_PER_KEY", handlers.DefaultMaxQueriesPerKey, &errs)
	cfg.MaxQueriesPerWebsite = envCount("MAX_QUERIES_PER_WEBSITE", handlers.DefaultMaxQueriesPerWebsite, &errs)
	if cfg.FactsRetention = envCount("FACTS_RETENTION", app.DefaultFactsRetention, &errs); cfg.FactsRetention >= 1 {
		if err := app.CheckFactsRetention(cfg.FactsRetention); err != nil {
			errs = append(errs, err)
		}
	}
	if v := os.Getenv("PUBLIC_URL"); v != "" {
		u, err := parsePublicURL(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("PUBLIC_URL: %w", err))
		}
		cfg.PublicURL = u
	}
	hosts, err := web.ParseAllowedHosts(os.Getenv("ALLOWED_HOSTS"))
	if err != nil {
		errs = append(errs, fmt.Errorf("ALLOWED_HOSTS: %w", err))
	}
	cfg.AllowedHosts = hosts
	if err := loadReportConfig(&cfg); err != nil {
		errs = append(errs, err)
	}
	cfg.TrustedProxies = envPrefixes("TRUSTED_PROXIES", &errs)
	if err := loadOIDC(&cfg); err != nil {
		errs = append(errs, err)
	}
	if os.Getenv("METRICS_ALLOW") != "" {
		cfg.MetricsAllow = envPrefixes("METRICS_ALLOW", &errs)
	}
	return cfg, errors.Join(errs...)
}

// loadOIDC reads single sign-on's settings: with OIDC_ISSUER, the client's id and secret are
// needed too.
func loadOIDC(cfg *config) error {
	issuer := os.Getenv("OIDC_ISSUER")
	cfg.OIDC = sso.Config{Issuer: issuer, ClientID: os.Getenv("OIDC_CLIENT_ID"), ClientSecret: os.Getenv("OIDC_CLIENT_SECRET")}
	switch v := os.Getenv("OIDC_AUTO_CREATE"); v {
	case "", "false":
	case "true":
		cfg.OIDC.AutoCreate = true
	default:
		return fmt.Errorf("OIDC_AUTO_CREATE: %q is not true or false", v)
	}
	for _, d := range strings.Split(os.Getenv("OIDC_ALLOWED_DOMAINS"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			cfg.OIDC.AllowedDomains = append(cfg.OIDC.AllowedDomains, d)
		}
	}
	if issuer == "" {
		return nil
	}
	if u, err := url.Parse(issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("OIDC_ISSUER: %q is not an http(s) address", issuer)
	}
	if cfg.OIDC.ClientID == "" || cfg.OIDC.ClientSecret == "" {
		return errors.New("OIDC_ISSUER is set: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are needed too")
	}
	return nil
}

// envPrefixes reads a comma-separated list of addresses and CIDR ranges.
func envPrefixes(name string, errs *[]error) []netip.Prefix {
	var out []netip.Prefix
	for _, item := range strings.Split(os.Getenv(name), ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		p, err := website.ParsePrefix(item)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		out = append(out, p)
	}
	return out
}

// parsePublicURL accepts an absolute http or https URL with a host and at most a path prefix
// ("https://stats.example.com", "https://example.com/analytics/"); the trailing slash is
// dropped so that links are the URL plus "/stats/...".
func parsePublicURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q is not an http(s) address such as https://stats.example.com", v)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func envFloat(name string, fallback float64, errs *[]error) float64 {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 {
		*errs = append(*errs, fmt.Errorf("%s: %q is not a number >= 0", name, v))
	}
	return n
}

// envCount reads a whole number >= 1: a limit that cannot be turned off.
func envCount(name string, fallback int, errs *[]error) int {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		*errs = append(*errs, fmt.Errorf("%s: %q is not a whole number >= 1", name, v))
	}
	return n
}

// envCountOrOff is envCount that also takes 0 (a limit turned off).
func envCountOrOff(name string, fallback int, errs *[]error) int {
	if os.Getenv(name) == "0" {
		return 0
	}
	return envCount(name, fallback, errs)
}

func envDuration(name string, fallback time.Duration, errs *[]error) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		*errs = append(*errs, fmt.Errorf("%s: %q is not a positive duration such as 1s or 500ms", name, v))
	}
	return d
}

// openRepo connects to DATABASE_URL and brings its schema up to date.
func openRepo(ctx context.Context, cfg config) (*sqlx.DB, *repository.Repository, error) {
	if cfg.DatabaseURL == "" {
		return nil, nil, errors.New("DATABASE_URL is not set")
	}
	db, err := repository.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	if err := repository.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, repository.New(db, nil), nil
}

// openPools connects the service's pools to DATABASE_URL (repository.Pools: the reads under
// QUERY_TIMEOUT) and brings its schema up to date.
func openPools(ctx context.Context, cfg config) (*repository.Pools, *repository.Repository, error) {
	if cfg.DatabaseURL == "" {
		return nil, nil, errors.New("DATABASE_URL is not set")
	}
	pools, err := repository.OpenPools(ctx, cfg.DatabaseURL, cfg.QueryTimeout)
	if err != nil {
		return nil, nil, err
	}
	if err := repository.Migrate(ctx, pools.Main); err != nil {
		pools.Close()
		return nil, nil, err
	}
	return pools, repository.NewOnPools(pools, nil), nil
}

// serve runs the service until SIGTERM/SIGINT, then stops accepting, lets requests in flight
// finish, writes every counter still in memory and exits.
func serve(ctx context.Context, cfg config, log *slog.Logger) error {
	paced := tuneGC(log)
	servePprof(log)
	pools, repo, err := openPools(ctx, cfg)
	if err != nil {
		return err
	}
	defer pools.Close()
	geo, err := openGeo(cfg.GeoIPDB, log)
	if err != nil {
		return err
	}
	defer geo.Close()

	service, err := app.New(ctx, repo, cfg.app(geo), log)
	if err != nil {
		return err
	}
	service.Reporter.LogSetup()
	if cfg.Mailer == nil || cfg.PublicURL == nil {
		log.Info("account mail off (SMTP_URL or PUBLIC_URL unset): invitation and set-password links are shown to admins, and /password-reset asks people to ask an admin")
	}
	if err := service.Start(ctx); err != nil {
		return err
	}
	if paced {
		go followOpenVisits(ctx, service.Pipeline.Visits)
	}
	if store := openColumnStore(ctx, repo, log); store != nil {
		defer store.Close()
	}

	srv := &http.Server{
		Addr:              cfg.ListenAddr,
		Handler:           service.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("serving", "addr", cfg.ListenAddr, "time_zone", cfg.Location.String(),
		"flush_interval", cfg.FlushInterval.String(), "trusted_proxies", len(cfg.TrustedProxies))
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	log.Info("shutting down: no new requests, writing the counters")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	shutdownErr := srv.Shutdown(shutdownCtx)
	if err := service.Stop(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	log.Info("stopped; every counter is written")
	return nil
}

// serveMemoryLimit is the Go heap the service grows to before collecting, when the operator
// sets neither GOGC nor GOMEMLIMIT. The live heap is small (about 10 MB, 40 MB with a full
// counter buffer) but every hit allocates a few KB, so with the default GOGC=100 the collector
// ran 34 times a second under load and its pauses made the p99 of /api/event (make
// bench-ingest, open loop at 15,000/s with GeoIP) 12 ms; collecting only near 100 MiB made it
// 4.3 ms and cut CPU per hit by a fifth, with a peak RSS of 163 MB (GeoIP's 67 MB mmap
// included).
const serveMemoryLimit = 100 << 20

func tuneGC(log *slog.Logger) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false // the operator's choice wins
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(serveMemoryLimit)
	log.Info("garbage collection paced by a 100 MiB heap limit above the open visits (set GOGC or GOMEMLIMIT to change it)")
	return true
}

// bytesPerOpenVisit is what an open visit holds in the heap (BenchmarkOpenVisits: about 256
// bytes with two distinct pages).
const bytesPerOpenVisit = 256

// followOpenVisits keeps the heap limit 100 MiB above what the open visits hold, every 10 s:
// they are live data (up to 256 MB at MAX_OPEN_VISITS), and a fixed limit below them would
// have the collector run without end.
func followOpenVisits(ctx context.Context, visits *ingest.Visits) {
	ticker := time.NewTicker(10 * time.Second)
	defer ticker.Stop()
	for {
		debug.SetMemoryLimit(serveMemoryLimit + int64(visits.Open())*bytesPerOpenVisit)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// openGeo opens the GeoIP database, or says once that there is none.
func openGeo(path string, log *slog.Logger) (*ingest.GeoDB, error) {
	if path == "" {
		log.Warn("GEOIP_DB is not set: continent, country and city will be recorded as \"\"")
		return nil, nil
	}
	geo, err := ingest.OpenGeoDB(path)
	if err != nil {
		return nil, fmt.Errorf("GEOIP_DB: %w", err)
	}
	return geo, nil
}

// userFlags reads the flags of the user commands: --email, and --admin or --name where the
// command takes them; anything else is refused.
type userFlags struct {
	email string
	admin bool
	name  string
	scope string
}

func parseUserFlags(what string, args []string) (userFlags, error) {
	fs := flag.NewFlagSet(what, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f userFlags
	fs.StringVar(&f.email, "email", "", "the user's e-mail address")
	if what == "user create" || what == "key create" {
		fs.StringVar(&f.scope, "scope", repository.ScopeSitesProvision, "what the key may do")
	}
	switch what {
	case "user create":
		fs.BoolVar(&f.admin, "admin", false, "make the user an admin")
	case "key create":
		fs.StringVar(&f.name, "name", "", "the key's name")
	}
	if err := fs.Parse(args); err != nil {
		return f, fmt.Errorf("%s: %w", what, err)
	}
	if f.email == "" || fs.NArg() > 0 {
		return f, fmt.Errorf("%s needs --email and nothing else", what)
	}
	// An empty --scope is refused too, not read as "no limit".
	if (what == "user create" || what == "key create") && f.scope != repository.ScopeStatsRead && f.scope != repository.ScopeSitesProvision {
		return f, fmt.Errorf("%s: --scope must be %s or %s", what, repository.ScopeStatsRead, repository.ScopeSitesProvision)
	}
	if utf8.RuneCountInString(f.name) > 100 {
		return f, fmt.Errorf("%s: --name must be at most 100 characters", what)
	}
	return f, nil
}

// setPassword reads a sign-in password from the first line of stdin (so that it appears in no
// process list or shell history) and stores its argon2id hash.
func setPassword(ctx context.Context, repo *repository.Repository, email string, stdin io.Reader, stdout io.Writer) error {
	line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the password from stdin: %w", err)
	}
	password := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if msg := account.CheckPassword(password); msg != "" {
		return fmt.Errorf("the password (first line of stdin) %s", msg)
	}
	hash, err := website.HashPassword(password)
	if err != nil {
		return err
	}
	err = repo.SetUserPassword(ctx, email, hash)
	if errors.Is(err, repository.ErrNotFound) {
		return fmt.Errorf("no user with e-mail %q", email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sign-in password set for %s; their sessions are ended and their unused links (resets, set-password links, invitations) voided\n", email)
	return nil
}

// createUser makes a user (an admin with --admin) under the account rules: a real address,
// not taken by another account but for case.
func createUser(ctx context.Context, repo *repository.Repository, f userFlags) (repository.User, error) {
	email, err := account.NormaliseEmail(f.email)
	if err != nil {
		return repository.User{}, fmt.Errorf("--email %q %w", f.email, err)
	}
	create := repo.CreateUser
	if f.admin {
		create = repo.CreateAdmin
	}
	user, err := create(ctx, email)
	if errors.Is(err, repository.ErrConflict) {
		return user, fmt.Errorf("a user with e-mail %q exists (compared without regard to case); use `analytics key create --email %s`", email, email)
	}
	return user, err
}

func manage(ctx context.Context, cfg config, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) < 2 {
		return errors.New(usage)
	}
	db, repo, err := openRepo(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	what := args[0] + " " + args[1]
	switch what {
	case "user password":
		f, err := parseUserFlags(what, args[2:])
		if err != nil {
			return err
		}
		return setPassword(ctx, repo, f.email, stdin, stdout)
	case "user create", "key create":
		f, err := parseUserFlags(what, args[2:])
		if err != nil {
			return err
		}
		var user repository.User
		if what == "user create" {
			user, err = createUser(ctx, repo, f)
		} else {
			user, err = repo.UserByEmail(ctx, f.email)
			if errors.Is(err, repository.ErrNotFound) {
				return fmt.Errorf("no user with e-mail %q", f.email)
			}
		}
		if err != nil {
			return err
		}
		key, _, err := repo.CreateScopedAPIKey(ctx, user.ID, f.name, f.scope)
		if err != nil {
			return err
		}
		role := ""
		if user.IsAdmin {
			role = ", admin"
		}
		fmt.Fprintf(stdout, "API key for %s (user %d%s), shown only once:\n%s\n", user.Email, user.ID, role, key)
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
