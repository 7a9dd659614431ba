package website

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Settings are the fields of a store or an update form, decoded but not checked yet; nil is a
// field that was not sent.
type Settings struct {
	Privacy       *int
	Password      *string // "" removes the password (update) or sets none (store)
	Email         *int
	ExcludeBots   *int
	ExcludeParams *string // "" clears the list
	ExcludeIPs    *string // "" clears the list
	Favorite      *bool   // update only
	Timezone      *string // an IANA name; a change waits for the next midnight (update)
	// The shields (shields.go), one entry per line; "" clears a list.
	BlockCountries   *string
	BlockPages       *string
	AllowedHostnames *string
	// RetentionDays keeps the website's visit rows that many days (MinRetentionDays up to
	// FACTS_RETENTION); 0 keeps them as long as FACTS_RETENTION says.
	RetentionDays *int
}

// Privacy levels: who may read a website's stats pages. Public: anyone; Private: its owner;
// Password: its owner, and a browser that entered the website's password.
const (
	Public   = 0
	Private  = 1
	Password = 2
)

const maxPasswordLength = 128

// Service creates, changes and deletes websites under the contract's rules. The request
// validator of the API checks ranges before a handler runs; the service checks them again
// because the pages have no validator in front of them.
type Service struct {
	repo     *repository.Repository
	hash     func(string) (string, error)
	onChange func(ctx context.Context, id int64) error
	log      *slog.Logger
	zone     *time.Location // the service's TZ: the zone of a website without its own
	// factsRetention is FACTS_RETENTION: the most days a website may keep its visit rows.
	factsRetention int
}

// NewService wires the rules to the repository. hash nil means HashPassword; onChange (may be
// nil) runs after every accepted write so that this node's ingest cache sees it at once; zone
// is the service's TZ (nil: UTC); factsRetention is FACTS_RETENTION, the most days a website
// may keep its visit rows (0: MaxRetentionDays).
func NewService(repo *repository.Repository, hash func(string) (string, error),
	onChange func(ctx context.Context, id int64) error, log *slog.Logger, zone *time.Location, factsRetention int) *Service {
	if hash == nil {
		hash = HashPassword
	}
	if log == nil {
		log = slog.Default()
	}
	if zone == nil {
		zone = time.UTC
	}
	if factsRetention <= 0 {
		factsRetention = MaxRetentionDays
	}
	return &Service{repo: repo, hash: hash, onChange: onChange, log: log, zone: zone, factsRetention: factsRetention}
}

// Zone is the service's TZ, the zone of a website that has none of its own.
func (s *Service) Zone() *time.Location { return s.zone }

// Create stores a website for a user. A refusal comes back as field errors, a failure as an
// error.
func (s *Service) Create(ctx context.Context, userID int64, domain string, in Settings) (repository.Website, stats.FieldErrors, error) {
	out, errs, err := Check(domain, in, s.hash)
	if errs == nil {
		errs = stats.FieldErrors{}
	}
	if in.Favorite != nil {
		errs.Add("favorite", "is not accepted here")
	}
	out.RetentionDays = s.retention(in.RetentionDays, errs)
	if len(errs) > 0 {
		return repository.Website{}, errs, nil
	}
	if err != nil {
		return repository.Website{}, nil, err
	}
	out.ServiceZone = s.zone
	w, err := s.repo.CreateWebsite(ctx, userID, out)
	if errors.Is(err, repository.ErrConflict) {
		return repository.Website{}, stats.FieldErrors{"domain": {"has already been taken"}}, nil
	}
	if err != nil {
		return repository.Website{}, nil, err
	}
	w.Role = repository.RoleOwner
	s.changed(ctx, w.ID)
	return w, nil, nil
}

// Check applies the rules of a store to a new website's domain and settings (Favorite aside)
// and hashes its password with hash (nil: HashPassword), without writing anything: the API's
// store and the importers bring websites in under the same rules. A refusal comes back as
// field errors, a failure as an error.
func Check(domain string, in Settings, hash func(string) (string, error)) (repository.NewWebsite, stats.FieldErrors, error) {
	if hash == nil {
		hash = HashPassword
	}
	errs := stats.FieldErrors{}
	out := repository.NewWebsite{Privacy: Public, Email: 0, ExcludeBots: 1}
	d, err := NormaliseDomain(domain)
	if err != nil {
		errs.Add("domain", err.Error())
	}
	out.Domain = d
	checkRanges(in, errs)
	setInt(&out.Privacy, in.Privacy)
	setInt(&out.Email, in.Email)
	setInt(&out.ExcludeBots, in.ExcludeBots)
	hasPassword := in.Password != nil && *in.Password != ""
	if out.Privacy == Password && !hasPassword {
		errs.Add("password", "is needed for password protection (privacy 2)")
	}
	out.ExcludeParams, out.ExcludeIPs = exclusions(in.ExcludeParams, in.ExcludeIPs, errs)
	out.BlockCountries, out.BlockPages, out.AllowedHostnames = shields(in, errs)
	out.Timezone = in.Timezone
	if len(errs) > 0 {
		return repository.NewWebsite{}, errs, nil
	}
	if hasPassword {
		h, err := hash(*in.Password)
		if err != nil {
			return repository.NewWebsite{}, nil, fmt.Errorf("websites.create: %w", err)
		}
		out.PasswordHash = &h
	}
	return out, nil, nil
}

// Update changes the fields sent of a website the user may edit (an editor, an admin or the
// owner); repository.ErrNotFound when the user may not read it, ErrForbidden when they may
// only read it (both checked before the fields).
func (s *Service) Update(ctx context.Context, userID, id int64, in Settings) (repository.Website, stats.FieldErrors, error) {
	opened, err := s.Open(ctx, userID, id, repository.RoleEditor)
	if err != nil {
		return repository.Website{}, nil, err
	}
	errs := stats.FieldErrors{}
	checkRanges(in, errs)
	ch := repository.WebsiteChanges{
		Privacy: in.Privacy, Email: in.Email, ExcludeBots: in.ExcludeBots, Favorite: in.Favorite,
		Timezone: in.Timezone, ServiceZone: s.zone,
	}
	ch.ExcludeParams, ch.ExcludeIPs = exclusions(in.ExcludeParams, in.ExcludeIPs, errs)
	ch.BlockCountries, ch.BlockPages, ch.AllowedHostnames = shields(in, errs)
	ch.RetentionDays = s.retention(in.RetentionDays, errs)
	if len(errs) > 0 {
		return repository.Website{}, errs, nil
	}
	switch {
	case in.Password == nil:
	case *in.Password == "":
		ch.RemovePassword = true
	default:
		hash, err := s.hash(*in.Password)
		if err != nil {
			return repository.Website{}, nil, fmt.Errorf("websites.update: %w", err)
		}
		ch.PasswordHash = &hash
	}
	w, err := s.repo.UpdateWebsite(ctx, id, ch)
	if errors.Is(err, repository.ErrPasswordRequired) {
		return repository.Website{}, stats.FieldErrors{"password": {"is needed for password protection (privacy 2)"}}, nil
	}
	if err != nil {
		return repository.Website{}, nil, err
	}
	w.Role = opened.Role
	s.changed(ctx, id)
	return w, nil, nil
}

// Delete removes a website and its stats; only its owner may (ErrForbidden for a member,
// repository.ErrNotFound for anyone else).
func (s *Service) Delete(ctx context.Context, userID, id int64) error {
	if _, err := s.Open(ctx, userID, id, repository.RoleOwner); err != nil {
		return err
	}
	if err := s.repo.DeleteWebsite(ctx, id); err != nil {
		return err
	}
	s.changed(ctx, id)
	return nil
}

// Removed tells this node's ingest cache that websites were deleted with their owner
// (repository.RemoveUser), so that their hits stop counting at once here.
func (s *Service) Removed(ctx context.Context, ids []int64) {
	for _, id := range ids {
		s.changed(ctx, id)
	}
}

// changed tells this node's ingest cache about a write. A failure is only logged: the website
// is written, and the cache's periodic reload catches up within its TTL.
func (s *Service) changed(ctx context.Context, id int64) {
	if s.onChange == nil {
		return
	}
	if err := s.onChange(ctx, id); err != nil {
		s.log.Warn("refresh ingest settings after a change", "website_id", id, "error", err)
	}
}

func checkRanges(in Settings, errs stats.FieldErrors) {
	if in.Privacy != nil && (*in.Privacy < Public || *in.Privacy > Password) {
		errs.Add("privacy", "must be one of 0, 1, 2")
	}
	if in.Email != nil && *in.Email != 0 && *in.Email != 1 {
		errs.Add("email", "must be one of 0, 1")
	}
	if in.ExcludeBots != nil && *in.ExcludeBots != 0 && *in.ExcludeBots != 1 {
		errs.Add("exclude_bots", "must be one of 0, 1")
	}
	if in.Password != nil && utf8.RuneCountInString(*in.Password) > maxPasswordLength {
		errs.Add("password", fmt.Sprintf("must be at most %d characters", maxPasswordLength))
	}
	if in.Timezone != nil {
		if _, err := stats.LoadZone(*in.Timezone); err != nil {
			errs.Add("timezone", ZoneMessage)
		}
	}
}

// ZoneMessage is the refusal of a time zone name that is not an IANA zone.
const ZoneMessage = "must be an IANA time zone name, such as Europe/Berlin or UTC"

// exclusions validates and normalises the two exclusion lists; nil stays nil (not sent).
func exclusions(params, ips *string, errs stats.FieldErrors) (*string, *string) {
	var outParams, outIPs *string
	if params != nil {
		v, bad := normaliseExcludeParams(*params)
		for _, msg := range bad {
			errs.Add("exclude_params", msg)
		}
		outParams = &v
	}
	if ips != nil {
		v, bad := normaliseExcludeIPs(*ips)
		for _, msg := range bad {
			errs.Add("exclude_ips", msg)
		}
		outIPs = &v
	}
	return outParams, outIPs
}

// shields validates and normalises the three lists of the shields; nil stays nil (not sent).
func shields(in Settings, errs stats.FieldErrors) (countries, pages, hosts *string) {
	each := func(field string, v *string, normalise func(string) (string, []string)) *string {
		if v == nil {
			return nil
		}
		out, bad := normalise(*v)
		for _, msg := range bad {
			errs.Add(field, msg)
		}
		return &out
	}
	return each("block_countries", in.BlockCountries, normaliseBlockCountries),
		each("block_pages", in.BlockPages, normaliseBlockPages),
		each("allowed_hostnames", in.AllowedHostnames, normaliseAllowedHostnames)
}

// Retention of visit rows (docs/retention.md), FACTS_RETENTION's and each website's: at least
// a month, so that the exact filtered ranges of up to 31 days keep their rows, at most ten
// years; a website's at most FACTS_RETENTION.
const (
	MinRetentionDays = 32
	MaxRetentionDays = 3660
)

// retention checks a retention sent (nil: not sent) and returns what to store: nil for not
// sent, 0 for back to FACTS_RETENTION (stored as NULL), else the days.
func (s *Service) retention(days *int, errs stats.FieldErrors) *int {
	if days == nil {
		return nil
	}
	if *days != 0 && (*days < MinRetentionDays || *days > s.factsRetention) {
		errs.Add("retention_days", fmt.Sprintf("must be 0 (as long as the service keeps rows: FACTS_RETENTION, %d days) or %d to %d days",
			s.factsRetention, MinRetentionDays, s.factsRetention))
	}
	return days
}

// FactsRetention is FACTS_RETENTION, the most days a website keeps its visit rows.
func (s *Service) FactsRetention() int { return s.factsRetention }

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}
