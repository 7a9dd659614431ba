// Package goals applies the rules of goals and funnels to their every change, for the API and
// the settings pages alike, so that each rule and each refusal's wording exists once: the
// fields' checks (stats.CheckGoal, stats.CheckFunnel), a website's limits, a name taken, a step
// that is none of the website's goals. The storage is the repository's.
package goals

import (
	"context"
	"errors"
	"fmt"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Service creates goals and funnels under their rules.
type Service struct {
	repo *repository.Repository
}

// NewService wires the rules to the repository.
func NewService(repo *repository.Repository) *Service { return &Service{repo: repo} }

// CreateGoal checks and stores a goal of a website whose access the caller checked first
// (website.Service.Open: so that a refused field of a website the user may not change still
// answers as an unknown one, and ids cannot be probed). A refusal comes back as field errors;
// repository.ErrNotFound when the website was deleted meanwhile; any other error is a failure.
func (s *Service) CreateGoal(ctx context.Context, websiteID int64, in stats.GoalInput) (stats.Goal, stats.FieldErrors, error) {
	g, errs := stats.CheckGoal(in)
	if errs != nil {
		return stats.Goal{}, errs, nil
	}
	g, err := s.repo.CreateGoal(ctx, websiteID, g)
	switch {
	case errors.Is(err, repository.ErrConflict):
		return stats.Goal{}, stats.FieldErrors{"display_name": {"has already been taken"}}, nil
	case errors.Is(err, repository.ErrGoalLimit):
		return stats.Goal{}, stats.FieldErrors{"kind": {fmt.Sprintf("a website has at most %d goals", stats.MaxGoals)}}, nil
	case err != nil:
		return stats.Goal{}, nil, err
	}
	return g, nil, nil
}

// CreateFunnel checks and stores a funnel of a website, its steps goal ids; access, refusals
// and errors as CreateGoal's.
func (s *Service) CreateFunnel(ctx context.Context, websiteID int64, name string, steps []int64) (stats.Funnel, stats.FieldErrors, error) {
	if errs := stats.CheckFunnel(name, steps); errs != nil {
		return stats.Funnel{}, errs, nil
	}
	f, err := s.repo.CreateFunnel(ctx, websiteID, name, steps)
	switch {
	case errors.Is(err, repository.ErrUnknownGoal):
		return stats.Funnel{}, stats.FieldErrors{"steps": {"must each be one of the website's goals"}}, nil
	case errors.Is(err, repository.ErrConflict):
		return stats.Funnel{}, stats.FieldErrors{"name": {"has already been taken"}}, nil
	case errors.Is(err, repository.ErrFunnelLimit):
		return stats.Funnel{}, stats.FieldErrors{"name": {fmt.Sprintf("a website has at most %d funnels", stats.MaxFunnels)}}, nil
	case err != nil:
		return stats.Funnel{}, nil, err
	}
	return f, nil, nil
}

// FindOrCreateGoal is CreateGoal for a goal that may be there already (Plausible's Sites API
// finds or creates): the website's goal of the same kind and the same event name or page
// pattern, whatever its display name, when it has one; refusals and errors as CreateGoal's.
func (s *Service) FindOrCreateGoal(ctx context.Context, websiteID int64, in stats.GoalInput) (stats.Goal, stats.FieldErrors, error) {
	want, errs := stats.CheckGoal(in)
	if errs != nil {
		return stats.Goal{}, errs, nil
	}
	existing, err := s.repo.Goals(ctx, websiteID)
	if err != nil {
		return stats.Goal{}, nil, err
	}
	for _, g := range existing {
		if g.Kind == want.Kind && g.Page == want.Page && g.Event == want.Event {
			return g, nil, nil
		}
	}
	return s.CreateGoal(ctx, websiteID, in)
}
