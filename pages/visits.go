package pages

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// The dashboard's numbers of CONTRACT.md section 8: the headline numbers with their changes,
// current visitors, and the notes on what the numbers of the range mean. Read through the
// same repository calls as the API; stats.Totals derives the rates.

// visitsPanel is the data of the "headline" template (_visits.html).
type visitsPanel struct {
	Numbers         []headline
	CurrentVisitors int64
	RealtimeURL     string
	Notices         []string
	Before          string // "the 30 days before"
}

// headline is one headline number.
type headline struct {
	Label  string // what it is
	Counts string // what it counts, in a few words
	Class  string // "visitors" or "pageviews" when the chart draws it, for the colour key
	Now    string // formatted
	Before string
	Change web.Change // in the number's own unit (tenths of a percent for the bounce rate)
	// Inverse: a rise is bad news (bounce rate).
	Inverse bool
}

// Trend is the colour of the change: 1 good, -1 bad, 0 neither.
func (h headline) Trend() int {
	if h.Inverse {
		return -h.Change.Trend()
	}
	return h.Change.Trend()
}

// visitsReads are the reads behind the panel, run beside the dashboard's other reads.
type visitsReads struct {
	now, before        stats.Totals
	current            int64
	notesNow, notesPre repository.RangeNotes
}

// readVisits starts the reads of the panel in g.
func (p *Pages) readVisits(ctx context.Context, g *errgroup.Group, siteID int64, rng stats.Range, out *visitsReads) {
	g.Go(func() (err error) {
		out.now, err = p.repo.Summary(ctx, siteID, rng)
		return err
	})
	g.Go(func() (err error) {
		out.before, err = p.repo.Summary(ctx, siteID, rng.Previous())
		return err
	})
	g.Go(func() (err error) {
		out.current, err = p.repo.CurrentVisitors(ctx, siteID)
		return err
	})
	g.Go(func() (err error) {
		if out.notesNow, err = p.repo.Notes(ctx, siteID, rng); err != nil {
			return err
		}
		out.notesPre, err = p.repo.Notes(ctx, siteID, rng.Previous())
		return err
	})
}

// newVisitsPanel lays out what readVisits read.
// dashboard is the address of the website's dashboard, as links start on this page.
func newVisitsPanel(dashboard string, rng stats.Range, v visitsReads) visitsPanel {
	before := "the day before"
	if rng.Days() > 1 {
		before = fmt.Sprintf("the %d days before", rng.Days())
	}
	now, prev := v.now, v.before
	count := func(label, counts, class string, a, b int64) headline {
		return headline{Label: label, Counts: counts, Class: class, Now: formatCount(a), Before: formatCount(b), Change: web.Change{Now: a, Before: b}}
	}
	return visitsPanel{
		Numbers: []headline{
			count("Unique visitors", "people, counted once a day", "visitors", now.Visitors, prev.Visitors),
			count("Visits", "runs of pageviews with no 30-minute gap", "", now.Visits, prev.Visits),
			count("Pageviews", "pages loaded", "pageviews", now.Pageviews, prev.Pageviews),
			{Label: "Views per visit", Counts: "pageviews ÷ visits",
				Now: decimal(now.ViewsPerVisitHundredths(), 2), Before: decimal(prev.ViewsPerVisitHundredths(), 2),
				Change: web.Change{Now: now.ViewsPerVisitHundredths(), Before: prev.ViewsPerVisitHundredths()}},
			{Label: "Bounce rate", Counts: "visits of one pageview, no event", Inverse: true,
				Now: decimal(now.BounceRateTenths(), 1) + "%", Before: decimal(prev.BounceRateTenths(), 1) + "%",
				Change: web.Change{Now: now.BounceRateTenths(), Before: prev.BounceRateTenths()}},
			{Label: "Visit duration", Counts: "mean, first to last hit",
				Now: duration(now.VisitDuration()), Before: duration(prev.VisitDuration()),
				Change: web.Change{Now: now.VisitDuration(), Before: prev.VisitDuration()}},
			count("Events", "event hits (not pageviews)", "", now.Events, prev.Events),
		},
		CurrentVisitors: v.current,
		RealtimeURL:     dashboard + "/realtime",
		Before:          before,
		Notices: web.VisitNotices("this range", before,
			web.RangeFacts{Range: rng, VisitsFrom: v.notesNow.VisitsFrom, ImportedDays: v.notesNow.ImportedDays, Sources: v.notesNow.Sources},
			web.RangeFacts{Range: rng.Previous(), VisitsFrom: v.notesPre.VisitsFrom, ImportedDays: v.notesPre.ImportedDays, Sources: v.notesPre.Sources}),
	}
}

// decimal writes n hundredths (places 2) or tenths (places 1) with its decimals, trailing
// zeros dropped: 286 -> "2.86", 410 -> "41", 414 -> "41.4". In integers: no float can print
// 1.9899999999999998.
func decimal(n int64, places int) string {
	unit := int64(1)
	for range places {
		unit *= 10
	}
	whole, frac := n/unit, n%unit
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	digits := fmt.Sprintf("%0*d", places, frac)
	return strconv.FormatInt(whole, 10) + "." + strings.TrimRight(digits, "0")
}

// duration writes seconds as "1 min 13 s", "45 s", "2 h 5 min".
func duration(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%d min", s/60)
		}
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
}
