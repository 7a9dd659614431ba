package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListFunnels answers GET /api/v1/websites/{id}/funnels.
func (s *Server) ListFunnels(ctx context.Context, req gen.ListFunnelsRequestObject) (gen.ListFunnelsResponseObject, error) {
	pg := paging(req.Params.Page, (*int)(req.Params.PerPage))
	if _, refused, err := s.open(ctx, req.Id, repository.RoleViewer); refused != nil || err != nil {
		return gen.ListFunnels404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	funnels, total, err := s.repo.ListFunnels(ctx, req.Id, pg.Size, pg.Offset())
	if err != nil {
		return nil, err
	}
	meta, links := envelope(pg, requestURL(ctx), total)
	data := make([]gen.Funnel, len(funnels))
	for i, f := range funnels {
		data[i] = funnelJSON(f)
	}
	return gen.ListFunnels200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// StoreFunnel answers POST /api/v1/websites/{id}/funnels.
func (s *Server) StoreFunnel(ctx context.Context, req gen.StoreFunnelRequestObject) (gen.StoreFunnelResponseObject, error) {
	// Access first: a refused field of a website the user may not change still answers 404 or
	// 403, so ids cannot be probed.
	if _, refused, err := s.open(ctx, req.Id, repository.RoleEditor); refused != nil || err != nil {
		return storeFunnelRefused(refused), err
	}
	f, errs, err := s.goals.CreateFunnel(ctx, req.Id, req.Body.Name, req.Body.Steps)
	switch {
	case errors.Is(err, repository.ErrNotFound): // deleted meanwhile
		return storeFunnelRefused(refusal(err)), nil
	case err != nil:
		return nil, err
	case errs != nil:
		return storeFunnelInvalid(errs), nil
	}
	return gen.StoreFunnel201JSONResponse{
		Body:    gen.FunnelResponse{Data: funnelJSON(f)},
		Headers: gen.StoreFunnel201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d/funnels/%d", req.Id, f.ID))},
	}, nil
}

// storeFunnelRefused answers an access check's refusal (nil: none, the error is a failure).
func storeFunnelRefused(refused *gen.Error) gen.StoreFunnelResponseObject {
	switch {
	case refused == nil:
		return nil
	case refused.Status == http.StatusForbidden:
		return gen.StoreFunnel403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*refused)}
	}
	return gen.StoreFunnel404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*refused)}
}

func storeFunnelInvalid(errs stats.FieldErrors) gen.StoreFunnelResponseObject {
	return gen.StoreFunnel422JSONResponse{InvalidFunnelJSONResponse: gen.InvalidFunnelJSONResponse(invalidBody(errs))}
}

// DeleteFunnel answers DELETE /api/v1/websites/{id}/funnels/{funnel_id}.
func (s *Server) DeleteFunnel(ctx context.Context, req gen.DeleteFunnelRequestObject) (gen.DeleteFunnelResponseObject, error) {
	_, refused, err := s.open(ctx, req.Id, repository.RoleEditor)
	switch {
	case err != nil:
		return nil, err
	case refused != nil && refused.Status == http.StatusForbidden:
		return gen.DeleteFunnel403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*refused)}, nil
	case refused == nil:
		err = s.repo.DeleteFunnel(ctx, req.Id, req.FunnelId)
	}
	if refused != nil || errors.Is(err, repository.ErrNotFound) {
		return gen.DeleteFunnel404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.DeleteFunnel200JSONResponse{Id: req.FunnelId, Object: gen.FunnelDeletedObjectFunnel, Deleted: gen.FunnelDeletedDeletedTrue}, nil
}

// GetFunnel answers GET /api/v1/stats/{website_id}/funnels/{funnel_id}: the funnel's numbers
// over the range, read from the visit rows (docs/funnels.md).
func (s *Server) GetFunnel(ctx context.Context, req gen.GetFunnelRequestObject) (gen.GetFunnelResponseObject, error) {
	days, bad := statsRange(req.Params.From.Time, req.Params.To.Time)
	if bad != nil {
		return gen.GetFunnel422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(*bad)}, nil
	}
	notFound := gen.GetFunnel404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return notFound, err
	}
	f, err := s.repo.Funnel(ctx, req.WebsiteId, req.FunnelId)
	if errors.Is(err, repository.ErrNotFound) {
		return notFound, nil
	}
	if err != nil {
		return nil, err
	}
	numbers, from, err := s.repo.FunnelNumbers(ctx, req.WebsiteId, days, filtersOf(ctx), f)
	if err != nil {
		return nil, err
	}
	out := gen.GetFunnel200JSONResponse{Data: funnelStatsJSON(f, numbers)}
	out.Meta.Sampled = notesOfBasis(repository.Basis{Fraction: numbers.Fraction}).sampled
	if !from.IsZero() {
		out.Meta.FunnelsFrom = &openapi_types.Date{Time: from}
	}
	return out, nil
}

func funnelJSON(f stats.Funnel) gen.Funnel {
	out := gen.Funnel{Id: f.ID, Name: f.Name, Steps: make([]gen.FunnelStep, len(f.Steps))}
	for i, s := range f.Steps {
		out.Steps[i] = gen.FunnelStep{GoalId: s.GoalID, DisplayName: s.DisplayName}
	}
	return out
}

func funnelStatsJSON(f stats.Funnel, n stats.FunnelNumbers) gen.FunnelStats {
	out := gen.FunnelStats{Name: f.Name, Steps: make([]gen.FunnelStepStats, len(f.Steps)),
		EnteringVisitors: n.Entering(), NeverEnteringVisitors: n.NeverEntering()}
	for i, s := range n.StepNumbers() {
		out.Steps[i] = gen.FunnelStepStats{Goal: f.Steps[i].DisplayName, Visitors: s.Visitors, Dropoff: s.Dropoff,
			DropoffRate: s.DropoffRate, ConversionRate: s.ConversionRate, ConversionRateStep: s.ConversionRateStep}
	}
	return out
}
