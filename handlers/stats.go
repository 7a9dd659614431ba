package handlers

import (
	"bytes"
	"context"
	"net/http"

	openapi_types "github.com/oapi-codegen/runtime/types"

	analytics "github.com/analytics-service/analytics"
	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListStats answers GET /api/v1/stats/{website_id}. Its query is built as the pages' full
// lists build theirs (stats.ParseListQuery), from the parameters the validator has checked.
func (s *Server) ListStats(ctx context.Context, req gen.ListStatsRequestObject) (gen.ListStatsResponseObject, error) {
	p := req.Params
	if p.From.After(p.To.Time) {
		return gen.ListStats422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(
			invalid("to", "must be a date after or equal to from"))}, nil
	}
	errs := stats.FieldErrors{}
	q := stats.ParseListQuery(string(p.Name), stats.Range{From: p.From.Time, To: p.To.Time}, requestURL(ctx).Query(), errs)
	if len(errs) > 0 {
		return gen.ListStats422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(invalidBody(errs))}, nil
	}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.ListStats404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	data, meta, links, err := readList(ctx, s.repo.ListReader(req.WebsiteId, q), q)
	if err != nil {
		return nil, err
	}
	return gen.ListStats200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// readList reads a list's page of entries and its envelope (what a filtered read says of
// itself included); the page list with each page's time on page and scroll depth, in one read.
func readList(ctx context.Context, reader repository.Reader, q stats.ListQuery) ([]gen.StatEntry, gen.ListMeta, gen.ListLinks, error) {
	var engaged map[string]repository.PageEngagement
	var entries []repository.StatEntry
	var total int64
	var err error
	if q.Name == stats.Page {
		entries, total, engaged, err = repository.PageListWithEngagement(ctx, reader, repository.StatQueryOf(q))
	} else {
		entries, total, err = reader.List(ctx, repository.StatQueryOf(q))
	}
	if err != nil {
		return nil, gen.ListMeta{}, gen.ListLinks{}, err
	}
	notes, err := notesOf(ctx, reader)
	if err != nil {
		return nil, gen.ListMeta{}, gen.ListLinks{}, err
	}
	meta, links := envelope(q.Paging, requestURL(ctx), total)
	meta.Sampled, meta.FilteredFrom = notes.sampled, notes.filteredFrom
	data := make([]gen.StatEntry, len(entries))
	for i, e := range entries {
		data[i] = gen.StatEntry{Value: e.Value, Count: e.Count}
		if q.Name == stats.Page {
			data[i].TimeOnPage, data[i].ScrollDepth = engaged[e.Value].TimeOnPage, engaged[e.Value].ScrollDepth
		}
	}
	return data, meta, links, nil
}

// filterNotes is what a filtered answer says of itself (docs/filters.md); both nil
// for the counters' numbers, so that an unfiltered answer is as it ever was.
type filterNotes struct {
	sampled      *float64            // the fraction of the visitors read, when under 1
	filteredFrom *openapi_types.Date // the first day counted, when after the range's first
}

// notesOf is the filterNotes of the numbers a reader reads.
func notesOf(ctx context.Context, reader repository.Reader) (filterNotes, error) {
	basis, err := reader.Basis(ctx)
	if err != nil {
		return filterNotes{}, err
	}
	return notesOfBasis(basis), nil
}

// notesOfBasis is the filterNotes of numbers that rest on basis.
func notesOfBasis(basis repository.Basis) filterNotes {
	var n filterNotes
	if f := basis.Fraction; f < 1 {
		n.sampled = &f
	}
	if !basis.From.IsZero() {
		n.filteredFrom = &openapi_types.Date{Time: basis.From}
	}
	return n
}

// GetOpenAPI answers GET /api/v1/openapi.yaml with the spec as written.
func (s *Server) GetOpenAPI(_ context.Context, _ gen.GetOpenAPIRequestObject) (gen.GetOpenAPIResponseObject, error) {
	return gen.GetOpenAPI200ApplicationyamlResponse{Body: bytes.NewReader(analytics.OpenAPI), ContentLength: int64(len(analytics.OpenAPI))}, nil
}

// HeadOpenAPI answers HEAD /api/v1/openapi.yaml: GET's answer without the body.
func (s *Server) HeadOpenAPI(_ context.Context, _ gen.HeadOpenAPIRequestObject) (gen.HeadOpenAPIResponseObject, error) {
	return openAPIHead{}, nil
}

// openAPIHead adds to the generated HEAD answer the Content-Type GET sends (a response with no
// content in the spec sets none).
type openAPIHead struct{}

func (openAPIHead) VisitHeadOpenAPIResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/yaml")
	return gen.HeadOpenAPI200Response{Headers: gen.HeadOpenAPI200ResponseHeaders{ContentLength: len(analytics.OpenAPI)}}.VisitHeadOpenAPIResponse(w)
}
