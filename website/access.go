package website

import (
	"context"
	"errors"
	"fmt"

	"github.com/analytics-service/analytics/repository"
)

// ErrForbidden: the user may read the website but lacks the role the act needs. The API
// answers it 403 and the pages with a 403 page; a user who may not even read the website gets
// repository.ErrNotFound instead, exactly as for a website that does not exist, so ids
// cannot be probed.
var ErrForbidden = errors.New("forbidden")

// Open is the access check of every page and API call that names a website by id: the
// website, with the user's role on it (Website.Role), when the role allows need.
// repository.ErrNotFound when there is no such website or the user has no role on it,
// ErrForbidden when the role is below need. Roles: repository.Role.
func (s *Service) Open(ctx context.Context, userID, id int64, need repository.Role) (repository.Website, error) {
	w, err := s.repo.WebsiteRole(ctx, userID, id)
	if err != nil {
		return repository.Website{}, err
	}
	return w, allow(w.Role, need)
}

// Role is the user's role on a website already read by domain (the stats pages); "" when
// the user has none. userID 0 (nobody signed in) has none.
func (s *Service) Role(ctx context.Context, userID int64, site repository.Website) (repository.Role, error) {
	if userID == 0 {
		return "", nil
	}
	return s.repo.RoleOn(ctx, userID, site)
}

func allow(have, need repository.Role) error {
	if !have.Can(need) {
		return fmt.Errorf("website: %s needs %s: %w", have, need, ErrForbidden)
	}
	return nil
}
