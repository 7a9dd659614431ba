package pages

import (
	"net/http"
	"strconv"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// export answers the CSV of one statistic: every value of the range with its exact count,
// written by web.CSV (RFC 4180, defused and quoted for spreadsheets). pageview and visitor,
// whose values are days (YYYY-MM-DD), are a time series and come by date ascending; every
// other statistic in the API's default order (count descending, value ascending). Filters (filter[NAME]=VALUE, as on the pages) narrow the counts to the matching
// visits. The page statistic's file has two more columns, time_on_page (seconds) and
// scroll_depth (percent) as the API's page list gives them, empty where no engagement came;
// the event statistic's has name, value and unit in columns of their own.
func (p *Pages) export(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	rng, errs := parseRange(q, p.today(site), p.last24(site))
	filters := viewOf(r, site).parseFilters(q, errs)
	name := q.Get("name")
	stat, known := statisticNamed(name)
	if name == goalsExport && len(q["name"]) == 1 && len(errs) == 0 {
		p.exportGoals(w, r, site, rng, filters)
		return
	}
	if name == propertiesExport && len(q["name"]) == 1 && len(errs) == 0 {
		p.exportProperties(w, r, site, rng, filters)
		return
	}
	switch {
	case len(q["name"]) > 1:
		errs.Add("name", "must be sent once")
	case name == "":
		errs.Add("name", "is required")
	case !known:
		errs.Add("name", "must be one of the statistics (page, referrer, campaign, ...), goals or properties")
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	query := repository.StatQuery{Name: stat.Name, SortBy: "count", Desc: true}
	if stat.Name == stats.Pageview || stat.Name == stats.Visitor {
		query.SortBy, query.Desc = "value", false // YYYY-MM-DD sorts as the dates do
	}
	reader := p.base.Repo.Reader(site.ID, rng, filters)
	entries, _, err := reader.List(r.Context(), query)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	var engaged map[string]repository.PageEngagement
	var spellings map[string]string
	if stat.Name == stats.Event {
		if spellings, err = p.base.Repo.EventSpellings(r.Context(), site.ID); err != nil {
			p.serverError(w, r, err)
			return
		}
	}
	if stat.Name == stats.Page {
		if engaged, err = reader.Engagement(r.Context(), pageValues(entries)); err != nil {
			p.serverError(w, r, err)
			return
		}
	}
	out := startCSV(w, site, string(stat.Name), rng, filters)
	if stat.Name == stats.Page {
		out.Row("value", "count", "time_on_page", "scroll_depth")
		for _, e := range entries {
			g := engaged[e.Value]
			out.Row(e.Value, strconv.FormatInt(e.Count, 10), optionalInt(g.TimeOnPage), optionalInt(g.ScrollDepth))
		}
	} else if stat.Name == stats.Event {
		// The name as sent where known, its value and unit apart; the API keeps the
		// statistic's name:value:unit.
		out.Row("name", "value", "unit", "count")
		for _, e := range entries {
			ev := stats.SplitEvent(e.Value)
			out.Row(stats.EventNameSpelled(ev.Name, spellings), ev.Value, ev.Unit, strconv.FormatInt(e.Count, 10))
		}
	} else {
		out.Row("value", "count")
		for _, e := range entries {
			out.Row(e.Value, strconv.FormatInt(e.Count, 10))
		}
	}
	if err := out.Flush(); err != nil {
		p.base.Log.Warn("export: write", "error", err) // the client went away
	}
}

// startCSV answers a CSV download of what (a statistic, goals, properties) over the range:
// DOMAIN-WHAT-FROM-TO.csv, "-filtered" before the extension when the file holds only the
// matching visits' numbers; not stored (as every page: see render).
func startCSV(w http.ResponseWriter, site repository.Website, what string, rng stats.Range, filters stats.Filters) *web.CSV {
	filename := site.Domain + "-" + what + "-" + rng.From.Format("2006-01-02") + "-" + rng.To.Format("2006-01-02")
	if len(filters) > 0 {
		filename += "-filtered"
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename+`.csv"`)
	h.Set("Cache-Control", "no-store")
	return web.NewCSV(w)
}

// optionalInt is a number of the CSV, "" for none.
func optionalInt(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}
