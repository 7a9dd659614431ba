package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
)

// queryUnauthorized is the 401 of the query API, for a bad key and for a site_id the key may
// not read alike, so that an answer never tells which domains exist.
const queryUnauthorized = "Invalid API key or site ID."

// Query answers POST /api/v2/query: the site is one the key's user has a role on, the body is parsed and checked
// once (package query), and the repository runs it over the visit rows.
func (s *Server) QueryStats(ctx context.Context, req gen.QueryStatsRequestObject) (gen.QueryStatsResponseObject, error) {
	var invalid *query.Invalid
	if err := query.CheckSiteID(req.Body.SiteId); errors.As(err, &invalid) {
		return gen.QueryStats400JSONResponse{QueryInvalidJSONResponse: gen.QueryInvalidJSONResponse{Error: invalid.Message}}, nil
	}
	site, err := s.repo.WebsiteByDomain(ctx, req.Body.SiteId)
	var role repository.Role
	if err == nil {
		role, err = s.websites.Role(ctx, userID(ctx), site) // any role reads
	}
	if errors.Is(err, repository.ErrNotFound) || (err == nil && role == "") {
		return gen.QueryStats401JSONResponse{QueryUnauthorizedJSONResponse: gen.QueryUnauthorizedJSONResponse{
			Body: gen.QueryError{Error: queryUnauthorized}, Headers: gen.QueryUnauthorizedResponseHeaders{WWWAuthenticate: "Bearer"}}}, nil
	}
	if err == nil {
		err = s.admitWebsite(ctx, site.ID)
	}
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req.Body)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	// Relative ranges and hours are the website's own zone's, as on every stats read.
	zone, now := site.Zone(s.loc), s.now()
	// ["is", "segment", [ID]]: the website's segments that the key's user sees.
	q, err := query.Parse(body, query.Env{Now: now, Location: zone.At(now), Start: site.CreatedAt,
		Segment: s.pinned.Lookup(ctx, site.ID, userID(ctx))})
	if errors.As(err, &invalid) {
		return gen.QueryStats400JSONResponse{QueryInvalidJSONResponse: gen.QueryInvalidJSONResponse{Error: invalid.Message}}, nil
	}
	if err != nil {
		return nil, err
	}
	answer, err := s.repo.RunQuery(ctx, site.ID, q, zone)
	if err != nil {
		return nil, err
	}
	results := make([]gen.QueryResult, len(answer.Rows))
	for i, row := range answer.Rows {
		if results[i], err = queryResult(q, row); err != nil {
			return nil, err
		}
	}
	return gen.QueryStats200JSONResponse{Results: results, Meta: queryMeta(q, answer), Query: q.Echo()}, nil
}

// queryResult is a row as answered: numbers, and a revenue metric as Plausible's object (or
// null without a currency).
func queryResult(q *query.Query, row repository.QueryRow) (gen.QueryResult, error) {
	metrics := make([]gen.QueryMetricValue, len(row.Metrics))
	for i, x := range row.Metrics {
		var err error
		switch {
		case !q.Metrics[i].IsRevenue():
			err = metrics[i].FromQueryMetricValue0(x)
		case row.Revenue == nil || row.Revenue[i] == nil:
			// A revenue metric without a currency is null: the zero value, written as null.
		default:
			r := query.NewRevenue(row.Revenue[i].Amount, row.Revenue[i].Currency)
			err = metrics[i].FromQueryRevenue(gen.QueryRevenue{Value: json.Number(r.Value), Currency: r.Currency, Short: r.Short, Long: r.Long})
		}
		if err != nil {
			return gen.QueryResult{}, fmt.Errorf("query: metric %d: %w", i, err)
		}
	}
	return gen.QueryResult{Dimensions: row.Dimensions, Metrics: metrics}, nil
}

// queryMeta is what the answer says of itself: what include asked for, and what the numbers
// rest on (a sample, the first day of visit rows, an hour-rounded range).
func queryMeta(q *query.Query, answer repository.QueryAnswer) gen.QueryMeta {
	var meta gen.QueryMeta
	if q.Include.TotalRows {
		meta.TotalRows = &answer.TotalRows
	}
	if q.Include.TimeLabels && q.TimeIndex() >= 0 {
		labels := repository.QueryTimeLabels(q)
		meta.TimeLabels = &labels
	}
	if q.Include.Imports {
		// Imported days are daily counters: they count in the answers the counters give, and
		// no breakdown of visit rows can split them.
		included := answer.FromCounters
		meta.ImportsIncluded = &included
		if !included {
			warning := "Imported stats are not included: a query with filters or breakdowns is answered from the visits this service recorded."
			meta.ImportsWarning = &warning
		}
	}
	if f := answer.Basis.Fraction; f < 1 {
		meta.Sampled = &f
	}
	if !answer.Basis.From.IsZero() {
		meta.FilteredFrom = &openapi_types.Date{Time: answer.Basis.From}
	}
	if q.Range.Rounded {
		rounded := true
		meta.TimeRangeRounded = &rounded
	}
	if len(answer.Warnings) > 0 {
		warnings := map[string]gen.QueryMetricWarning{}
		for m, w := range answer.Warnings {
			warnings[string(m)] = gen.QueryMetricWarning{Code: w.Code, Warning: w.Warning}
		}
		meta.MetricWarnings = &warnings
	}
	return meta
}

// QuerySchema is the body of POST /api/v2/query as a JSON Schema, served at
// /api/docs/query/schema.json where Plausible serves its own: the spec's QueryRequest itself,
// so that the two cannot differ.
func QuerySchema() ([]byte, error) {
	spec, err := gen.GetSwagger()
	if err != nil {
		return nil, fmt.Errorf("query schema: %w", err)
	}
	ref := spec.Components.Schemas["QueryRequest"]
	if ref == nil || ref.Value == nil {
		return nil, errors.New("query schema: no QueryRequest in the spec")
	}
	raw, err := json.Marshal(ref.Value)
	if err != nil {
		return nil, fmt.Errorf("query schema: %w", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("query schema: %w", err)
	}
	schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	schema["title"] = "Query (POST /api/v2/query)"
	return json.MarshalIndent(schema, "", "  ")
}
