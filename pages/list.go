package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// The full list takes the stats API's parameters with the API's values.
var (
	sortByValues = []string{"count", "value"}
	sortValues   = []string{"desc", "asc"}
)

// listParams are a full list's parameters, checked.
type listParams struct {
	Search string
	SortBy string
	Sort   string
	Paging stats.Paging
}

// listPage is the data of list.html.
type listPage struct {
	Domain    string
	Stat      statistic
	Range     stats.Range
	Params    listParams
	Rows      []topRow
	Total     int64
	From, To  int64 // positions of the first and last row shown, 0 when none
	Pages     []pageLink
	Prev      string
	Next      string
	SortLinks map[string]string // "value", "count" -> the address sorting by it
	Filters   stats.Filters     // for the search form, which keeps them
	FilterBar *filterBar        // the active filters' chips; nil without filters
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
	rng, errs := parseRange(q, p.today())
	params := parseListParams(q, errs)
	filters := parseFilters(q, errs)
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	var (
		entries []repository.StatEntry
		total   int64
		from    time.Time
	)
	g, ctx := errgroup.WithContext(r.Context())
	g.Go(func() (err error) {
		entries, total, err = p.repo.ListStats(ctx, site.ID, repository.StatQuery{
			Name: stat.Name, Range: rng, Search: params.Search,
			SortBy: params.SortBy, Desc: params.Sort == "desc",
			Limit: params.Paging.Size, Offset: params.Paging.Offset(), Filters: filters,
		})
		return err
	})
	if len(filters) > 0 {
		g.Go(func() (err error) {
			from, err = p.repo.FilteredFrom(ctx, site.ID, rng)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		p.serverError(w, r, err)
		return
	}
	dash := statsPath(site.Domain)
	// A value links to the dashboard filtered by it, keeping the range and the filters: the
	// view of everything else those visits did, which the filter is for. The chips stay here.
	toDashboard := newFilterLinks(dash, rangeParams(q), filters)
	data := listPage{
		Domain: site.Domain, Stat: stat, Range: rng, Params: params, Total: total, Filters: filters,
		Rows: topRows(stat.Name, entries, toDashboard.add), Dashboard: dash + "?" + withFilters(rng.Query(), filters).Encode(),
		ExportURL: exportURL(site.Domain, stat.Name, rng, filters), PerPages: stats.PerPageValues,
		FilterBar: newFilterLinks(dash+"/"+string(stat.Name), q, filters).bar(p.links.Base(r, web.Page)),
	}
	if len(filters) > 0 {
		data.Notices = web.FilterNotices(rng, "", from)
	}
	data.From, data.To = params.Paging.Shown(total)
	p.pageLinks(&data, r.URL)
	p.render(w, r, http.StatusOK, "list.html", stat.Title+" · "+site.Domain, data)
}

// parseListParams checks search, search_by, sort_by, sort, per_page and page as the API does.
func parseListParams(q url.Values, errs stats.FieldErrors) listParams {
	out := listParams{SortBy: "count", Sort: "desc", Paging: stats.Paging{Number: 1, Size: stats.DefaultPerPage}}
	one := func(name string) (string, bool) {
		v, ok := q[name]
		if !ok {
			return "", false
		}
		if len(v) > 1 {
			errs.Add(name, "must be sent once")
			return "", false
		}
		return v[0], true
	}
	if v, ok := one("search"); ok {
		// Characters, not bytes: the API's maxLength counts them so.
		switch {
		case !stats.ValidText(v):
			errs.Add("search", stats.TextRule)
		case utf8.RuneCountInString(v) > 255:
			errs.Add("search", "must be at most 255 characters")
		}
		out.Search = v
	}
	if v, ok := one("search_by"); ok && v != "value" {
		errs.Add("search_by", "must be one of value")
	}
	if v, ok := one("sort_by"); ok {
		if !contains(sortByValues, v) {
			errs.Add("sort_by", "must be one of count, value")
		}
		out.SortBy = v
	}
	if v, ok := one("sort"); ok {
		if !contains(sortValues, v) {
			errs.Add("sort", "must be one of desc, asc")
		}
		out.Sort = v
	}
	if v, ok := one("per_page"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || !stats.ValidPerPage(n) {
			errs.Add("per_page", "must be one of 10, 25, 50, 100")
		}
		out.Paging.Size = n
	}
	if v, ok := one("page"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || !stats.ValidPage(n) {
			errs.Add("page", "must be a whole number from 1")
		}
		out.Paging.Number = n
	}
	return out
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
	for _, by := range sortByValues {
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

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
