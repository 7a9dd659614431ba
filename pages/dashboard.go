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
	Totals  []total
	Charts  []chart    // the same chart, wide and compact
	Table   []chartRow // its numbers
	Top     []topList
}

type presetLink struct {
	Label   string
	URL     string
	Current bool
}

// total is one headline number with its change against the previous range.
type total struct {
	Label  string
	Class  string // "visitors" or "pageviews", for the colour key
	Change web.Change
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

// dashboardData reads everything a dashboard shows in six statements run at once: the top
// pages in one and the eleven other top lists in another (pages are about half of a website's
// rows: two statements of about equal size use both cores of a small server), the events
// grouped by name, the two daily series in one (the range's totals are their sums), the
// previous range's totals, and the first day with data (for "all time").
func (p *Pages) dashboardData(r *http.Request, site repository.Website, rng stats.Range, today time.Time) (dashboardPage, error) {
	var (
		topPages, top, series map[stats.Name]repository.StatList
		events                []repository.EventGroup
		previous              map[stats.Name]int64
		first                 = today
		topNames              []stats.Name
	)
	var others []stats.Name
	for _, stat := range statistics {
		if stat.Name != stats.Pageview && stat.Name != stats.Visitor {
			topNames = append(topNames, stat.Name)
			if stat.Name != stats.Page {
				others = append(others, stat.Name)
			}
		}
	}
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		topPages, err = p.repo.TopStats(ctx, site.ID, []stats.Name{stats.Page}, rng, topSize)
		return err
	})
	g.Go(func() (err error) {
		top, err = p.repo.TopStats(ctx, site.ID, others, rng, topSize)
		return err
	})
	g.Go(func() (err error) {
		events, _, err = p.repo.TopEvents(ctx, site.ID, rng, topSize, eventValuesShown)
		return err
	})
	g.Go(func() (err error) {
		series, err = p.repo.TopStats(ctx, site.ID, []stats.Name{stats.Pageview, stats.Visitor}, rng, 0)
		return err
	})
	g.Go(func() (err error) {
		previous, err = p.repo.SumStats(ctx, site.ID, []stats.Name{stats.Visitor, stats.Pageview}, rng.Previous())
		return err
	})
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
	pageviews, visitors := byValue(series[stats.Pageview]), byValue(series[stats.Visitor])
	data.Totals = []total{
		{Label: "Visitors", Class: "visitors", Change: web.Change{Now: sum(visitors), Before: previous[stats.Visitor]}},
		{Label: "Pageviews", Class: "pageviews", Change: web.Change{Now: sum(pageviews), Before: previous[stats.Pageview]}},
	}
	points := chartPoints(rng, pageviews, visitors)
	data.Table = chartTable(points)
	for _, shape := range chartShapes {
		data.Charts = append(data.Charts, newChart(shape, rng, points))
	}
	for _, pr := range presets(today, first, rng) {
		data.Presets = append(data.Presets, presetLink{Label: pr.Label, URL: base + "?" + pr.Range.Query().Encode(), Current: pr.Current})
	}
	return data, nil
}

// byValue is a time series (values are days) as counts by day.
func byValue(l repository.StatList) map[string]int64 {
	out := make(map[string]int64, len(l.Entries))
	for _, e := range l.Entries {
		out[e.Value] = e.Count
	}
	return out
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
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
