package website

import (
	"context"
	"fmt"
	"net/mail"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Traffic alerts (docs/alerts.md): a user's spike and drop thresholds of a website and the
// addresses the alerts go to, checked here for the API and the pages alike.

// MaxAlertAddresses bounds the addresses of a user's alerts of a website.
const MaxAlertAddresses = 10

// maxThreshold bounds a threshold: more visitors than a website could have.
const maxThreshold = 1_000_000_000

// AlertInput is an alerts form as sent: nil thresholds switch their alert off, nil addresses
// are none.
type AlertInput struct {
	Spike, Drop *int
	Addresses   *string // one per line
}

// CheckAlerts applies the rules of alert settings: a threshold is a whole number of 1 or more,
// an address a plain e-mail address (lower-cased, each once), at most MaxAlertAddresses.
func CheckAlerts(in AlertInput) (repository.AlertSettings, stats.FieldErrors) {
	errs := stats.FieldErrors{}
	var out repository.AlertSettings
	for field, t := range map[string]struct {
		v   *int
		dst *int
	}{"spike_threshold": {in.Spike, &out.Spike}, "drop_threshold": {in.Drop, &out.Drop}} {
		switch {
		case t.v == nil:
		case *t.v < 1 || *t.v > maxThreshold:
			errs.Add(field, fmt.Sprintf("must be a whole number of visitors from 1 to %d (leave it out to switch the alert off)", maxThreshold))
		default:
			*t.dst = *t.v
		}
	}
	if in.Addresses != nil {
		lines, bad := normaliseShield(*in.Addresses, MaxAlertAddresses, func(line string) (string, string) {
			a, err := mail.ParseAddress(line)
			if err != nil || a.Name != "" || !strings.EqualFold(a.Address, line) || !strings.Contains(a.Address, ".") {
				return "", "is not an e-mail address (one per line, such as me@example.com)"
			}
			return strings.ToLower(a.Address), ""
		})
		for _, msg := range bad {
			errs.Add("addresses", msg)
		}
		for _, e := range Lines(lines) {
			out.Addresses = append(out.Addresses, repository.AlertAddress{Email: e})
		}
	}
	if len(errs) > 0 {
		return repository.AlertSettings{}, errs
	}
	return out, nil
}

// SetAlerts replaces a user's own alert settings of a website whose settings they may change
// (its owner, an admin or an editor: the alerts are set on its settings page);
// repository.ErrNotFound when it is unknown or they have no role on it, ErrForbidden for a
// viewer, both checked before the fields. A refusal comes back as field errors, nothing
// changed.
func (s *Service) SetAlerts(ctx context.Context, userID, id int64, in AlertInput) (repository.AlertSettings, stats.FieldErrors, error) {
	if _, err := s.Open(ctx, userID, id, repository.RoleEditor); err != nil {
		return repository.AlertSettings{}, nil, err
	}
	settings, errs := CheckAlerts(in)
	if errs != nil {
		return repository.AlertSettings{}, errs, nil
	}
	out, err := s.repo.SetAlerts(ctx, id, userID, settings)
	if err != nil {
		return repository.AlertSettings{}, nil, err
	}
	return out, nil, nil
}
