package website

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ResetStats deletes the stats of a website (docs/retention.md): of the days from..to
// (YYYY-MM-DD, as typed), or of every day when neither is given, once the user has typed the
// website's domain as confirm. Its owner and its admins may; repository.ErrNotFound when the
// website is unknown or the user has no role on it, ErrForbidden for a viewer or an editor
// (both checked before the fields); a refusal comes back as field errors, with nothing
// deleted.
func (s *Service) ResetStats(ctx context.Context, userID, id int64, confirm, fromText, toText string) (repository.StatsReset, stats.FieldErrors, error) {
	w, err := s.Open(ctx, userID, id, repository.RoleAdmin)
	if err != nil {
		return repository.StatsReset{}, nil, err
	}
	errs := stats.FieldErrors{}
	day := func(field, v string) *time.Time {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs.Add(field, "must be a date YYYY-MM-DD")
			return nil
		}
		return &d
	}
	from, to := day("from", fromText), day("to", toText)
	if len(errs) > 0 {
		return repository.StatsReset{}, errs, nil
	}
	if !strings.EqualFold(strings.TrimSpace(confirm), w.Domain) {
		errs.Add("confirm", fmt.Sprintf("must be the website's domain, %s, typed to confirm the deletion", w.Domain))
	}
	var days *stats.Range
	switch {
	case from == nil && to == nil: // every day
	case from == nil || to == nil:
		field := "from"
		if to == nil {
			field = "to"
		}
		errs.Add(field, "is needed with the other date (or give neither, to delete every day's stats)")
	default:
		for field, d := range map[string]time.Time{"from": *from, "to": *to} {
			if !stats.InBounds(d) {
				errs.Add(field, stats.DayBoundsMessage)
			}
		}
		if from.After(*to) {
			errs.Add("from", "must not be after to")
		}
		days = &stats.Range{From: stats.Day(*from), To: stats.Day(*to)}
	}
	if len(errs) > 0 {
		return repository.StatsReset{}, errs, nil
	}
	reset, err := s.repo.DeleteStats(ctx, id, days, w.Zone(s.zone))
	if err != nil {
		return repository.StatsReset{}, nil, err
	}
	return reset, nil, nil
}
