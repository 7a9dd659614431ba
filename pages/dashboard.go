package pages

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// topSize is how many values each top list of the dashboard shows.
const topSize = 10

// dashboardPage is the data of dashboard.html.
type dashboardPage struct {
	Domain  string
	Owner   bool
	Range   stats.Range
	Presets []presetLink
	Visits  visitsPanel
	Charts  []chart    // the same chart, wide and compact
	Table   []chartRow // its numbers
	Top     []topList
}

type presetLink struct {
	Label   string
	URL     string
	Current bool
}

// topList is one statistic's top values.
type topList struct {
	Stat      statistic
	Rows      []topRow
	Groups    []eventGroup // events, grouped by name
	Distinct  int64
	ListURL   string
	ExportURL string
}

type topRow struct {
	Label string
	Value string // as stored, for the title attribute
	Count int64
	Share string // of the list's largest count, 0..100, for the bar
}

func (p *Pages) dashboard(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	today := p.today()
	rng, errs := parseRange(r.URL.Query(), today)
	if len(errs) == 0 {
		checkComparable(rng, errs)
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	// Nothing counted yet: how to start, instead of empty tables.
	waiting, err := p.waiting(r, site)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	if waiting {
		p.renderGuide(w, r, http.StatusOK, site, nil)
		return
	}
	data, err := p.dashboardData(r, site, rng, today)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.render(w, r, http.StatusOK, "dashboard.html", site.Domain, data)
}

// dashboardData reads everything a dashboard shows in statements run at once: the top pages
// in one and the eleven other top lists in another (pages are about half of a website's rows:
// two statements of about equal size use both cores of a small server), the events grouped by
// name, the chart's time series, the summaries of the range and of the one before, current
// visitors, the notes on the ranges, and the first day with data (for "all time").
func (p *Pages) dashboardData(r *http.Request, site repository.Website, rng stats.Range, today time.Time) (dashboardPage, error) {
	var (
		topPages, top map[stats.Name]repository.StatList
		events        []repository.EventGroup
		series        []repository.Bucket
		visits        visitsReads
		first         = today
		topNames      []stats.Name
	)
	var others []stats.Name
	for _, stat := range statistics {
		if !chartStat(stat.Name) {
			topNames = append(topNames, stat.Name)
			if stat.Name != stats.Page {
				others = append(others, stat.Name)
			}
		}
	}
	interval := chartInterval(rng)
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		topPages, err = p.repo.TopStats(ctx, site.ID, []stats.Name{stats.Page}, rng, topSize, nil)
		return err
	})
	g.Go(func() (err error) {
		top, err = p.repo.TopStats(ctx, site.ID, others, rng, topSize, nil)
		return err
	})
	g.Go(func() (err error) {
		events, _, err = p.repo.TopEvents(ctx, site.ID, rng, topSize, eventValuesShown, nil)
		return err
	})
	g.Go(func() (err error) {
		series, err = p.repo.Timeseries(ctx, site.ID, rng, interval, p.loc, nil)
		return err
	})
	p.readVisits(ctx, g, site.ID, rng, &visits)
	g.Go(func() error {
		day, err := p.repo.FirstStatDay(ctx, site.ID)
		if errors.Is(err, repository.ErrNotFound) {
			return nil
		}
		first = day
		return err
	})
	if err := g.Wait(); err != nil {
		return dashboardPage{}, err
	}
	top[stats.Page] = topPages[stats.Page]

	base := statsPath(site.Domain)
	data := dashboardPage{Domain: site.Domain, Range: rng, Owner: isOwner(r, site)}
	for _, name := range topNames {
		stat, _ := statisticNamed(string(name))
		data.Top = append(data.Top, topList{
			Stat: stat, Rows: topRows(name, top[name].Entries), Distinct: top[name].Distinct,
			ListURL: base + "/" + string(name) + "?" + rng.Query().Encode(), ExportURL: exportURL(site.Domain, name, rng),
		})
		if name == stats.Event {
			data.Top[len(data.Top)-1].Groups = eventGroups(events)
		}
	}
	data.Visits = newVisitsPanel(p.links.Base(r, web.Page)+statsPath(site.Domain), rng, visits)
	points := chartPoints(interval, series, p.loc)
	data.Table = chartTable(points)
	for _, shape := range chartShapes {
		data.Charts = append(data.Charts, newChart(shape, rng, interval, points))
	}
	for _, pr := range presets(today, first, rng) {
		data.Presets = append(data.Presets, presetLink{Label: pr.Label, URL: base + "?" + pr.Range.Query().Encode(), Current: pr.Current})
	}
	return data, nil
}

// chartStat tells whether a statistic is one of the daily series the chart and the headline
// numbers show (pageview, visitor, visit): it has no top list of its own on the dashboard.
func chartStat(n stats.Name) bool {
	return n == stats.Pageview || n == stats.Visitor || n == stats.Visit
}

func topRows(name stats.Name, entries []repository.StatEntry) []topRow {
	rows := make([]topRow, len(entries))
	var largest int64 = 1
	for _, e := range entries {
		largest = max(largest, e.Count)
	}
	for i, e := range entries {
		rows[i] = topRow{Label: displayValue(name, e.Value), Value: e.Value, Count: e.Count,
			Share: num(float64(e.Count) / float64(largest) * 100)}
	}
	return rows
}

func isOwner(r *http.Request, site repository.Website) bool {
	u := viewerOf(r)
	return u != nil && u.ID == site.UserID
}

// statsPath is the address of a website's dashboard.
func statsPath(domain string) string {
	return "/stats/" + url.PathEscape(domain)
}

func exportURL(domain string, name stats.Name, rng stats.Range) string {
	q := rng.Query()
	q.Set("name", string(name))
	return statsPath(domain) + "/export?" + q.Encode()
}

// badParams answers parameters a stats page cannot use, naming each.
func (p *Pages) badParams(w http.ResponseWriter, r *http.Request, domain string, errs stats.FieldErrors) {
	p.render(w, r, http.StatusUnprocessableEntity, "error.html", "Invalid address", errorPage{
		Status: http.StatusUnprocessableEntity, Heading: "Invalid address",
		Message: "This page of " + domain + " cannot be shown with these parameters:", Details: errorLines(errs),
		Back: "/stats/" + url.PathEscape(domain), BackLabel: "Back to the dashboard of " + domain,
	})
}
