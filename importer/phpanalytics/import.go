// Package phpanalytics reads a phpAnalytics database (MySQL or MariaDB, the schema its Laravel
// migrations define) and imports its websites, with their settings, and every stats row
// (docs/imports.md) through package importer. It only reads there, in one read-only
// transaction, so a read-only account suffices and every website is read as of one moment.
package phpanalytics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// Options of one run of `analytics import phpanalytics`.
type Options struct {
	DSN      string         // go-sql-driver/mysql DSN: user:pass@tcp(host:3306)/db
	User     string         // e-mail of the user who gets every website; "" for each owner's own
	AppKey   string         // phpAnalytics' APP_KEY, to decrypt site passwords; "" for none
	DryRun   bool           // read and count, write nothing
	Location *time.Location // the service's TZ, compared with phpAnalytics' own
	Repo     *repository.Repository
	Out      io.Writer // a line per decision, then the summary
	Progress *importer.Progress
	// Hash hashes website passwords (nil: website.HashPassword); tests pass a cheap one.
	Hash func(string) (string, error)
}

// Run imports, printing a line for each website skipped, changed or failed. It returns the
// summary and an error when the run could not start (bad DSN, unreachable server, not a
// phpAnalytics database, bad key) or when a website failed; websites that did not fail are
// imported all the same.
func Run(ctx context.Context, o Options) (*importer.Summary, error) {
	var key AppKey
	if o.AppKey != "" {
		var err error
		if key, err = ParseAppKey(o.AppKey); err != nil {
			return nil, err
		}
	}
	src, err := open(ctx, o.DSN)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if err := src.checkSchema(ctx); err != nil {
		return nil, err
	}
	if tz := src.timezone(ctx); tz != "" && o.Location != nil && tz != o.Location.String() {
		fmt.Fprintf(o.Out, "note: phpAnalytics counted days and hours in %s, this service in %s (TZ); imported days stay as phpAnalytics counted them\n",
			tz, o.Location)
	}
	sites, err := src.websites(ctx)
	if err != nil {
		return nil, err
	}
	owners := newOwners(o)
	if o.User != "" {
		if _, err := owners.resolve(ctx, o.User); err != nil {
			return nil, err
		}
	}
	w := importer.NewWriter(o.Repo, repository.SourcePHPAnalytics, o.DryRun, o.Progress)
	o.Progress.Websites(len(sites))
	for _, s := range sites {
		if err := ctx.Err(); err != nil {
			return w.Summary(), err
		}
		importSite(ctx, o, key, src, owners, w, s)
	}
	o.Progress.Done()
	if n := len(w.Summary().Failed); n > 0 {
		return w.Summary(), fmt.Errorf("%d of %d websites failed (see above); the others were imported", n, len(sites))
	}
	return w.Summary(), nil
}

// importSite imports one website, or records why not.
func importSite(ctx context.Context, o Options, key AppKey, src *source, owners *owners, w *importer.Writer, s site) {
	sum := w.Summary()
	settings, note, err := s.settings(key)
	if err != nil {
		msg := fmt.Sprintf("%s (phpAnalytics website %d): %v", importer.Cut(s.Domain, importer.QuoteLength), s.ID, err)
		fmt.Fprintln(o.Out, "failed:", msg)
		sum.Fail(msg)
		return
	}
	checked, fieldErrs, err := website.Check(s.Domain, settings, o.Hash)
	if err == nil && len(fieldErrs) > 0 {
		// The rules' messages may quote a line of a list: cut, as every quoted value is.
		err = fmt.Errorf("refused by this service's rules: %s", importer.Cut(fmt.Sprint(fieldErrs), 4*importer.QuoteLength))
	}
	if err != nil {
		msg := fmt.Sprintf("%s (phpAnalytics website %d): %v", importer.Cut(s.Domain, importer.QuoteLength), s.ID, err)
		fmt.Fprintln(o.Out, "failed:", msg)
		sum.Fail(msg)
		return
	}
	if exists, err := domainTaken(ctx, o.Repo, checked.Domain); err != nil || exists {
		if err != nil {
			sum.Fail(fmt.Sprintf("%s: %v", checked.Domain, err))
			fmt.Fprintf(o.Out, "failed: %s: %v\n", checked.Domain, err)
			return
		}
		msg := fmt.Sprintf("%s: a website with this domain exists here", checked.Domain)
		fmt.Fprintln(o.Out, "skipped:", msg)
		sum.Skip(msg)
		return
	}
	email := o.User
	if s.OwnerDeleted {
		msg := fmt.Sprintf("%s: its owner (phpAnalytics user %d) was deleted there", checked.Domain, s.UserID)
		fmt.Fprintln(o.Out, "skipped:", msg)
		sum.Skip(msg)
		return
	}
	if email == "" {
		if s.OwnerEmail == "" {
			msg := fmt.Sprintf("%s: its owner (phpAnalytics user %d) is not in phpAnalytics' users; use --user", checked.Domain, s.UserID)
			fmt.Fprintln(o.Out, "skipped:", msg)
			sum.Skip(msg)
			return
		}
		email = s.OwnerEmail
	}
	userID, err := owners.resolve(ctx, email)
	if err != nil {
		msg := fmt.Sprintf("%s: %v", checked.Domain, err)
		fmt.Fprintln(o.Out, "failed:", msg)
		sum.Fail(msg)
		return
	}
	if note != "" {
		fmt.Fprintf(o.Out, "%s: %s\n", checked.Domain, note)
	}
	err = copySite(ctx, src, w, userID, s, repository.ImportedWebsite{NewWebsite: checked, Favorite: s.Favorite, CreatedAt: s.CreatedAt})
	switch {
	case errors.Is(err, importer.ErrExists):
		msg := fmt.Sprintf("%s: a website with this domain exists here", checked.Domain)
		fmt.Fprintln(o.Out, "skipped:", msg)
		sum.Skip(msg)
	case err != nil:
		msg := fmt.Sprintf("%s: %v (nothing of it was written)", checked.Domain, err)
		fmt.Fprintln(o.Out, "failed:", msg)
		sum.Fail(msg)
	case o.DryRun:
		fmt.Fprintf(o.Out, "%s: would be imported for %s\n", checked.Domain, email)
	default:
		fmt.Fprintf(o.Out, "%s: imported for %s\n", checked.Domain, email)
	}
}

// copySite creates the website and copies its stats in one transaction.
func copySite(ctx context.Context, src *source, w *importer.Writer, userID int64, s site, in repository.ImportedWebsite) error {
	ws, err := w.Begin(ctx, userID, in)
	if err != nil {
		return err
	}
	defer ws.Rollback()
	err = src.stats(ctx, s.ID, func(name, value string, day time.Time, count int64) error {
		ws.Read(1)
		if count < 1 {
			// phpAnalytics never writes one; our counters hold positive counts only.
			ws.Unmapped("rows with a count below 1 (left out)", "")
			return nil
		}
		m := mapRow(name, value)
		if m.unmapped != "" {
			ws.Unmapped(m.unmapped, m.unmappedValue)
		}
		for _, c := range m.counters[:m.n] {
			if err := ws.Add(ctx, c.name, day, c.value, count); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ws.Commit(ctx)
}

func domainTaken(ctx context.Context, repo *repository.Repository, domain string) (bool, error) {
	if repo == nil {
		return false, nil
	}
	_, err := repo.WebsiteByDomain(ctx, domain)
	if errors.Is(err, repository.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// owners finds, or creates, the users who get the websites, once each.
type owners struct {
	o     Options
	known map[string]int64
}

func newOwners(o Options) *owners { return &owners{o: o, known: map[string]int64{}} }

// resolve returns the id of the user with that e-mail. --user must exist; a phpAnalytics
// owner who is not a user here is created, without a password (they set one with `analytics
// user password` or a set-password link), and printed.
func (w *owners) resolve(ctx context.Context, email string) (int64, error) {
	if id, ok := w.known[email]; ok {
		return id, nil
	}
	if w.o.DryRun && w.o.Repo == nil {
		return 0, nil
	}
	u, err := w.o.Repo.UserByEmail(ctx, email)
	switch {
	case err == nil:
		w.known[email] = u.ID
		return u.ID, nil
	case !errors.Is(err, repository.ErrNotFound):
		return 0, err
	case email == w.o.User:
		return 0, fmt.Errorf("--user: no user with e-mail %q here (create it with `analytics user create`)", email)
	case w.o.DryRun:
		fmt.Fprintf(w.o.Out, "would create user %s (no password)\n", email)
		w.known[email] = 0
		return 0, nil
	}
	u, err = w.o.Repo.CreateUser(ctx, email)
	if err != nil {
		return 0, fmt.Errorf("create user %s: %w", email, err)
	}
	fmt.Fprintf(w.o.Out, "created user %s (id %d), without a password: set one with `analytics user password --email %s`\n", u.Email, u.ID, u.Email)
	w.known[email] = u.ID
	return u.ID, nil
}

// site is a phpAnalytics website as its websites table holds it.
type site struct {
	ID            int64
	UserID        int64
	Domain        string
	Privacy       int
	Password      string // Laravel's encryptString payload, "" for none
	Email         int
	ExcludeBots   int
	ExcludeParams string
	ExcludeIPs    string
	Favorite      bool
	CreatedAt     time.Time
	OwnerEmail    string // "" when the owner is not in users
	OwnerDeleted  bool
}

// settings are the site's settings in the website rules' terms, with a note to print when the
// import changes one. A password needs the app key; without it a password-protected website
// becomes private (privacy 1), and the password of a website it has no effect on is left out.
func (s site) settings(key AppKey) (website.Settings, string, error) {
	if err := s.checkLengths(); err != nil {
		return website.Settings{}, "", err
	}
	privacy, email, bots := s.Privacy, s.Email, s.ExcludeBots
	params, ips := normaliseNewlines(s.ExcludeParams), normaliseNewlines(s.ExcludeIPs)
	out := website.Settings{Privacy: &privacy, Email: &email, ExcludeBots: &bots, ExcludeParams: &params, ExcludeIPs: &ips}
	if s.Password == "" {
		return out, "", nil
	}
	if key == nil {
		if privacy == website.Password {
			privacy = website.Private
			return out, "privacy 2 (password) becomes 1 (private): its password is encrypted with phpAnalytics' APP_KEY; run again with --app-key to keep it, or set a password here", nil
		}
		return out, "its password (no effect at this privacy) is left out: it needs --app-key", nil
	}
	password, err := key.Decrypt(s.Password)
	if err != nil {
		return website.Settings{}, "", fmt.Errorf("its password: %w", err)
	}
	out.Password = &password
	return out, "", nil
}

// maxText bounds a text read from phpAnalytics, in characters (its stats values are at most
// 255; its TEXT columns at most 65,535 bytes): the query reads one more, so a customised
// install's longer value is refused, naming the column, rather than read whole.
const maxText = 65536

func checkLength(table, column, s string) error {
	if utf8.RuneCountInString(s) > maxText {
		return fmt.Errorf("%s.%s is longer than %d characters (%s)", table, column, maxText, importer.Quote(s))
	}
	return nil
}

// checkLengths refuses a website whose text passes maxText.
func (s site) checkLengths() error {
	for _, c := range []struct{ column, value string }{
		{"domain", s.Domain}, {"password", s.Password}, {"exclude_params", s.ExcludeParams},
		{"exclude_ips", s.ExcludeIPs}, {"email (its owner's)", s.OwnerEmail},
	} {
		if err := checkLength("websites", c.column, c.value); err != nil {
			return err
		}
	}
	return nil
}

// normaliseNewlines turns phpAnalytics' line ends (it split lists on \n or \r) into \n.
func normaliseNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// source is the phpAnalytics database, read in one read-only transaction.
type source struct {
	db *sql.DB
	tx *sql.Tx
	// columns of each table, for the tables of interest: what this install has.
	columns map[string]map[string]bool
	name    string
}

func open(ctx context.Context, dsn string) (*source, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %w (expected user:password@tcp(host:3306)/database)", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("--dsn: no database name (expected user:password@tcp(host:3306)/database)")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	cfg.ParseTime = false
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	where := cfg.Addr
	if cfg.Net == "unix" {
		where = "socket " + cfg.Addr
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot connect to the phpAnalytics database %q at %s: %w", cfg.DBName, where, err)
	}
	if _, err := db.ExecContext(ctx, `SET NAMES utf8mb4`); err != nil {
		db.Close()
		return nil, fmt.Errorf("phpAnalytics database: %w", err)
	}
	// One snapshot for the whole run: a phpAnalytics that keeps counting meanwhile does not
	// make a website's rows disagree with each other. READ ONLY: nothing is written there.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("phpAnalytics database: start a read-only transaction: %w", err)
	}
	return &source{db: db, tx: tx, name: cfg.DBName}, nil
}

func (s *source) close() {
	_ = s.tx.Rollback()
	_ = s.db.Close()
}

// required are the tables and columns the import reads; other columns are optional.
var required = map[string][]string{
	"websites": {"id", "user_id", "domain", "privacy", "password", "email", "exclude_bots", "exclude_params", "exclude_ips"},
	"stats":    {"website_id", "name", "value", "count", "date"},
	"users":    {"id", "email"},
}

// checkSchema refuses a database that is not phpAnalytics', naming what is missing.
func (s *source) checkSchema(ctx context.Context) error {
	rows, err := s.tx.QueryContext(ctx, `
		SELECT table_name, column_name
		FROM information_schema.columns
		WHERE table_schema = DATABASE() AND table_name IN ('websites', 'stats', 'users', 'settings')`)
	if err != nil {
		return fmt.Errorf("phpAnalytics database: read its schema: %w", err)
	}
	defer rows.Close()
	s.columns = map[string]map[string]bool{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			return fmt.Errorf("phpAnalytics database: read its schema: %w", err)
		}
		table, column = strings.ToLower(table), strings.ToLower(column)
		if s.columns[table] == nil {
			s.columns[table] = map[string]bool{}
		}
		s.columns[table][column] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("phpAnalytics database: read its schema: %w", err)
	}
	var missing []string
	for _, table := range []string{"websites", "stats", "users"} {
		if s.columns[table] == nil {
			missing = append(missing, "table "+table)
			continue
		}
		for _, c := range required[table] {
			if !s.columns[table][c] {
				missing = append(missing, table+"."+c)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("database %q is not a phpAnalytics database: it has no %s", s.name, strings.Join(missing, ", "))
	}
	return nil
}

// timezone is phpAnalytics' own time zone setting, "" when unknown.
func (s *source) timezone(ctx context.Context) string {
	if !s.columns["settings"]["name"] || !s.columns["settings"]["value"] {
		return ""
	}
	var tz sql.NullString
	if err := s.tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = 'timezone'`).Scan(&tz); err != nil {
		return ""
	}
	return tz.String
}

// websites reads every website with its owner's e-mail, in id order.
func (s *source) websites(ctx context.Context) ([]site, error) {
	favorite, created, deleted := "0", "NULL", "0"
	if s.columns["websites"]["favorited_at"] {
		favorite = "w.favorited_at IS NOT NULL"
	}
	if s.columns["websites"]["created_at"] {
		created = "DATE_FORMAT(w.created_at, '%Y-%m-%dT%H:%i:%sZ')"
	}
	if s.columns["users"]["deleted_at"] {
		deleted = "u.deleted_at IS NOT NULL"
	}
	// Text is read cut one character past maxText, so that a customised install's MEDIUMTEXT
	// never comes over whole and a longer value is still told from one at the bound.
	query := `
		SELECT w.id, w.user_id, LEFT(w.domain, 65537), w.privacy, LEFT(COALESCE(w.password, ''), 65537), w.email, w.exclude_bots,
			LEFT(COALESCE(w.exclude_params, ''), 65537), LEFT(COALESCE(w.exclude_ips, ''), 65537), ` + favorite + `, ` + created + `,
			LEFT(COALESCE(u.email, ''), 65537), COALESCE(` + deleted + `, 0)
		FROM websites w
		LEFT JOIN users u ON u.id = w.user_id
		ORDER BY w.id`
	rows, err := s.tx.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("phpAnalytics database: read websites: %w", err)
	}
	defer rows.Close()
	var out []site
	for rows.Next() {
		var x site
		var createdAt sql.NullString
		var privacy, email, bots sql.NullInt64
		if err := rows.Scan(&x.ID, &x.UserID, &x.Domain, &privacy, &x.Password, &email, &bots,
			&x.ExcludeParams, &x.ExcludeIPs, &x.Favorite, &createdAt, &x.OwnerEmail, &x.OwnerDeleted); err != nil {
			return nil, fmt.Errorf("phpAnalytics database: read websites: %w", err)
		}
		x.Privacy, x.Email, x.ExcludeBots = int(privacy.Int64), int(email.Int64), int(bots.Int64)
		if !bots.Valid {
			x.ExcludeBots = 1
		}
		if createdAt.Valid {
			x.CreatedAt, _ = time.Parse(time.RFC3339, createdAt.String) // a zero date stays unknown
		}
		x.Domain = stats.Storable(x.Domain)
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("phpAnalytics database: read websites: %w", err)
	}
	return out, nil
}

// stats streams a website's stats rows to fn, as the server sends them: memory stays bounded
// whatever the table's size. A row whose date is no day is an error naming the row.
func (s *source) stats(ctx context.Context, websiteID int64, fn func(name, value string, day time.Time, count int64) error) error {
	rows, err := s.tx.QueryContext(ctx, `
		SELECT LEFT(name, 65537), LEFT(value, 65537), DATE_FORMAT(date, '%Y-%m-%d'), count
		FROM stats
		WHERE website_id = ?`, websiteID)
	if err != nil {
		return fmt.Errorf("read its stats: %w", err)
	}
	defer rows.Close()
	var name, value, date sql.RawBytes
	var count int64
	for rows.Next() {
		if err := rows.Scan(&name, &value, &date, &count); err != nil {
			return fmt.Errorf("read its stats: %w", err)
		}
		if err := checkLength("stats", "value", string(value)); err != nil {
			return fmt.Errorf("a stats row (%s): %w", importer.Cut(string(name), importer.QuoteLength), err)
		}
		day, err := time.Parse(time.DateOnly, string(date))
		if err != nil || day.Year() < 1 {
			return fmt.Errorf("a stats row (%s, %s) has the date %s, which is no day",
				importer.Cut(string(name), importer.QuoteLength), importer.Quote(string(value)), importer.Quote(string(date)))
		}
		if err := fn(string(name), string(value), day, count); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read its stats: %w", err)
	}
	return nil
}
