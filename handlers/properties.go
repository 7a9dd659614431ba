package handlers

import (
	"context"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListProperties answers GET /api/v1/stats/{website_id}/properties: the custom property keys
// of the range with the hits that carried each, read from the visit rows (docs/properties.md).
func (s *Server) ListProperties(ctx context.Context, req gen.ListPropertiesRequestObject) (gen.ListPropertiesResponseObject, error) {
	p := req.Params
	days, bad := statsRange(p.From.Time, p.To.Time)
	if bad != nil {
		return gen.ListProperties422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(*bad)}, nil
	}
	errs := stats.FieldErrors{}
	q := stats.ParseListQuery(string(stats.Property), days, requestURL(ctx).Query(), errs)
	delete(errs, "property") // the keys: no key to give
	if len(errs) > 0 {
		return gen.ListProperties422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(invalidBody(errs))}, nil
	}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.ListProperties404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	q.Property = ""
	data, meta, links, err := readList(ctx, s.repo.RowReader(req.WebsiteId, days, q.Filters), q)
	if err != nil {
		return nil, err
	}
	return gen.ListProperties200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// ListRevenue answers GET /api/v1/stats/{website_id}/revenue: the revenue of each event goal's
// events per currency, every currency apart (no exchange rates here).
func (s *Server) ListRevenue(ctx context.Context, req gen.ListRevenueRequestObject) (gen.ListRevenueResponseObject, error) {
	p := req.Params
	days, bad := statsRange(p.From.Time, p.To.Time)
	if bad != nil {
		return gen.ListRevenue422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(*bad)}, nil
	}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.ListRevenue404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	goals, err := s.repo.Goals(ctx, req.WebsiteId)
	if err != nil {
		return nil, err
	}
	revenue, basis, err := s.repo.Revenue(ctx, req.WebsiteId, days, filtersOf(ctx), goals)
	if err != nil {
		return nil, err
	}
	pg := paging(p.Page, (*int)(p.PerPage))
	meta, links := envelope(pg, requestURL(ctx), int64(len(revenue)))
	notes := notesOfBasis(basis)
	meta.Sampled, meta.FilteredFrom = notes.sampled, notes.filteredFrom
	data := []gen.RevenueEntry{}
	if first, last := pg.Shown(int64(len(revenue))); first > 0 {
		for _, r := range revenue[first-1 : last] {
			data = append(data, gen.RevenueEntry{Goal: r.Goal.DisplayName, Currency: r.Currency, Events: r.Events, Amount: r.Amount})
		}
	}
	return gen.ListRevenue200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// money is the spec's revenue object of a goal (total_revenue, average_revenue).
type money = struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// goalRevenue is a goal's total and average revenue in its currency: nil for a goal without
// one, 0.00 when none of its events carried revenue in it.
func goalRevenue(g stats.Goal, revenue []repository.GoalRevenue) (total, average *money) {
	if g.Currency == "" {
		return nil, nil
	}
	total, average = &money{Amount: "0.00", Currency: g.Currency}, &money{Amount: "0.00", Currency: g.Currency}
	for _, r := range revenue {
		if r.Goal.ID == g.ID && r.Currency == g.Currency {
			total.Amount, average.Amount = r.Amount, r.Average
		}
	}
	return total, average
}
