package pages

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/analytics-service/analytics/stats"
)

// The dashboard's Funnel panel: one of the website's funnels (chosen by ?funnel=ID, the first
// by name otherwise) as bars, one a step, with the drop-off between them. Every number is the
// API's (GET /api/v1/stats/{id}/funnels/{funnel_id}): the same read, the same rates.

const funnelParam = "funnel"

// parseFunnelParam is the funnel asked for: 0 when none is.
func parseFunnelParam(q url.Values, errs stats.FieldErrors) int64 {
	s := q.Get(funnelParam)
	if s == "" {
		return 0
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 || len(q[funnelParam]) > 1 {
		errs.Add(funnelParam, "must be the id of one of the website's funnels")
		return 0
	}
	return id
}

// funnelReads are the website's funnels and the numbers of the one shown.
type funnelReads struct {
	funnels []stats.Funnel
	shown   int // index in funnels
	numbers stats.FunnelNumbers
	from    time.Time // the first day counted, when after the range's
}

// readFunnel reads the funnels and the numbers of the one asked for (or the first: a funnel
// removed since the address was made shows the first); nothing when there is none.
func (p *Pages) readFunnel(ctx context.Context, siteID int64, rng stats.Range, filters stats.Filters, asked int64) (funnelReads, error) {
	funnels, err := p.base.Repo.Funnels(ctx, siteID)
	if err != nil || len(funnels) == 0 {
		return funnelReads{}, err
	}
	out := funnelReads{funnels: funnels}
	for i, f := range funnels {
		if f.ID == asked {
			out.shown = i
		}
	}
	if out.numbers, out.from, err = p.base.Repo.FunnelNumbers(ctx, siteID, rng, filters, funnels[out.shown]); err != nil {
		return out, err
	}
	out.from, err = p.noticedFrom(ctx, siteID, rng, out.from)
	return out, err
}

// noticedFrom is from, the first day some numbers of days count from (visit details,
// ordered hits), when a day of days before it holds counts; else zero: a note that numbers
// start on from would speak of days without any (a website added on from, or later).
func (p *Pages) noticedFrom(ctx context.Context, siteID int64, days stats.Range, from time.Time) (time.Time, error) {
	if from.IsZero() {
		return from, nil
	}
	counted, err := p.base.Repo.CountedBefore(ctx, siteID, days, from)
	if err != nil || !counted {
		return time.Time{}, err
	}
	return from, nil
}

// funnelPanel is the data of the panel.
type funnelPanel struct {
	Choices       []funnelChoice
	Name          string
	Steps         []funnelBar
	Entering      int64
	NeverEntering int64
	From          string // the first day counted, written out, when after the range's first
}

type funnelChoice struct {
	Name    string
	URL     string
	Current bool
}

// funnelBar is a step's bar and the drop-off from the step before.
type funnelBar struct {
	Goal        string
	Visitors    int64
	Width       string // the bar's length: the conversion rate, 0..100
	Rate        string // conversion rate from step 1
	StepRate    string // from the step before
	Dropoff     int64
	DropoffRate string
	First       bool
}

// newFunnelPanel lays the reads out; link is the dashboard's address with its parameters
// (range, filters, tab), to which each choice sets funnel. nil without funnels.
func newFunnelPanel(reads funnelReads, link url.Values, path string) *funnelPanel {
	if len(reads.funnels) == 0 {
		return nil
	}
	shown := reads.funnels[reads.shown]
	panel := &funnelPanel{Name: shown.Name, Entering: reads.numbers.Entering(), NeverEntering: reads.numbers.NeverEntering()}
	for i, f := range reads.funnels {
		q := url.Values{}
		for k, v := range link {
			q[k] = v
		}
		q.Set(funnelParam, strconv.FormatInt(f.ID, 10))
		panel.Choices = append(panel.Choices, funnelChoice{Name: f.Name, URL: path + "?" + q.Encode() + "#funnel", Current: i == reads.shown})
	}
	for i, s := range reads.numbers.StepNumbers() {
		panel.Steps = append(panel.Steps, funnelBar{Goal: shown.Steps[i].DisplayName, Visitors: s.Visitors,
			Width: num(s.ConversionRate), Rate: rateText(s.ConversionRate), StepRate: rateText(s.ConversionRateStep),
			Dropoff: s.Dropoff, DropoffRate: rateText(s.DropoffRate), First: i == 0})
	}
	if !reads.from.IsZero() {
		panel.From = reads.from.Format("2 January 2006")
	}
	return panel
}
