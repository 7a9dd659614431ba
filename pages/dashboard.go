package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
)

// topSize is how many values each top list of the dashboard shows.
const topSize = 10

// dashboardPage is the data of dashboard.html.
type dashboardPage struct {
	Domain  string
	Owner   bool
	Range   dateRange
	Presets []presetLink
	Totals  []total
	Charts  []chart // the same chart, wide and compact
	Top     []topList
}

type presetLink struct {
	Label   string
	URL     string
	Current bool
}

// total is one headline number with its change against the previous range.
type total struct {
	Label    string
	Class    string // "visitors" or "pageviews", for the colour key
	Count    int64
	Previous int64
}

// Change is the change against the previous range, as shown: "+12%", "−3%", "new" or "±0%".
func (t total) Change() string {
	switch {
	case t.Previous == 0 && t.Count == 0:
		return "±0%"
	case t.Previous == 0:
		return "new"
	}
	pct := float64(t.Count-t.Previous) / float64(t.Previous) * 100
	switch rounded := int64(pct + 0.5*sign(pct)); {
	case rounded > 0:
		return "+" + formatCount(rounded) + "%"
	case rounded < 0:
		return "−" + formatCount(-rounded) + "%"
	default:
		return "±0%"
	}
}

// Trend is "up", "down" or "flat", for the colour of the change.
func (t total) Trend() string {
	switch {
	case t.Count > t.Previous:
		return "up"
	case t.Count < t.Previous:
		return "down"
	}
	return "flat"
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// topList is one statistic's top values.
type topList struct {
	Stat      statistic
	Rows      []topRow
	Distinct  int64
	ListURL   string
	ExportURL string
}

type topRow struct {
	Label string
	Value string // as stored, for the title attribute
	Count int64
	Share float64 // of the list's largest count, 0..100, for the bar
}

func (p *Pages) dashboard(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	today := p.today()
	rng, errs := parseRange(r.URL.Query(), today)
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	data, err := p.dashboardData(r, site, rng, today)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	p.render(w, r, http.StatusOK, "dashboard.html", site.Domain, data)
}

// dashboardData reads everything a dashboard shows. The queries are independent, so they run
// at once (each on its own connection): the page takes about as long as its slowest list.
func (p *Pages) dashboardData(r *http.Request, site repository.Website, rng dateRange, today time.Time) (dashboardPage, error) {
	ctx := r.Context()
	base := statsPath(site.Domain)
	data := dashboardPage{Domain: site.Domain, Range: rng, Owner: isOwner(r, site)}
	var (
		mu                      sync.Mutex
		current, previous       map[string]int64
		pageviewDays, visitDays map[string]int64
		first                   = today
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	g.Go(func() (err error) {
		current, err = p.repo.SumStats(gctx, site.ID, []string{"visitor", "pageview"}, rng.From, rng.To)
		return err
	})
	g.Go(func() (err error) {
		prev := rng.Previous()
		previous, err = p.repo.SumStats(gctx, site.ID, []string{"visitor", "pageview"}, prev.From, prev.To)
		return err
	})
	g.Go(func() (err error) {
		pageviewDays, err = p.series(gctx, site.ID, "pageview", rng)
		return err
	})
	g.Go(func() (err error) {
		visitDays, err = p.series(gctx, site.ID, "visitor", rng)
		return err
	})
	g.Go(func() error {
		day, err := p.repo.FirstStatDay(gctx, site.ID)
		if errors.Is(err, repository.ErrNotFound) {
			return nil
		}
		first = day
		return err
	})
	lists := make([]topList, 0, len(statistics))
	for _, stat := range statistics {
		if stat.Name == "pageview" || stat.Name == "visitor" {
			continue
		}
		lists = append(lists, topList{Stat: stat})
	}
	for i := range lists {
		g.Go(func() error {
			entries, distinct, err := p.repo.ListStats(gctx, site.ID, repository.StatQuery{
				Name: lists[i].Stat.Name, From: rng.From, To: rng.To, SortBy: "count", Desc: true, Limit: topSize,
			})
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			lists[i].Rows, lists[i].Distinct = topRows(lists[i].Stat.Name, entries), distinct
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return dashboardPage{}, err
	}
	rangeQuery := rng.Query()
	for i := range lists {
		lists[i].ListURL = base + "/" + lists[i].Stat.Name + "?" + rangeQuery.Encode()
		lists[i].ExportURL = exportURL(site.Domain, lists[i].Stat.Name, rng)
	}
	data.Top = lists
	data.Totals = []total{
		{Label: "Visitors", Class: "visitors", Count: current["visitor"], Previous: previous["visitor"]},
		{Label: "Pageviews", Class: "pageviews", Count: current["pageview"], Previous: previous["pageview"]},
	}
	points := chartPoints(rng, pageviewDays, visitDays)
	for _, shape := range chartShapes {
		data.Charts = append(data.Charts, newChart(shape, rng, points))
	}
	for _, pr := range presets(today, first, rng) {
		data.Presets = append(data.Presets, presetLink{Label: pr.Label, URL: base + "?" + pr.Range.Query().Encode(), Current: pr.Current})
	}
	return data, nil
}

// series is a time-series statistic (pageview or visitor) of a range, by day.
func (p *Pages) series(ctx context.Context, websiteID int64, name string, rng dateRange) (map[string]int64, error) {
	entries, _, err := p.repo.ListStats(ctx, websiteID, repository.StatQuery{
		Name: name, From: rng.From, To: rng.To, SortBy: "value", Limit: rng.Days(),
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(entries))
	for _, e := range entries {
		out[e.Value] = e.Count
	}
	return out, nil
}

func topRows(name string, entries []repository.StatEntry) []topRow {
	rows := make([]topRow, len(entries))
	var largest int64 = 1
	for _, e := range entries {
		largest = max(largest, e.Count)
	}
	for i, e := range entries {
		rows[i] = topRow{Label: displayValue(name, e.Value), Value: e.Value, Count: e.Count,
			Share: float64(e.Count) / float64(largest) * 100}
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

func exportURL(domain, name string, rng dateRange) string {
	q := rng.Query()
	q.Set("name", name)
	return statsPath(domain) + "/export?" + q.Encode()
}

// badParams answers parameters a stats page cannot use, naming each.
func (p *Pages) badParams(w http.ResponseWriter, r *http.Request, domain string, errs fieldErrs) {
	p.fail(w, r, http.StatusUnprocessableEntity, "Invalid address",
		"This page of "+domain+" cannot be shown with these parameters:", errs.lines()...)
}
