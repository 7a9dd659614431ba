package handlers

import (
	"context"
	"errors"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// deref is a form field's text, "" when it was not sent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ResetWebsiteStats answers POST /api/v1/websites/{id}/reset: the website rules check the
// typed domain and the range, the repository deletes in one transaction.
func (s *Server) ResetWebsiteStats(ctx context.Context, req gen.ResetWebsiteStatsRequestObject) (gen.ResetWebsiteStatsResponseObject, error) {
	f := req.Body
	reset, errs, err := s.websites.ResetStats(ctx, userID(ctx), req.Id, f.Confirm, deref(f.From), deref(f.To))
	switch {
	case errors.Is(err, repository.ErrNotFound):
		return gen.ResetWebsiteStats404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	case errors.Is(err, website.ErrForbidden):
		return gen.ResetWebsiteStats403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(forbidden())}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.ResetWebsiteStats422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(invalidBody(errs))}, nil
	}
	out := gen.ResetWebsiteStats200JSONResponse{}
	out.Data.Id, out.Data.To, out.Data.ResetAt = reset.ID, openapi_types.Date{Time: reset.To}, reset.ResetAt.UTC()
	if !reset.All() {
		out.Data.From = &openapi_types.Date{Time: reset.From}
	}
	return out, nil
}
