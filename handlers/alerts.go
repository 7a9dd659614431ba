package handlers

import (
	"context"
	"errors"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// ShowAlerts answers GET /api/v1/websites/{id}/alerts: the caller's own alerts.
func (s *Server) ShowAlerts(ctx context.Context, req gen.ShowAlertsRequestObject) (gen.ShowAlertsResponseObject, error) {
	if _, err := s.websites.Open(ctx, userID(ctx), req.Id, repository.RoleEditor); errors.Is(err, repository.ErrNotFound) {
		return gen.ShowAlerts404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	} else if errors.Is(err, website.ErrForbidden) {
		return gen.ShowAlerts403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(forbidden())}, nil
	} else if err != nil {
		return nil, err
	}
	a, err := s.repo.Alerts(ctx, req.Id, userID(ctx))
	if err != nil {
		return nil, err
	}
	return gen.ShowAlerts200JSONResponse(alertsJSON(a)), nil
}

// SetAlerts answers PUT /api/v1/websites/{id}/alerts through the website rules.
func (s *Server) SetAlerts(ctx context.Context, req gen.SetAlertsRequestObject) (gen.SetAlertsResponseObject, error) {
	f := req.Body
	a, errs, err := s.websites.SetAlerts(ctx, userID(ctx), req.Id, website.AlertInput{Spike: f.SpikeThreshold, Drop: f.DropThreshold, Addresses: f.Addresses})
	switch {
	case errors.Is(err, repository.ErrNotFound):
		return gen.SetAlerts404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	case errors.Is(err, website.ErrForbidden):
		return gen.SetAlerts403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(forbidden())}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.SetAlerts422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(invalidBody(errs))}, nil
	}
	return gen.SetAlerts200JSONResponse(alertsJSON(a)), nil
}

func alertsJSON(a repository.AlertSettings) gen.AlertsResponse {
	var out gen.AlertsResponse
	if a.Spike > 0 {
		out.Data.SpikeThreshold = &a.Spike
	}
	if a.Drop > 0 {
		out.Data.DropThreshold = &a.Drop
	}
	out.Data.Addresses = make([]struct {
		Confirmed bool   `json:"confirmed"`
		Email     string `json:"email"`
	}, len(a.Addresses))
	for i, addr := range a.Addresses {
		out.Data.Addresses[i].Email, out.Data.Addresses[i].Confirmed = addr.Email, addr.ConfirmedAt != nil
	}
	return out
}
