package handlers

import (
	"context"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The numbers of docs/visits.md: summary, time series and realtime. The repository
// reads them and stats.Totals derives the rates, as for the pages and the reports.

// timeseriesPerPage is the page size of a time series when none is asked: a month of hours
// fits in one page.
const timeseriesPerPage = 1000

// GetSummary answers GET /api/v1/stats/{website_id}/summary.
func (s *Server) GetSummary(ctx context.Context, req gen.GetSummaryRequestObject) (gen.GetSummaryResponseObject, error) {
	days, bad := statsRange(req.Params.From.Time, req.Params.To.Time)
	var cmp stats.Comparison
	if bad == nil {
		cmp, bad = comparisonOf(ctx, days, nil)
	}
	if bad != nil {
		return gen.GetSummary422JSONResponse{InvalidStatsQueryJSONResponse: gen.InvalidStatsQueryJSONResponse(*bad)}, nil
	}
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.GetSummary404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	data, notes, err := s.summary(ctx, req.WebsiteId, days)
	if err != nil {
		return nil, err
	}
	res := gen.GetSummary200JSONResponse{Data: data}
	if notes.filteredFrom != nil {
		res.Meta = &gen.SummaryMeta{FilteredFrom: notes.filteredFrom}
	}
	if cmp.On() {
		// The compared days are read as the range is: same filters, same reads.
		other := cmp.Range(days)
		data, _, err := s.summary(ctx, req.WebsiteId, other)
		if err != nil {
			return nil, err
		}
		res.Comparison = &gen.SummaryComparison{From: openapi_types.Date{Time: other.From},
			To: openapi_types.Date{Time: other.To}, Data: data}
	}
	return res, nil
}

// summary is the numbers of days under the request's filters, with their notes.
func (s *Server) summary(ctx context.Context, websiteID int64, days stats.Range) (gen.Summary, filterNotes, error) {
	reader := s.repo.Reader(websiteID, days, filtersOf(ctx))
	t, err := reader.Totals(ctx)
	if err != nil {
		return gen.Summary{}, filterNotes{}, err
	}
	notes, err := notesOf(ctx, reader)
	if err != nil {
		return gen.Summary{}, filterNotes{}, err
	}
	out := gen.Summary{
		Visitors: t.Visitors, Visits: t.Visits, Pageviews: t.Pageviews, Events: t.Events,
		ViewsPerVisit: t.ViewsPerVisit(), BounceRate: t.BounceRate(), VisitDuration: t.VisitDuration(),
		Sampled: notes.sampled,
	}
	// Under filter[goal] only: against the visitors of the same range and the other filters.
	rate, ok, err := s.repo.SummaryConversionRate(ctx, websiteID, days, filtersOf(ctx), t.Visitors)
	if err != nil {
		return gen.Summary{}, filterNotes{}, err
	}
	if ok {
		out.ConversionRate = &rate
	}
	return out, notes, nil
}

// comparisonOf is the request's comparison of days (docs/visits.md), or the 422 body of its
// parameters; with an interval, one the compared days allow too (a custom range may be
// longer than hours allow).
func comparisonOf(ctx context.Context, days stats.Range, interval *stats.Interval) (stats.Comparison, *gen.Error) {
	cmp, errs := stats.ParseComparison(requestURL(ctx).Query(), days)
	if len(errs) == 0 && cmp.On() && interval != nil {
		if ok, message := interval.Allows(cmp.Range(days)); !ok {
			errs.Add("comparison", "compares with days the interval does not allow: "+message)
		}
	}
	if len(errs) > 0 {
		e := invalidBody(errs)
		return cmp, &e
	}
	return cmp, nil
}

// GetTimeseries answers GET /api/v1/stats/{website_id}/timeseries.
func (s *Server) GetTimeseries(ctx context.Context, req gen.GetTimeseriesRequestObject) (gen.GetTimeseriesResponseObject, error) {
	p := req.Params
	days, bad := statsRange(p.From.Time, p.To.Time)
	interval := stats.Daily
	if p.Interval != nil {
		interval = stats.Interval(*p.Interval)
	}
	if bad == nil {
		if ok, message := interval.Allows(days); !ok {
			e := invalid("interval", message)
			bad = &e
		}
	}
	var cmp stats.Comparison
	if bad == nil {
		cmp, bad = comparisonOf(ctx, days, &interval)
	}
	if bad != nil {
		return gen.GetTimeseries422JSONResponse{InvalidTimeseriesQueryJSONResponse: gen.InvalidTimeseriesQueryJSONResponse(*bad)}, nil
	}
	site, refused, err := s.open(ctx, req.WebsiteId, repository.RoleViewer)
	if refused != nil || err != nil {
		return gen.GetTimeseries404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	if err := s.admitWebsite(ctx, site.ID); err != nil {
		return nil, err
	}
	zone := site.Zone(s.loc) // hours of the website's zone
	buckets, notes, err := s.series(ctx, req.WebsiteId, days, interval, zone)
	if err != nil {
		return nil, err
	}
	var others []repository.Bucket
	var otherNotes filterNotes
	if cmp.On() {
		if others, otherNotes, err = s.series(ctx, req.WebsiteId, cmp.Range(days), interval, zone); err != nil {
			return nil, err
		}
	}
	size := timeseriesPerPage
	pg := paging(p.Page, &size)
	if p.PerPage != nil {
		pg.Size = *p.PerPage
	}
	first := min(pg.Offset(), len(buckets))
	page := buckets[first:min(pg.Offset()+pg.Size, len(buckets))]
	data := make([]gen.TimeseriesEntry, len(page))
	for i, b := range page {
		t := b.Totals
		data[i] = gen.TimeseriesEntry{
			Date: interval.BucketLabel(b.Start), Visitors: t.Visitors, Visits: t.Visits, Pageviews: t.Pageviews,
			BounceRate: t.BounceRate(), VisitDuration: t.VisitDuration(), Sampled: notes.sampled,
		}
		// Bucket by bucket: the first compared with the first, none past the compared days.
		if j := first + i; j < len(others) {
			o := others[j].Totals
			data[i].Comparison = &gen.TimeseriesComparison{
				Date: interval.BucketLabel(others[j].Start), Visitors: o.Visitors, Visits: o.Visits, Pageviews: o.Pageviews,
				BounceRate: o.BounceRate(), VisitDuration: o.VisitDuration(), Sampled: otherNotes.sampled,
			}
		}
	}
	meta, links := envelope(pg, requestURL(ctx), int64(len(buckets)))
	meta.FilteredFrom = notes.filteredFrom
	return gen.GetTimeseries200JSONResponse{Data: data, Meta: meta, Links: links}, nil
}

// series is the buckets of days under the request's filters, with their notes.
func (s *Server) series(ctx context.Context, websiteID int64, days stats.Range, interval stats.Interval, zone stats.Zone) ([]repository.Bucket, filterNotes, error) {
	reader := s.repo.Reader(websiteID, days, filtersOf(ctx))
	buckets, err := reader.Series(ctx, interval, zone)
	if err != nil {
		return nil, filterNotes{}, err
	}
	notes, err := notesOf(ctx, reader)
	return buckets, notes, err
}

// GetRealtime answers GET /api/v1/stats/{website_id}/realtime. An API key is its user's, who
// has a role on the website, so the recent pageviews are always included.
func (s *Server) GetRealtime(ctx context.Context, req gen.GetRealtimeRequestObject) (gen.GetRealtimeResponseObject, error) {
	if found, err := s.readable(ctx, req.WebsiteId); !found || err != nil {
		return gen.GetRealtime404JSONResponse{NotFoundJSONResponse: gen.NotFoundJSONResponse(notFound())}, err
	}
	rt, err := s.repo.Realtime(ctx, req.WebsiteId, true)
	if err != nil {
		return nil, err
	}
	recent := make([]gen.RecentPageview, len(rt.Recent))
	for i, r := range rt.Recent {
		recent[i] = gen.RecentPageview{Page: r.Page, Referrer: r.Referrer, Country: r.Country,
			Browser: r.Browser, Device: r.Device, SecondsAgo: r.SecondsAgo}
	}
	return gen.GetRealtime200JSONResponse{Data: gen.Realtime{Visitors: rt.Visitors, Pageviews: rt.Pageviews, Recent: recent}}, nil
}

// statsRange is the days from..to, or the 422 body when to is before from (the validator has
// checked each date).
func statsRange(from, to time.Time) (stats.Range, *gen.Error) {
	if from.After(to) {
		e := invalid("to", "must be a date after or equal to from")
		return stats.Range{}, &e
	}
	return stats.Range{From: stats.Day(from), To: stats.Day(to)}, nil
}

// readable tells whether the caller may read the website's stats (any role), and lets the
// request in as one of the website's queries in flight (admitWebsite); an error is a failure
// (a 500) or the 429 of a website with as many queries in flight as it may have.
func (s *Server) readable(ctx context.Context, websiteID int64) (bool, error) {
	_, refused, err := s.open(ctx, websiteID, repository.RoleViewer)
	if refused != nil || err != nil {
		return false, err
	}
	return true, s.admitWebsite(ctx, websiteID)
}
