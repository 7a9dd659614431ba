package pages

import (
	"context"
	"math"
	"net/url"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// The dashboard's numbers of docs/visits.md: the headline numbers with their changes,
// current visitors, and the notes on what the numbers of the range mean. Read through the
// same repository calls as the API; stats.Totals derives the rates.

// visitsPanel is the data of the "headline" template (_visits.html).
type visitsPanel struct {
	Numbers         []headline
	CurrentVisitors int64
	// Filtered says the numbers are filtered: current visitors, which filters do not narrow,
	// then say so rather than pass for a filtered count.
	Filtered    bool
	RealtimeURL string
	Notices     []string
	Before      string // "the 30 days before"
	BeforeRange stats.Range
}

// headline is one headline number with what it counts.
type headline struct {
	web.Figure
	Label  string // what it is
	Counts string // what it counts, in a few words
	// Metric is the graph's name of it (graph_metric=); URL, the dashboard graphing it, is
	// set when the graph can draw it (cardLinks), Current when it does.
	Metric  string
	URL     string
	Current bool
}

// visitsReads are the reads behind the panel, run beside the dashboard's other reads.
type visitsReads struct {
	now, before        stats.Totals
	current            int64
	notesNow, notesPre repository.RangeNotes
	// filteredFrom is the first day with visit details of the range before (which starts
	// first), zero when all its days have them (always, without filters).
	filteredFrom time.Time
	// fraction is the fraction of the range's visitors its filtered numbers read.
	fraction float64
	// Under filter[goal]: the conversion rates of the range and of the one before, as the
	// API's summary has them; converts is false without a goal filter.
	rateNow, rateBefore float64
	converts            bool
}

// readVisits starts the reads of the panel in g.
// prev is the days compared with (the comparison's, or the days before).
func (p *Pages) readVisits(ctx context.Context, g *errgroup.Group, siteID int64, rng, prev stats.Range, filters stats.Filters, out *visitsReads) {
	now, before := p.base.Repo.Reader(siteID, rng, filters), p.base.Repo.Reader(siteID, prev, filters)
	g.Go(func() (err error) {
		if out.now, err = now.Totals(ctx); err != nil {
			return err
		}
		out.rateNow, out.converts, err = p.base.Repo.SummaryConversionRate(ctx, siteID, rng, filters, out.now.Visitors)
		return err
	})
	g.Go(func() (err error) {
		if out.before, err = before.Totals(ctx); err != nil {
			return err
		}
		out.rateBefore, _, err = p.base.Repo.SummaryConversionRate(ctx, siteID, prev, filters, out.before.Visitors)
		return err
	})
	g.Go(func() (err error) {
		basis, err := before.Basis(ctx)
		if err != nil {
			return err
		}
		// The fraction of the range's own view, which its notice states.
		nowBasis, err := now.Basis(ctx)
		if err != nil {
			return err
		}
		out.fraction = nowBasis.Fraction
		// The range compared with starts first: the two ranges together are from its first day
		// (a custom one may end after the range).
		out.filteredFrom, err = p.noticedFrom(ctx, siteID, stats.Range{From: prev.From, To: maxTime(rng.To, prev.To)}, basis.From)
		return err
	})
	g.Go(func() (err error) {
		out.current, err = p.base.Repo.CurrentVisitors(ctx, siteID)
		return err
	})
	g.Go(func() (err error) {
		if out.notesNow, err = p.base.Repo.Notes(ctx, siteID, rng); err != nil {
			return err
		}
		out.notesPre, err = p.base.Repo.Notes(ctx, siteID, prev)
		return err
	})
}

// newVisitsPanel lays out what readVisits read.
// base is where the service's addresses begin and view where the stats pages' links lead;
// filtered tells whether the numbers are filtered, which their notes then say first.
func newVisitsPanel(base string, view statsView, rng stats.Range, cmp stats.Comparison, filtered bool, v visitsReads) visitsPanel {
	before, prev := compareLabel(rng, cmp), cmp.Range(rng)
	f := web.NewFigures(v.now, v.before, "\u202f")
	var notices []string
	if filtered {
		notices = web.FilterNotices(rng, before, v.filteredFrom, v.fraction)
	}
	panel := visitsPanel{
		Numbers: []headline{
			{Figure: f.Visitors, Label: "Unique visitors", Counts: "people, counted once a day", Metric: "visitors"},
			{Figure: f.Visits, Label: "Visits", Counts: "runs of pageviews with no 30-minute gap", Metric: "visits"},
			{Figure: f.Pageviews, Label: "Pageviews", Counts: "pages loaded", Metric: "pageviews"},
			{Figure: f.ViewsPerVisit, Label: "Views per visit", Counts: "pageviews ÷ visits", Metric: "views_per_visit"},
			{Figure: f.BounceRate, Label: "Bounce rate", Counts: "visits of one pageview, no event", Metric: "bounce_rate"},
			{Figure: f.VisitDuration, Label: "Visit duration", Counts: "mean, first to last hit", Metric: "visit_duration"},
			{Figure: f.Events, Label: "Events", Counts: "event hits (not pageviews)", Metric: "events"},
		},
		CurrentVisitors: v.current,
		Filtered:        filtered,
		RealtimeURL:     base + view.url("/realtime", url.Values{}),
		Before:          before,
		BeforeRange:     prev,
		Notices: append(notices, web.VisitNotices("this range", before,
			web.RangeFacts{Range: rng, VisitsFrom: v.notesNow.VisitsFrom, CountedBefore: v.notesNow.CountedBefore, ImportedDays: v.notesNow.ImportedDays, Sources: v.notesNow.Sources, Resets: v.notesNow.Resets},
			web.RangeFacts{Range: prev, VisitsFrom: v.notesPre.VisitsFrom, CountedBefore: v.notesPre.CountedBefore, ImportedDays: v.notesPre.ImportedDays, Sources: v.notesPre.Sources, Resets: v.notesPre.Resets})...),
	}
	if v.converts {
		panel.Numbers = append(panel.Numbers, conversionHeadline(v.rateNow, v.rateBefore, v.now.Visitors > 0, v.before.Visitors > 0))
	}
	return panel
}

// conversionHeadline is the number a dashboard filtered by a goal adds: the conversion rate,
// written and changed against the range before as the bounce rate beside it is (tenths of a
// percent: "33.3%", "50%"; the change relative). Without visitors to divide by, "–".
func conversionHeadline(now, before float64, nowDefined, beforeDefined bool) headline {
	tenths := func(rate float64) int64 { return int64(math.Round(rate * 10)) }
	text := func(rate float64, defined bool) string {
		if !defined {
			return "–"
		}
		return web.Decimal(tenths(rate), 1) + "%"
	}
	return headline{
		Figure: web.Figure{Now: text(now, nowDefined), Before: text(before, beforeDefined),
			Change: web.Change{Now: tenths(now), Before: tenths(before), Undefined: !nowDefined || !beforeDefined}},
		Label: "Conversion rate", Counts: "share of the visitors who converted", Metric: "conversion_rate",
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
