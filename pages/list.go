package pages

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// listPage is the data of list.html.
type listPage struct {
	Domain    string
	Stat      statistic
	Range     stats.Range
	Params    stats.ListQuery // as checked
	Rows      []topRow
	Total     int64
	From, To  int64 // positions of the first and last row shown, 0 when none
	Pages     []pageLink
	Prev      string
	Next      string
	SortLinks map[string]string // "value", "count" -> the address sorting by it
	Filters   stats.Filters     // for the search form, which keeps them
	FilterBar *filterbar.Bar    // the active filters' chips; nil without filters
	Notices   []string          // what filtered numbers rest on
	Dashboard string
	ExportURL string
	PerPages  []int
}

type pageLink struct {
	Number  int
	URL     string
	Current bool
}

func (p *Pages) list(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	stat, known := statisticNamed(r.PathValue("name"))
	if !known {
		p.notFound(w, r)
		return
	}
	q := r.URL.Query()
	rng, errs := parseRange(q, p.today(site), p.last24(site))
	// The parameters of the API's list, read and checked as the API reads them.
	params := stats.ParseListQuery(string(stat.Name), rng, q, errs)
	v := viewOf(r, site)
	// The list's filters are read with its other parameters; the view's locked ones are
	// added to them as parseFilters adds them.
	params.Filters = v.locked(params.Filters, errs)
	filters := params.Filters
	// A dashboard's comparison comes along (its full list links keep it) and goes back to it.
	var cmp stats.Comparison
	if len(errs) == 0 && slices.ContainsFunc(stats.CompareParams, q.Has) {
		cmp = parseComparison(q, rng, errs)
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	var (
		entries   []repository.StatEntry
		total     int64
		basis     repository.Basis
		spellings map[string]string // of event names (repository.EventSpellings)
	)
	reader := p.base.Repo.ListReader(site.ID, params)
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		entries, total, err = reader.List(ctx, repository.StatQueryOf(params))
		return err
	})
	if stat.Name == stats.Event {
		g.Go(func() (err error) {
			spellings, err = p.base.Repo.EventSpellings(ctx, site.ID)
			return err
		})
	}
	g.Go(func() (err error) {
		if basis, err = reader.Basis(ctx); err != nil {
			return err
		}
		basis.From, err = p.noticedFrom(ctx, site.ID, rng, basis.From)
		return err
	})
	if err := g.Wait(); err != nil {
		p.serverError(w, r, err)
		return
	}
	dash := v.path
	// A value links to the dashboard filtered by it, keeping the range and the filters: the
	// view of everything else those visits did, which the filter is for. The chips stay here.
	back, home := v.with(filterbar.RangeParams(q)), rng.Query()
	for k, vs := range cmp.Query() {
		back[k], home[k] = vs, vs
	}
	toDashboard := newFilterLinks(dash, back, filters)
	data := listPage{
		Domain: site.Domain, Stat: stat, Range: rng, Params: params, Total: total, Filters: filters,
		Rows: topRows(stat.Name, entries, toDashboard.Add), Dashboard: v.url("", filterbar.With(home, filters)),
		ExportURL: exportURL(v, stat.Name, rng, filters), PerPages: stats.PerPageValues,
		FilterBar: v.bar(p.base.Links.Base(r, web.Page), newFilterLinks(dash+"/"+string(stat.Name), q, filters)),
	}
	if stat.Name == stats.Event {
		for i := range data.Rows {
			data.Rows[i].Label = display.EventLabel(data.Rows[i].Value, spellings)
		}
	}
	if len(filters) > 0 {
		data.Notices = web.FilterNotices(rng, "", basis.From, basis.Fraction)
	}
	data.From, data.To = params.Paging.Shown(total)
	p.pageLinks(&data, r.URL)
	p.render(w, r, http.StatusOK, "list.html", stat.Title+" · "+site.Domain, data)
}

// pageLinks fills the paging and sorting links; each keeps every other parameter.
func (p *Pages) pageLinks(data *listPage, u *url.URL) {
	with := func(changes map[string]string) string {
		q := u.Query()
		for k, v := range changes {
			q.Set(k, v)
		}
		return u.Path + "?" + q.Encode()
	}
	pg := data.Params.Paging
	for n := max(1, pg.Number-3); n <= min(pg.LastPage(data.Total), pg.Number+3); n++ {
		data.Pages = append(data.Pages, pageLink{Number: n, URL: with(map[string]string{"page": strconv.Itoa(n)}), Current: n == pg.Number})
	}
	if n, ok := pg.Prev(data.Total); ok {
		data.Prev = with(map[string]string{"page": strconv.Itoa(n)})
	}
	if n, ok := pg.Next(data.Total); ok {
		data.Next = with(map[string]string{"page": strconv.Itoa(n)})
	}
	data.SortLinks = map[string]string{}
	for _, by := range stats.SortByValues {
		order := "desc"
		if data.Params.SortBy == by && data.Params.Sort == "desc" {
			order = "asc"
		}
		if by == "value" && data.Params.SortBy != "value" {
			order = "asc"
		}
		data.SortLinks[by] = with(map[string]string{"sort_by": by, "sort": order, "page": "1"})
	}
}
