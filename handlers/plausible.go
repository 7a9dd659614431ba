package handlers

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
)

// Plausible's Stats API v1 (docs/plausible-v1.md): each request is translated into a query of
// POST /api/v2/query (query.ParseV1) and run by the same engine, so both answer the same
// numbers. Every refusal is an *apiError, written as Plausible's {"error": ...} by the error
// handler (query_errors.go).

const plausibleMissingSite = "Missing site ID. Please provide the required site_id parameter with your request."

// plausibleSite is the website of a site_id the caller may read; a missing site_id is a 400,
// an unknown domain or one of another user the same 401 as a bad key.
func (s *Server) plausibleSite(ctx context.Context, siteID string) (repository.Website, error) {
	if siteID == "" {
		return repository.Website{}, &apiError{status: http.StatusBadRequest, message: plausibleMissingSite}
	}
	site, err := s.repo.WebsiteByDomain(ctx, siteID)
	var role repository.Role
	if err == nil {
		role, err = s.websites.Role(ctx, userID(ctx), site) // any role reads
	}
	if errors.Is(err, repository.ErrNotFound) || (err == nil && role == "") {
		return repository.Website{}, &apiError{status: http.StatusUnauthorized}
	}
	if err == nil {
		err = s.admitWebsite(ctx, site.ID)
	}
	return site, err
}

// PlausibleRealtimeVisitors answers GET /api/v1/stats/realtime/visitors: the visitors of the
// last 5 minutes, as the realtime endpoint counts them.
func (s *Server) PlausibleRealtimeVisitors(ctx context.Context, req gen.PlausibleRealtimeVisitorsRequestObject) (gen.PlausibleRealtimeVisitorsResponseObject, error) {
	site, err := s.plausibleSite(ctx, req.Params.SiteId)
	if err != nil {
		return nil, err
	}
	n, err := s.repo.CurrentVisitors(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	return bareCount(n), nil
}

// bareCount is the realtime answer as Plausible writes it: the number alone, without the
// newline json.Encoder ends the generated answer with. go-plausible reads it with
// strconv.Atoi, which that newline fails (handlers/testdata/plausible-clients).
type bareCount int64

func (n bareCount) VisitPlausibleRealtimeVisitorsResponse(w http.ResponseWriter) error {
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(http.StatusOK)
	_, err := io.WriteString(w, strconv.FormatInt(int64(n), 10))
	return err
}

// v1Run is a v1 request translated and run: its query, and the answers of the period and,
// with compare, of the previous one.
type v1Run struct {
	v1               *query.V1Query
	q                *query.Query
	answer, previous repository.QueryAnswer
}

func (s *Server) runV1(ctx context.Context, kind query.V1Kind, siteID string, p query.V1Params) (*v1Run, error) {
	site, err := s.plausibleSite(ctx, siteID)
	if err != nil {
		return nil, err
	}
	goals, err := s.repo.Goals(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(goals))
	for _, g := range goals {
		names = append(names, g.DisplayName)
	}
	zone, now := site.Zone(s.loc), s.now()
	env := query.Env{Now: now, Location: zone.At(now), Start: site.CreatedAt}
	v1, err := query.ParseV1(kind, site.Domain, p, env, names)
	if err != nil {
		return nil, v1Invalid(err)
	}
	run := &v1Run{v1: v1}
	if run.q, run.answer, err = s.runV1Body(ctx, site, env, v1, v1.Body); err != nil {
		return nil, err
	}
	if v1.Compare {
		if _, run.previous, err = s.runV1Body(ctx, site, env, v1, v1.PreviousBody()); err != nil {
			return nil, err
		}
	}
	return run, nil
}

func (s *Server) runV1Body(ctx context.Context, site repository.Website, env query.Env, v1 *query.V1Query, body map[string]any) (*query.Query, repository.QueryAnswer, error) {
	raw, err := v1.MarshalBody(body)
	if err != nil {
		return nil, repository.QueryAnswer{}, err
	}
	q, err := query.Parse(raw, env)
	if err != nil {
		return nil, repository.QueryAnswer{}, v1Invalid(err)
	}
	answer, err := s.repo.RunQuery(ctx, site.ID, q, site.Zone(s.loc))
	return q, answer, err
}

// v1Invalid is a refused query as a 400 of its sentence.
func v1Invalid(err error) error {
	var invalid *query.Invalid
	if errors.As(err, &invalid) {
		return &apiError{status: http.StatusBadRequest, message: invalid.Message}
	}
	return err
}

// warning is Plausible's note that imported days were asked for and left out.
func (r *v1Run) warning() *string {
	if !r.v1.WithImports || r.answer.FromCounters {
		return nil
	}
	w := "Imported stats are not included in the results because query parameters are not supported. For more information, see: https://plausible.io/docs/stats-api#filtering-imported-stats"
	return &w
}

// PlausibleAggregate answers GET /api/v1/stats/aggregate.
func (s *Server) PlausibleAggregate(ctx context.Context, req gen.PlausibleAggregateRequestObject) (gen.PlausibleAggregateResponseObject, error) {
	p := req.Params
	run, err := s.runV1(ctx, query.V1Aggregate, p.SiteId, query.V1Params{Period: p.Period, Date: p.Date,
		Metrics: p.Metrics, Filters: p.Filters, Compare: p.Compare, WithImported: p.WithImported})
	if err != nil {
		return nil, err
	}
	results := map[string]gen.PlausibleAggregateValue{}
	for i, m := range run.v1.Metrics {
		value := v1Aggregated(run.answer, i, m)
		out := gen.PlausibleAggregateValue{Value: value}
		if run.v1.Compare {
			old := v1Aggregated(run.previous, i, m)
			out.ComparisonValue, out.Change = old, v1Change(m, old, value)
		}
		results[m] = out
	}
	return gen.PlausibleAggregate200JSONResponse{Results: results, Warning: run.warning()}, nil
}

// v1Aggregated is metric i of an aggregate's one row, rounded where Plausible's v1 rounds.
func v1Aggregated(a repository.QueryAnswer, i int, metric string) *float64 {
	if len(a.Rows) == 0 || i >= len(a.Rows[0].Metrics) {
		return nil
	}
	x := a.Rows[0].Metrics[i]
	if metric == "bounce_rate" || metric == "visit_duration" {
		x = math.Round(x)
	}
	return &x
}

// v1Change is Plausible's change: points for the rates, else percent rounded (100 from
// nothing to something); nil where it cannot be said.
func v1Change(metric string, old, now *float64) *float64 {
	if old == nil || now == nil {
		return nil
	}
	var c float64
	switch {
	case metric == "conversion_rate":
		c = math.Round((*now-*old)*10) / 10
	case metric == "bounce_rate":
		if *old <= 0 {
			return nil
		}
		c = *now - *old
	case *old == 0 && *now > 0:
		c = 100
	case *old == 0:
		c = 0
	default:
		c = math.Round((*now - *old) / *old * 100)
	}
	return &c
}

// PlausibleTimeseries answers GET /api/v1/stats/timeseries: every bucket of the period, 0
// where the engine has no row.
func (s *Server) PlausibleTimeseries(ctx context.Context, req gen.PlausibleTimeseriesRequestObject) (gen.PlausibleTimeseriesResponseObject, error) {
	p := req.Params
	run, err := s.runV1(ctx, query.V1Timeseries, p.SiteId, query.V1Params{Period: p.Period, Date: p.Date,
		Metrics: p.Metrics, Filters: p.Filters, Interval: p.Interval, WithImported: p.WithImported})
	if err != nil {
		return nil, err
	}
	byLabel := map[string]repository.QueryRow{}
	for _, row := range run.answer.Rows {
		byLabel[row.Dimensions[0]] = row
	}
	labels := repository.QueryTimeLabels(run.q)
	results := make([]map[string]any, len(labels))
	for i, label := range labels {
		row, found := byLabel[label]
		results[i] = map[string]any{"date": label}
		for j, m := range run.v1.Metrics {
			x := 0.0
			if found {
				x = row.Metrics[j]
			}
			results[i][m] = x
		}
	}
	return gen.PlausibleTimeseries200JSONResponse{Results: results, Warning: run.warning()}, nil
}

// PlausibleBreakdown answers GET /api/v1/stats/breakdown: one row a value of the property.
func (s *Server) PlausibleBreakdown(ctx context.Context, req gen.PlausibleBreakdownRequestObject) (gen.PlausibleBreakdownResponseObject, error) {
	p := req.Params
	run, err := s.runV1(ctx, query.V1Breakdown, p.SiteId, query.V1Params{Period: p.Period, Date: p.Date,
		Metrics: p.Metrics, Filters: p.Filters, Property: &p.Property, Limit: p.Limit, Page: p.Page, WithImported: p.WithImported})
	if err != nil {
		return nil, err
	}
	results := make([]map[string]any, len(run.answer.Rows))
	for i, row := range run.answer.Rows {
		results[i] = map[string]any{run.v1.Key: row.Dimensions[0]}
		for j, m := range run.v1.Metrics {
			x := row.Metrics[j]
			if m == "bounce_rate" || m == "visit_duration" {
				x = math.Round(x)
			}
			results[i][m] = x
		}
	}
	return gen.PlausibleBreakdown200JSONResponse{Results: results, Warning: run.warning()}, nil
}
