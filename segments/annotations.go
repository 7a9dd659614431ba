package segments

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Annotations lists the website's annotations that the user sees on the days from..to.
func (s *Service) Annotations(ctx context.Context, site repository.Website, userID int64, from, to time.Time) ([]repository.Annotation, error) {
	return s.repo.Annotations(ctx, site.ID, userID, from, to)
}

// dateRule is the refusal of an annotation's date.
const dateRule = "must be a date, YYYY-MM-DD"

// parseDate reads an annotation's day.
func parseDate(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("annotation date: %w", err)
	}
	if t.Year() < 1 { // PostgreSQL has no year 0
		return time.Time{}, fmt.Errorf("annotation date: year %d", t.Year())
	}
	return t, nil
}

// checkNote is the refusal of an annotation's note (trimmed), "" when it is fine.
func checkNote(note string) string {
	if n := utf8.RuneCountInString(note); n < 1 || n > MaxNote {
		return fmt.Sprintf("must be 1 to %d characters", MaxNote)
	}
	if !stats.ValidText(note) {
		return stats.TextRule
	}
	return ""
}

// CreateAnnotation pins a note to a day of the website; the role is checked first, then the
// fields (FieldErrors on date, note, type).
func (s *Service) CreateAnnotation(ctx context.Context, site repository.Website, userID int64, c Change) (repository.Annotation, stats.FieldErrors, error) {
	kind := Personal
	if c.Type != nil {
		kind = *c.Type
	}
	err := mayWrite(site, kind)
	if err != nil {
		return repository.Annotation{}, nil, err
	}
	errs := stats.FieldErrors{}
	checkKind(c.Type, errs)
	var day time.Time
	if c.Date == nil {
		errs.Add("date", "is required")
	} else if day, err = parseDate(*c.Date); err != nil {
		errs.Add("date", dateRule)
	}
	if c.Note == nil {
		errs.Add("note", "is required")
	} else if msg := checkNote(strings.TrimSpace(*c.Note)); msg != "" {
		errs.Add("note", msg)
	}
	if len(errs) > 0 {
		return repository.Annotation{}, errs, nil
	}
	out, err := s.repo.CreateAnnotation(ctx, site.ID, owner(kind, userID), day, strings.TrimSpace(*c.Note))
	if errors.Is(err, repository.ErrPinnedLimit) {
		return repository.Annotation{}, stats.FieldErrors{"note": {fmt.Sprintf("a website has at most %d annotations", repository.MaxAnnotations)}}, nil
	}
	return out, nil, err
}

// UpdateAnnotation changes the fields sent of an annotation the user sees, as UpdateSegment.
func (s *Service) UpdateAnnotation(ctx context.Context, site repository.Website, userID, id int64, c Change) (repository.Annotation, stats.FieldErrors, error) {
	a, err := s.repo.Annotation(ctx, site.ID, userID, id)
	if err != nil {
		return repository.Annotation{}, nil, err
	}
	if err := mayWrite(site, Kind(a.UserID)); err != nil {
		return repository.Annotation{}, nil, err
	}
	errs := stats.FieldErrors{}
	checkKind(c.Type, errs)
	if c.Date != nil {
		if a.Day, err = parseDate(*c.Date); err != nil {
			errs.Add("date", dateRule)
		}
	}
	if c.Note != nil {
		a.Note = strings.TrimSpace(*c.Note)
		if msg := checkNote(a.Note); msg != "" {
			errs.Add("note", msg)
		}
	}
	if len(errs) > 0 {
		return repository.Annotation{}, errs, nil
	}
	if c.Type != nil {
		if err := mayWrite(site, *c.Type); err != nil {
			return repository.Annotation{}, nil, err
		}
		a.UserID = owner(*c.Type, userID)
	}
	out, err := s.repo.UpdateAnnotation(ctx, a)
	return out, nil, err
}

// DeleteAnnotation removes an annotation the user sees, as DeleteSegment.
func (s *Service) DeleteAnnotation(ctx context.Context, site repository.Website, userID, id int64) error {
	a, err := s.repo.Annotation(ctx, site.ID, userID, id)
	if err != nil {
		return err
	}
	if err := mayWrite(site, Kind(a.UserID)); err != nil {
		return err
	}
	return s.repo.DeleteAnnotation(ctx, site.ID, id)
}
