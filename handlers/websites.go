package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
)

// ListWebsites answers GET /api/v1/websites.
func (s *Server) ListWebsites(ctx context.Context, req gen.ListWebsitesRequestObject) (gen.ListWebsitesResponseObject, error) {
	p := req.Params
	pg := newPage(p.Page, (*int)(p.PerPage))
	q := repository.WebsiteQuery{
		SortBy: "id", Desc: true, Limit: pg.size, Offset: pg.offset(),
		Favorite: flag(p.Favorite),
	}
	if p.Search != nil {
		q.Search = *p.Search
	}
	if p.SortBy != nil {
		q.SortBy = string(*p.SortBy)
	}
	if p.Sort != nil {
		q.Desc = *p.Sort == gen.ListWebsitesParamsSortDesc
	}
	websites, total, err := s.repo.ListWebsites(ctx, userID(ctx), q)
	if err != nil {
		return nil, err
	}
	meta, links := pg.envelope(requestURL(ctx), total)
	data := make([]gen.Website, len(websites))
	for i, w := range websites {
		data[i] = websiteJSON(w)
	}
	return gen.ListWebsites200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// StoreWebsite answers POST /api/v1/websites.
func (s *Server) StoreWebsite(ctx context.Context, req gen.StoreWebsiteRequestObject) (gen.StoreWebsiteResponseObject, error) {
	in, errs := s.newWebsite(req.Body)
	if len(errs) > 0 {
		return gen.StoreWebsite422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(errs.body())}, nil
	}
	if req.Body.Password != nil {
		hash, err := s.hashPassword(*req.Body.Password)
		if err != nil {
			return nil, err
		}
		in.PasswordHash = &hash
	}
	w, err := s.repo.CreateWebsite(ctx, userID(ctx), in)
	if errors.Is(err, repository.ErrConflict) {
		return gen.StoreWebsite422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(
			invalid("domain", "has already been taken"))}, nil
	}
	if err != nil {
		return nil, err
	}
	s.changed(ctx, w.ID)
	return gen.StoreWebsite201JSONResponse{
		Body:    gen.WebsiteResponse{Data: websiteJSON(w)},
		Headers: gen.StoreWebsite201ResponseHeaders{Location: fmt.Sprintf("/api/v1/websites/%d", w.ID)},
	}, nil
}

// newWebsite validates a store form and applies its defaults (kin-openapi does not apply
// schema defaults to form bodies).
func (s *Server) newWebsite(f *gen.WebsiteStoreForm) (repository.NewWebsite, fieldErrors) {
	errs := fieldErrors{}
	in := repository.NewWebsite{Privacy: 0, Email: 0, ExcludeBots: 1}
	domain, err := normaliseDomain(f.Domain)
	if err != nil {
		errs.add("domain", err.Error())
	}
	in.Domain = domain
	if f.Privacy != nil {
		in.Privacy = int(*f.Privacy)
	}
	if f.Email != nil {
		in.Email = int(*f.Email)
	}
	if f.ExcludeBots != nil {
		in.ExcludeBots = int(*f.ExcludeBots)
	}
	if in.Privacy == 2 && f.Password == nil {
		errs.add("password", "is required when privacy is 2")
	}
	in.ExcludeParams, in.ExcludeIPs = exclusions(f.ExcludeParams, f.ExcludeIps, errs)
	return in, errs
}

// exclusions validates and normalises the two exclusion lists; nil stays nil (not sent).
func exclusions(params, ips *string, errs fieldErrors) (*string, *string) {
	var outParams, outIPs *string
	if params != nil {
		v, err := normaliseExcludeParams(*params)
		if err != nil {
			errs.add("exclude_params", err.Error())
		}
		outParams = &v
	}
	if ips != nil {
		v, err := normaliseExcludeIPs(*ips)
		if err != nil {
			errs.add("exclude_ips", err.Error())
		}
		outIPs = &v
	}
	return outParams, outIPs
}

// ShowWebsite answers GET /api/v1/websites/{id}.
func (s *Server) ShowWebsite(ctx context.Context, req gen.ShowWebsiteRequestObject) (gen.ShowWebsiteResponseObject, error) {
	w, err := s.repo.Website(ctx, userID(ctx), req.Id)
	if errors.Is(err, repository.ErrNotFound) {
		return gen.ShowWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
	if err != nil {
		return nil, err
	}
	return gen.ShowWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: websiteJSON(w)}}, nil
}

// UpdateWebsite answers PUT /api/v1/websites/{id}.
func (s *Server) UpdateWebsite(ctx context.Context, req gen.UpdateWebsiteRequestObject) (gen.UpdateWebsiteResponseObject, error) {
	w, body, err := s.update(ctx, req.Id, req.Body)
	switch {
	case err != nil:
		return nil, err
	case body != nil && body.Status == 404:
		return gen.UpdateWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*body)}, nil
	case body != nil:
		return gen.UpdateWebsite422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(*body)}, nil
	}
	return gen.UpdateWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: websiteJSON(w)}}, nil
}

// PatchWebsite answers PATCH /api/v1/websites/{id}, exactly like PUT.
func (s *Server) PatchWebsite(ctx context.Context, req gen.PatchWebsiteRequestObject) (gen.PatchWebsiteResponseObject, error) {
	w, body, err := s.update(ctx, req.Id, req.Body)
	switch {
	case err != nil:
		return nil, err
	case body != nil && body.Status == 404:
		return gen.PatchWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(*body)}, nil
	case body != nil:
		return gen.PatchWebsite422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(*body)}, nil
	}
	return gen.PatchWebsite200JSONResponse{WebsiteOKJSONResponse: gen.WebsiteOKJSONResponse{Data: websiteJSON(w)}}, nil
}

// update applies an update form; a refusal comes back as an error body (404 or 422), a failure
// as an error.
func (s *Server) update(ctx context.Context, id int64, f *gen.WebsiteUpdateForm) (repository.Website, *gen.Error, error) {
	if f == nil {
		f = &gen.WebsiteUpdateForm{}
	}
	errs := fieldErrors{}
	ch := repository.WebsiteChanges{
		Privacy:     (*int)(f.Privacy),
		Email:       (*int)(f.Email),
		ExcludeBots: (*int)(f.ExcludeBots),
		Favorite:    flag(f.Favorite),
	}
	ch.ExcludeParams, ch.ExcludeIPs = exclusions(f.ExcludeParams, f.ExcludeIps, errs)
	if len(errs) > 0 {
		body := errs.body()
		return repository.Website{}, &body, nil
	}
	if f.Password != nil {
		hash, err := s.hashPassword(*f.Password)
		if err != nil {
			return repository.Website{}, nil, err
		}
		ch.PasswordHash = &hash
	}
	w, err := s.repo.UpdateWebsite(ctx, userID(ctx), id, ch)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		body := notFound()
		return repository.Website{}, &body, nil
	case errors.Is(err, repository.ErrPasswordRequired):
		body := invalid("password", "is required when privacy is 2")
		return repository.Website{}, &body, nil
	case err != nil:
		return repository.Website{}, nil, err
	}
	s.changed(ctx, id)
	return w, nil, nil
}

// DeleteWebsite answers DELETE /api/v1/websites/{id}.
func (s *Server) DeleteWebsite(ctx context.Context, req gen.DeleteWebsiteRequestObject) (gen.DeleteWebsiteResponseObject, error) {
	err := s.repo.DeleteWebsite(ctx, userID(ctx), req.Id)
	if errors.Is(err, repository.ErrNotFound) {
		return gen.DeleteWebsite404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, nil
	}
	if err != nil {
		return nil, err
	}
	s.changed(ctx, req.Id)
	return gen.DeleteWebsite200JSONResponse{Id: req.Id, Object: gen.DeletedObjectWebsite, Deleted: gen.DeletedDeletedTrue}, nil
}

// changed tells this node's ingest cache about a write. A failure is only logged: the website
// is written, and the cache's periodic reload catches up within its TTL.
func (s *Server) changed(ctx context.Context, id int64) {
	if s.onChange == nil {
		return
	}
	if err := s.onChange(ctx, id); err != nil {
		s.log.Warn("refresh ingest settings after a change", "website_id", id, "error", err)
	}
}

func websiteJSON(w repository.Website) gen.Website {
	return gen.Website{
		Id:            w.ID,
		Domain:        w.Domain,
		Privacy:       gen.Privacy(w.Privacy),
		Password:      w.PasswordHash != nil,
		Email:         gen.ZeroOne(w.Email),
		ExcludeBots:   gen.ZeroOne(w.ExcludeBots),
		ExcludeParams: w.ExcludeParams,
		ExcludeIps:    w.ExcludeIPs,
		Favorite:      w.Favorite,
		CreatedAt:     w.CreatedAt.UTC(),
		UpdatedAt:     w.UpdatedAt.UTC(),
	}
}

// flag reads a true|false|1|0 parameter.
func flag(f *gen.Flag) *bool {
	if f == nil {
		return nil
	}
	v := *f == gen.FlagTrue || *f == gen.FlagN1
	return &v
}
