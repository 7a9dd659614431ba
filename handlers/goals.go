package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListGoals answers GET /api/v1/websites/{id}/goals.
func (s *Server) ListGoals(ctx context.Context, req gen.ListGoalsRequestObject) (gen.ListGoalsResponseObject, error) {
	pg := paging(req.Params.Page, (*int)(req.Params.PerPage))
	if _, refused, err := s.open(ctx, req.Id, repository.RoleViewer); refused != nil || err != nil {
		return gen.ListGoals404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	goals, total, err := s.repo.ListGoals(ctx, req.Id, pg.Size, pg.Offset())
	if err != nil {
		return nil, err
	}
	meta, links := envelope(pg, requestURL(ctx), total)
	data := make([]gen.Goal, len(goals))
	for i, g := range goals {
		data[i] = goalJSON(g)
	}
	return gen.ListGoals200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// StoreGoal answers POST /api/v1/websites/{id}/goals.
func (s *Server) StoreGoal(ctx context.Context, req gen.StoreGoalRequestObject) (gen.StoreGoalResponseObject, error) {
	f := req.Body
	// Access first: a refused field of a website the user may not change still answers 404 or
	// 403, so ids cannot be probed.
	if _, refused, err := s.open(ctx, req.Id, repository.RoleEditor); refused != nil || err != nil {
		return storeGoalRefused(refused), err
	}
	g, errs, err := s.goals.CreateGoal(ctx, req.Id, stats.GoalInput{Kind: string(f.Kind), Page: f.Page,
		Event: f.Event, DisplayName: f.DisplayName, Currency: f.Currency})
	switch {
	case errors.Is(err, repository.ErrNotFound): // deleted meanwhile
		return storeGoalRefused(refusal(err)), nil
	case err != nil:
		return nil, err
	case errs != nil:
		return storeGoalInvalid(errs), nil
	}
	return gen.StoreGoal201JSONResponse{
		Body:    gen.GoalResponse{Data: goalJSON(g)},
		Headers: gen.StoreGoal201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d/goals/%d", req.Id, g.ID))},
	}, nil
}

// storeGoalRefused answers an access check's refusal (nil: none, the error is a failure).
func storeGoalRefused(refused *gen.Error) gen.StoreGoalResponseObject {
	switch {
	case refused == nil:
		return nil
	case refused.Status == http.StatusForbidden:
		return gen.StoreGoal403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*refused)}
	}
	return gen.StoreGoal404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*refused)}
}

func storeGoalInvalid(errs stats.FieldErrors) gen.StoreGoalResponseObject {
	return gen.StoreGoal422JSONResponse{InvalidGoalJSONResponse: gen.InvalidGoalJSONResponse(invalidBody(errs))}
}

// DeleteGoal answers DELETE /api/v1/websites/{id}/goals/{goal_id}.
func (s *Server) DeleteGoal(ctx context.Context, req gen.DeleteGoalRequestObject) (gen.DeleteGoalResponseObject, error) {
	_, refused, err := s.open(ctx, req.Id, repository.RoleEditor)
	switch {
	case err != nil:
		return nil, err
	case refused != nil && refused.Status == http.StatusForbidden:
		return gen.DeleteGoal403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*refused)}, nil
	case refused == nil:
		err = s.repo.DeleteGoal(ctx, req.Id, req.GoalId)
	}
	if refused != nil || errors.Is(err, repository.ErrNotFound) {
		return gen.DeleteGoal404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.DeleteGoal200JSONResponse{Id: req.GoalId, Object: gen.GoalDeletedObjectGoal, Deleted: gen.GoalDeletedDeletedTrue}, nil
}

func goalJSON(g stats.Goal) gen.Goal {
	out := gen.Goal{Id: g.ID, Kind: gen.GoalKind(g.Kind), DisplayName: g.DisplayName}
	if g.Kind == stats.GoalPageview {
		out.Page = &g.Page
	} else {
		out.Event = &g.Event
	}
	if g.Currency != "" {
		out.Currency = &g.Currency
	}
	return out
}
