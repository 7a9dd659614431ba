package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListGoals answers GET /api/v1/websites/{id}/goals.
func (s *Server) ListGoals(ctx context.Context, req gen.ListGoalsRequestObject) (gen.ListGoalsResponseObject, error) {
	pg := paging(req.Params.Page, (*int)(req.Params.PerPage))
	goals, total, err := s.repo.ListGoals(ctx, userID(ctx), req.Id, pg.Size, pg.Offset())
	if errors.Is(err, repository.ErrNotFound) {
		return gen.ListGoals404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
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
	g, errs, err := s.goals.CreateGoal(ctx, userID(ctx), req.Id, stats.GoalInput{Kind: string(f.Kind), Page: f.Page,
		Event: f.Event, DisplayName: f.DisplayName, Currency: f.Currency})
	switch {
	case err != nil:
		return storeGoalNotFound(err)
	case errs != nil:
		return storeGoalInvalid(errs), nil
	}
	return gen.StoreGoal201JSONResponse{
		Body:    gen.GoalResponse{Data: goalJSON(g)},
		Headers: gen.StoreGoal201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d/goals", req.Id))},
	}, nil
}

func storeGoalNotFound(err error) (gen.StoreGoalResponseObject, error) {
	if !errors.Is(err, repository.ErrNotFound) {
		return nil, err
	}
	return gen.StoreGoal404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
}

func storeGoalInvalid(errs stats.FieldErrors) gen.StoreGoalResponseObject {
	return gen.StoreGoal422JSONResponse{InvalidGoalJSONResponse: gen.InvalidGoalJSONResponse(invalidBody(errs))}
}

// DeleteGoal answers DELETE /api/v1/websites/{id}/goals/{goal_id}.
func (s *Server) DeleteGoal(ctx context.Context, req gen.DeleteGoalRequestObject) (gen.DeleteGoalResponseObject, error) {
	err := s.repo.DeleteGoal(ctx, userID(ctx), req.Id, req.GoalId)
	if errors.Is(err, repository.ErrNotFound) {
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
