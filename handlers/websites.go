package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/website"
)

// ListWebsites answers GET /api/v1/websites.
func (s *Server) ListWebsites(ctx context.Context, req gen.ListWebsitesRequestObject) (gen.ListWebsitesResponseObject, error) {
	p := req.Params
	pg := paging(p.Page, (*int)(p.PerPage))
	q := repository.WebsiteQuery{
		SortBy: "id", Desc: true, Limit: pg.Size, Offset: pg.Offset(),
		Favorite: p.Favorite,
	}
	if p.Search != nil {
		q.Search = *p.Search
	}
	if p.SortBy != nil {
		q.SortBy = string(*p.SortBy)
	}
	if p.Sort != nil {
		q.Desc = *p.Sort == gen.SortDirectionDesc
	}
	websites, total, err := s.repo.ListWebsites(ctx, userID(ctx), q)
	if err != nil {
		return nil, err
	}
	meta, links := envelope(pg, requestURL(ctx), total)
	data := make([]gen.Website, len(websites))
	for i, w := range websites {
		data[i] = s.websiteJSON(w)
	}
	return gen.ListWebsites200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// StoreWebsite answers POST /api/v1/websites.
func (s *Server) StoreWebsite(ctx context.Context, req gen.StoreWebsiteRequestObject) (gen.StoreWebsiteResponseObject, error) {
	f := req.Body
	w, errs, err := s.websites.Create(ctx, userID(ctx), f.Domain, website.Settings{
		Privacy: (*int)(f.Privacy), Password: f.Password, Email: (*int)(f.Email),
		ExcludeBots: (*int)(f.ExcludeBots), ExcludeParams: f.ExcludeParams, ExcludeIPs: f.ExcludeIps,
		Timezone: f.Timezone, BlockCountries: f.BlockCountries, BlockPages: f.BlockPages,
		AllowedHostnames: f.AllowedHostnames, RetentionDays: f.RetentionDays,
	})
	if err != nil {
		return nil, err
	}
	if errs != nil {
		return gen.StoreWebsite422JSONResponse{InvalidWebsiteJSONResponse: gen.InvalidWebsiteJSONResponse(invalidBody(errs))}, nil
	}
	return gen.StoreWebsite201JSONResponse{
		Body:    gen.WebsiteResponse{Data: s.websiteJSON(w)},
		Headers: gen.StoreWebsite201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d", w.ID))},
	}, nil
}

// ShowWebsite answers GET /api/v1/websites/{id}.
func (s *Server) ShowWebsite(ctx context.Context, req gen.ShowWebsiteRequestObject) (gen.ShowWebsiteResponseObject, error) {
	w, refused, err := s.open(ctx, req.Id, repository.RoleViewer)
	if refused != nil || err != nil {
		return gen.ShowWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	return gen.ShowWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: s.websiteJSON(w)}}, nil
}

// UpdateWebsite answers PUT /api/v1/websites/{id}.
func (s *Server) UpdateWebsite(ctx context.Context, req gen.UpdateWebsiteRequestObject) (gen.UpdateWebsiteResponseObject, error) {
	w, body, err := s.update(ctx, req.Id, req.Body)
	switch {
	case err != nil:
		return nil, err
	case body != nil && body.Status == 404:
		return gen.UpdateWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*body)}, nil
	case body != nil && body.Status == 403:
		return gen.UpdateWebsite403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*body)}, nil
	case body != nil:
		return gen.UpdateWebsite422JSONResponse{InvalidWebsiteUpdateJSONResponse: gen.InvalidWebsiteUpdateJSONResponse(*body)}, nil
	}
	return gen.UpdateWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: s.websiteJSON(w)}}, nil
}

// PatchWebsite answers PATCH /api/v1/websites/{id}, exactly like PUT.
func (s *Server) PatchWebsite(ctx context.Context, req gen.PatchWebsiteRequestObject) (gen.PatchWebsiteResponseObject, error) {
	w, body, err := s.update(ctx, req.Id, req.Body)
	switch {
	case err != nil:
		return nil, err
	case body != nil && body.Status == 404:
		return gen.PatchWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*body)}, nil
	case body != nil && body.Status == 403:
		return gen.PatchWebsite403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(*body)}, nil
	case body != nil:
		return gen.PatchWebsite422JSONResponse{InvalidWebsiteUpdateJSONResponse: gen.InvalidWebsiteUpdateJSONResponse(*body)}, nil
	}
	return gen.PatchWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: s.websiteJSON(w)}}, nil
}

// update applies an update form; a refusal comes back as an error body (404, 403 or 422), a
// failure as an error.
func (s *Server) update(ctx context.Context, id int64, f *gen.WebsiteUpdateForm) (repository.Website, *gen.Error, error) {
	if f == nil {
		f = &gen.WebsiteUpdateForm{}
	}
	w, errs, err := s.websites.Update(ctx, userID(ctx), id, website.Settings{
		Privacy: (*int)(f.Privacy), Password: f.Password, Email: (*int)(f.Email),
		ExcludeBots: (*int)(f.ExcludeBots), ExcludeParams: f.ExcludeParams, ExcludeIPs: f.ExcludeIps,
		Favorite: f.Favorite, Timezone: f.Timezone, BlockCountries: f.BlockCountries, BlockPages: f.BlockPages,
		AllowedHostnames: f.AllowedHostnames, RetentionDays: f.RetentionDays,
	})
	switch {
	case refusal(err) != nil:
		return repository.Website{}, refusal(err), nil
	case err != nil:
		return repository.Website{}, nil, err
	case errs != nil:
		body := invalidBody(errs)
		return repository.Website{}, &body, nil
	}
	return w, nil, nil
}

// DeleteWebsite answers DELETE /api/v1/websites/{id}.
func (s *Server) DeleteWebsite(ctx context.Context, req gen.DeleteWebsiteRequestObject) (gen.DeleteWebsiteResponseObject, error) {
	err := s.websites.Delete(ctx, userID(ctx), req.Id)
	if errors.Is(err, repository.ErrNotFound) {
		return gen.DeleteWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
	if errors.Is(err, website.ErrForbidden) {
		return gen.DeleteWebsite403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(forbidden())}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.DeleteWebsite200JSONResponse{Id: req.Id, Object: gen.DeletedObjectWebsite, Deleted: gen.DeletedDeletedTrue}, nil
}

func (s *Server) websiteJSON(w repository.Website) gen.Website {
	return gen.Website{
		Id:             w.ID,
		Role:           gen.WebsiteRole(w.Role),
		Domain:         w.Domain,
		Privacy:        gen.Privacy(w.Privacy),
		Password:       w.PasswordHash != nil,
		Email:          gen.ZeroOne(w.Email),
		ExcludeBots:    gen.ZeroOne(w.ExcludeBots),
		ExcludeParams:  w.ExcludeParams,
		ExcludeIps:     w.ExcludeIPs,
		Favorite:       w.Favorite,
		Timezone:       w.ZoneName(s.websites.Zone()),
		TimezoneFrom:   utcOrNil(w.TimezoneFrom),
		CreatedAt:      w.CreatedAt.UTC(),
		UpdatedAt:      w.UpdatedAt.UTC(),
		BlockCountries: w.BlockCountries, BlockPages: w.BlockPages, AllowedHostnames: w.AllowedHostnames,
		RetentionDays: w.RetentionDays,
	}
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
