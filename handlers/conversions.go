package handlers

import (
	"context"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// ListGoalConversions answers GET /api/v1/stats/{website_id}/goals: every goal of the website
// with its conversions over the range, read from the visit rows (docs/goals.md).
func (s *Server) ListGoalConversions(ctx context.Context, req gen.ListGoalConversionsRequestObject) (gen.ListGoalConversionsResponseObject, error) {
	p := req.Params
	days, bad := statsRange(p.From.Time, p.To.Time)
	if bad != nil {
		return gen.ListGoalConversions422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(*bad)}, nil
	}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.ListGoalConversions404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	goals, err := s.repo.Goals(ctx, req.WebsiteId)
	if err != nil {
		return nil, err
	}
	conversions, visitors, basis, err := s.repo.Conversions(ctx, req.WebsiteId, days, filtersOf(ctx), goals)
	if err != nil {
		return nil, err
	}
	revenue, _, err := s.repo.Revenue(ctx, req.WebsiteId, days, filtersOf(ctx), goals)
	if err != nil {
		return nil, err
	}
	pg := paging(p.Page, (*int)(p.PerPage))
	meta, links := envelope(pg, requestURL(ctx), int64(len(conversions)))
	notes := notesOfBasis(basis)
	meta.Sampled, meta.FilteredFrom = notes.sampled, notes.filteredFrom
	data := []gen.GoalConversion{}
	if first, last := pg.Shown(int64(len(conversions))); first > 0 {
		for _, c := range conversions[first-1 : last] {
			data = append(data, conversionJSON(c, visitors, revenue))
		}
	}
	return gen.ListGoalConversions200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

func conversionJSON(c repository.GoalConversion, visitors int64, revenue []repository.GoalRevenue) gen.GoalConversion {
	total, average := goalRevenue(c.Goal, revenue)
	return gen.GoalConversion{Goal: c.Goal.DisplayName, Kind: gen.GoalKind(c.Goal.Kind), Visitors: c.Visitors,
		Events: c.Events, ConversionRate: stats.ConversionRate(c.Visitors, visitors), TotalRevenue: total, AverageRevenue: average}
}
