package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/segments"
	"github.com/analytics-service/analytics/stats"
)

func annotationJSON(a repository.Annotation) gen.Annotation {
	return gen.Annotation{Id: a.ID, Date: openapi_types.Date{Time: a.Day}, Note: a.Note, Type: gen.PinnedType(segments.Kind(a.UserID))}
}

func dayOrZero(d *openapi_types.Date) time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.Time
}

// ListAnnotations answers GET /api/v1/websites/{id}/annotations.
func (s *Server) ListAnnotations(ctx context.Context, req gen.ListAnnotationsRequestObject) (gen.ListAnnotationsResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	if status != 0 || err != nil {
		return gen.ListAnnotations404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, err
	}
	from, to := dayOrZero(req.Params.From), dayOrZero(req.Params.To)
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		errs := stats.FieldErrors{"to": {"must be on or after from"}}
		return gen.ListAnnotations422JSONResponse{UnprocessableEntityJSONResponse: gen.UnprocessableEntityJSONResponse(invalidBody(errs))}, nil
	}
	all, err := s.pinned.Annotations(ctx, site, userID(ctx), from, to)
	if err != nil {
		return nil, err
	}
	pg := paging(req.Params.Page, (*int)(req.Params.PerPage))
	meta, links := envelope(pg, requestURL(ctx), int64(len(all)))
	data := []gen.Annotation{}
	for _, a := range pageOf(all, pg) {
		data = append(data, annotationJSON(a))
	}
	return gen.ListAnnotations200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// StoreAnnotation answers POST /api/v1/websites/{id}/annotations.
func (s *Server) StoreAnnotation(ctx context.Context, req gen.StoreAnnotationRequestObject) (gen.StoreAnnotationResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	var a repository.Annotation
	var errs stats.FieldErrors
	if status == 0 && err == nil {
		b := req.Body
		a, errs, err = s.pinned.CreateAnnotation(ctx, site, userID(ctx), segments.Change{Date: &b.Date, Note: &b.Note, Type: pinnedType(b.Type)})
		status, body = pinnedRefusal(err, "Website")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.StoreAnnotation403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.StoreAnnotation404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.StoreAnnotation422JSONResponse{InvalidAnnotationJSONResponse: gen.InvalidAnnotationJSONResponse(invalidBody(errs))}, nil
	}
	return gen.StoreAnnotation201JSONResponse{
		Body:    gen.AnnotationResponse{Data: annotationJSON(a)},
		Headers: gen.StoreAnnotation201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d/annotations/%d", req.Id, a.ID))},
	}, nil
}

// UpdateAnnotation answers PATCH /api/v1/websites/{id}/annotations/{annotation_id}.
func (s *Server) UpdateAnnotation(ctx context.Context, req gen.UpdateAnnotationRequestObject) (gen.UpdateAnnotationResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	var a repository.Annotation
	var errs stats.FieldErrors
	if status == 0 && err == nil {
		b := req.Body
		a, errs, err = s.pinned.UpdateAnnotation(ctx, site, userID(ctx), req.AnnotationId, segments.Change{Date: b.Date, Note: b.Note, Type: pinnedType(b.Type)})
		status, body = pinnedRefusal(err, "Annotation")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.UpdateAnnotation403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.UpdateAnnotation404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.UpdateAnnotation422JSONResponse{InvalidAnnotationJSONResponse: gen.InvalidAnnotationJSONResponse(invalidBody(errs))}, nil
	}
	return gen.UpdateAnnotation200JSONResponse{Data: annotationJSON(a)}, nil
}

// DeleteAnnotation answers DELETE /api/v1/websites/{id}/annotations/{annotation_id}.
func (s *Server) DeleteAnnotation(ctx context.Context, req gen.DeleteAnnotationRequestObject) (gen.DeleteAnnotationResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	if status == 0 && err == nil {
		err = s.pinned.DeleteAnnotation(ctx, site, userID(ctx), req.AnnotationId)
		status, body = pinnedRefusal(err, "Annotation")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.DeleteAnnotation403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.DeleteAnnotation404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	}
	return gen.DeleteAnnotation200JSONResponse{Id: req.AnnotationId, Object: gen.AnnotationDeletedObjectAnnotation, Deleted: gen.AnnotationDeletedDeletedTrue}, nil
}
