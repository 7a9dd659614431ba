package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/segments"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// Segments and annotations (docs/segments.md): the website is opened for any role (every
// reader may see the website's and keep personal ones); what a role may change is the
// segments package's rule, whose refusals map here to the API's 403 and 404.

// pinnedRefusal is the status and body of a refusal of the segments service (or of the
// access check), 0 when err is none of them. thing names what is missing ("Segment").
func pinnedRefusal(err error, thing string) (int, gen.Error) {
	switch {
	case errors.Is(err, website.ErrForbidden):
		return http.StatusForbidden, forbidden()
	case errors.Is(err, repository.ErrNotFound):
		return http.StatusNotFound, gen.Error{Message: thing + " not found.", Status: http.StatusNotFound}
	}
	return 0, gen.Error{}
}

// openPinned opens the website for any role: the refusal's status and body, or a failure.
func (s *Server) openPinned(ctx context.Context, id int64) (repository.Website, int, gen.Error, error) {
	site, err := s.websites.Open(ctx, userID(ctx), id, repository.RoleViewer)
	if errors.Is(err, repository.ErrNotFound) {
		return site, http.StatusNotFound, notFound(), nil
	}
	return site, 0, gen.Error{}, err
}

func segmentJSON(seg repository.Segment) (gen.Segment, error) {
	out := gen.Segment{Id: seg.ID, Name: seg.Name, Type: gen.PinnedType(segments.Kind(seg.UserID))}
	if err := json.Unmarshal(seg.Filters, &out.Filters); err != nil {
		return gen.Segment{}, fmt.Errorf("segment %d: stored filters: %w", seg.ID, err)
	}
	return out, nil
}

func pinnedType(t *gen.PinnedType) *string {
	if t == nil {
		return nil
	}
	s := string(*t)
	return &s
}

// segmentFilters are a form's filters as bytes (nil: not sent).
func segmentFilters(f *string) []byte {
	if f == nil {
		return nil
	}
	return []byte(*f)
}

// ListSegments answers GET /api/v1/websites/{id}/segments.
func (s *Server) ListSegments(ctx context.Context, req gen.ListSegmentsRequestObject) (gen.ListSegmentsResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	if status != 0 || err != nil {
		return gen.ListSegments404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, err
	}
	all, err := s.pinned.Segments(ctx, site, userID(ctx))
	if err != nil {
		return nil, err
	}
	pg := paging(req.Params.Page, (*int)(req.Params.PerPage))
	meta, links := envelope(pg, requestURL(ctx), int64(len(all)))
	data := []gen.Segment{}
	for _, seg := range pageOf(all, pg) {
		j, err := segmentJSON(seg)
		if err != nil {
			return nil, err
		}
		data = append(data, j)
	}
	return gen.ListSegments200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// pageOf is one page of a list read whole (a website holds at most a few hundred).
func pageOf[T any](all []T, pg stats.Paging) []T {
	from := min(pg.Offset(), len(all))
	return all[from:min(from+pg.Size, len(all))]
}

// StoreSegment answers POST /api/v1/websites/{id}/segments.
func (s *Server) StoreSegment(ctx context.Context, req gen.StoreSegmentRequestObject) (gen.StoreSegmentResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	var seg repository.Segment
	var errs stats.FieldErrors
	if status == 0 && err == nil {
		b := req.Body
		seg, errs, err = s.pinned.CreateSegment(ctx, site, userID(ctx), segments.Change{Name: &b.Name, Type: pinnedType(b.Type), Filters: []byte(b.Filters)})
		status, body = pinnedRefusal(err, "Website")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.StoreSegment403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.StoreSegment404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.StoreSegment422JSONResponse{InvalidSegmentJSONResponse: gen.InvalidSegmentJSONResponse(invalidBody(errs))}, nil
	}
	j, err := segmentJSON(seg)
	if err != nil {
		return nil, err
	}
	return gen.StoreSegment201JSONResponse{
		Body:    gen.SegmentResponse{Data: j},
		Headers: gen.StoreSegment201ResponseHeaders{Location: location(ctx, fmt.Sprintf("/api/v1/websites/%d/segments/%d", req.Id, seg.ID))},
	}, nil
}

// UpdateSegment answers PATCH /api/v1/websites/{id}/segments/{segment_id}.
func (s *Server) UpdateSegment(ctx context.Context, req gen.UpdateSegmentRequestObject) (gen.UpdateSegmentResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	var seg repository.Segment
	var errs stats.FieldErrors
	if status == 0 && err == nil {
		b := req.Body
		seg, errs, err = s.pinned.UpdateSegment(ctx, site, userID(ctx), req.SegmentId,
			segments.Change{Name: b.Name, Type: pinnedType(b.Type), Filters: segmentFilters(b.Filters)})
		status, body = pinnedRefusal(err, "Segment")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.UpdateSegment403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.UpdateSegment404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	case errs != nil:
		return gen.UpdateSegment422JSONResponse{InvalidSegmentJSONResponse: gen.InvalidSegmentJSONResponse(invalidBody(errs))}, nil
	}
	j, err := segmentJSON(seg)
	if err != nil {
		return nil, err
	}
	return gen.UpdateSegment200JSONResponse{Data: j}, nil
}

// DeleteSegment answers DELETE /api/v1/websites/{id}/segments/{segment_id}.
func (s *Server) DeleteSegment(ctx context.Context, req gen.DeleteSegmentRequestObject) (gen.DeleteSegmentResponseObject, error) {
	site, status, body, err := s.openPinned(ctx, req.Id)
	if status == 0 && err == nil {
		err = s.pinned.DeleteSegment(ctx, site, userID(ctx), req.SegmentId)
		status, body = pinnedRefusal(err, "Segment")
	}
	switch {
	case status == http.StatusForbidden:
		return gen.DeleteSegment403JSONResponse{ForbiddenJSONResponse: gen.ForbiddenJSONResponse(body)}, nil
	case status == http.StatusNotFound:
		return gen.DeleteSegment404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(body)}, nil
	case err != nil:
		return nil, err
	}
	return gen.DeleteSegment200JSONResponse{Id: req.SegmentId, Object: gen.SegmentDeletedObjectSegment, Deleted: gen.SegmentDeletedDeletedTrue}, nil
}
