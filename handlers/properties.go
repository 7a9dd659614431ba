package handlers

import (
	"context"
	"errors"

	"github.com/analytics-service/analytics/gen"
)

// ListProperties answers GET /api/v1/stats/{website_id}/properties.
func (s *Server) ListProperties(ctx context.Context, req gen.ListPropertiesRequestObject) (gen.ListPropertiesResponseObject, error) {
	return nil, errors.New("properties: not built yet")
}

// ListRevenue answers GET /api/v1/stats/{website_id}/revenue.
func (s *Server) ListRevenue(ctx context.Context, req gen.ListRevenueRequestObject) (gen.ListRevenueResponseObject, error) {
	return nil, errors.New("revenue: not built yet")
}
