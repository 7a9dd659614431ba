// Package segments holds the rules of a website's saved segments and annotations
// (docs/segments.md), for the API and the pages alike: who may make, change and remove
// which, and what a valid one is. Each is personal (seen by its maker only) or the
// website's ("site": seen by everyone who reads the dashboard); any role makes personal
// ones, and the website's need the role that changes its settings (editor).
package segments

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// The two kinds, as the API writes them (Plausible's "personal" and "site").
const (
	Personal = "personal"
	Site     = "site"
)

// MaxNote is the longest annotation, in characters.
const MaxNote = 300

// Service applies the rules over the repository.
type Service struct {
	repo *repository.Repository
}

// New is the service over a repository.
func New(repo *repository.Repository) *Service { return &Service{repo: repo} }

// Kind is "site" for the website's own, "personal" otherwise.
func Kind(userID *int64) string {
	if userID == nil {
		return Site
	}
	return Personal
}

// Change is what a create or an update sends; nil fields are not sent (an update keeps them,
// a create refuses a missing name, filters or note).
type Change struct {
	Name    *string
	Type    *string
	Filters []byte  // segments: the query API's filter list as JSON
	Date    *string // annotations: YYYY-MM-DD
	Note    *string // annotations
}

// mayWrite refuses a user whose role may not make or change a pinned thing of kind (the
// website's: editor; personal: any role). site.Role is the user's role, read by the access
// check.
func mayWrite(site repository.Website, kind string) error {
	if kind == Site && !site.Role.Can(repository.RoleEditor) {
		return fmt.Errorf("segments: %s may not change the website's own: %w", site.Role, website.ErrForbidden)
	}
	return nil
}

// owner is the user_id of a pinned thing of kind made by userID.
func owner(kind string, userID int64) *int64 {
	if kind == Site {
		return nil
	}
	return &userID
}

// checkKind refuses a type that is neither kind.
func checkKind(t *string, errs stats.FieldErrors) {
	if t != nil && *t != Personal && *t != Site {
		errs.Add("type", "must be personal or site")
	}
}

// Segments lists the website's segments that the user sees.
func (s *Service) Segments(ctx context.Context, site repository.Website, userID int64) ([]repository.Segment, error) {
	return s.repo.Segments(ctx, site.ID, userID)
}

// CreateSegment makes a segment of the website; the role is checked first (ErrForbidden for
// a site segment below editor), then the fields (FieldErrors on name, type, filters).
func (s *Service) CreateSegment(ctx context.Context, site repository.Website, userID int64, c Change) (repository.Segment, stats.FieldErrors, error) {
	kind := Personal
	if c.Type != nil {
		kind = *c.Type
	}
	if err := mayWrite(site, kind); err != nil {
		return repository.Segment{}, nil, err
	}
	errs := stats.FieldErrors{}
	checkKind(c.Type, errs)
	if c.Name == nil {
		errs.Add("name", "is required")
	}
	if c.Filters == nil {
		errs.Add("filters", "is required")
	}
	if len(errs) > 0 {
		return repository.Segment{}, errs, nil
	}
	seg := repository.Segment{WebsiteID: site.ID, UserID: owner(kind, userID), Name: strings.TrimSpace(*c.Name), Filters: c.Filters}
	if errs := checkSegment(&seg); errs != nil {
		return repository.Segment{}, errs, nil
	}
	out, err := s.repo.CreateSegment(ctx, site.ID, seg.UserID, seg.Name, seg.Filters)
	if errors.Is(err, repository.ErrPinnedLimit) {
		return repository.Segment{}, stats.FieldErrors{"name": {fmt.Sprintf("a website has at most %d segments", repository.MaxSegments)}}, nil
	}
	return out, nil, err
}

// checkSegment checks a segment's name and filters (storing the filters compact).
func checkSegment(seg *repository.Segment) stats.FieldErrors {
	filters, bad := query.CheckSegment(seg.Name, seg.Filters)
	if bad != nil {
		return stats.FieldErrors{bad.Field: {bad.Message}}
	}
	seg.Filters = filters
	return nil
}

// UpdateSegment changes the fields sent of a segment the user sees (ErrNotFound otherwise);
// the website's segments, and making one the website's, need editor (ErrForbidden). Making
// a site segment personal makes it the user's.
func (s *Service) UpdateSegment(ctx context.Context, site repository.Website, userID, id int64, c Change) (repository.Segment, stats.FieldErrors, error) {
	seg, err := s.repo.Segment(ctx, site.ID, userID, id)
	if err != nil {
		return repository.Segment{}, nil, err
	}
	kind := Kind(seg.UserID)
	if err := mayWrite(site, kind); err != nil {
		return repository.Segment{}, nil, err
	}
	errs := stats.FieldErrors{}
	checkKind(c.Type, errs)
	if len(errs) > 0 {
		return repository.Segment{}, errs, nil
	}
	if c.Type != nil {
		if err := mayWrite(site, *c.Type); err != nil {
			return repository.Segment{}, nil, err
		}
		seg.UserID = owner(*c.Type, userID)
	}
	if c.Name != nil {
		seg.Name = strings.TrimSpace(*c.Name)
	}
	if c.Filters != nil {
		seg.Filters = c.Filters
	}
	if errs := checkSegment(&seg); errs != nil {
		return repository.Segment{}, errs, nil
	}
	out, err := s.repo.UpdateSegment(ctx, seg)
	return out, nil, err
}

// DeleteSegment removes a segment the user sees (ErrNotFound otherwise; ErrForbidden for
// the website's below editor), and the shared links made for it.
func (s *Service) DeleteSegment(ctx context.Context, site repository.Website, userID, id int64) error {
	seg, err := s.repo.Segment(ctx, site.ID, userID, id)
	if err != nil {
		return err
	}
	if err := mayWrite(site, Kind(seg.UserID)); err != nil {
		return err
	}
	return s.repo.DeleteSegment(ctx, site.ID, id)
}

// Lookup is the query API's way to a segment's filters: the website's segments the user
// sees, any other id query.ErrNoSegment.
func (s *Service) Lookup(ctx context.Context, websiteID, userID int64) query.SegmentLookup {
	return func(id int64) ([]byte, error) {
		seg, err := s.repo.Segment(ctx, websiteID, userID, id)
		if errors.Is(err, repository.ErrNotFound) {
			return nil, query.ErrNoSegment
		}
		if err != nil {
			return nil, err
		}
		return seg.Filters, nil
	}
}
