package pages

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// export answers the CSV of one statistic: every value of the range with its exact count, RFC
// 4180. pageview and visitor, whose values are days (YYYY-MM-DD), are a time series and come
// by date ascending; every other statistic in the API's default order (count descending, value
// ascending). Filters (filter[NAME]=VALUE, as on the pages) narrow the counts to the matching
// visits.
func (p *Pages) export(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	rng, errs := parseRange(q, p.today())
	filters := parseFilters(q, errs)
	name := q.Get("name")
	stat, known := statisticNamed(name)
	switch {
	case len(q["name"]) > 1:
		errs.Add("name", "must be sent once")
	case name == "":
		errs.Add("name", "is required")
	case !known:
		errs.Add("name", "must be one of the statistics (page, referrer, campaign, ...)")
	}
	if len(errs) > 0 {
		p.badParams(w, r, site.Domain, errs)
		return
	}
	query := repository.StatQuery{Name: stat.Name, SortBy: "count", Desc: true}
	if stat.Name == stats.Pageview || stat.Name == stats.Visitor {
		query.SortBy, query.Desc = "value", false // YYYY-MM-DD sorts as the dates do
	}
	entries, _, err := p.repo.Reader(site.ID, rng, filters).List(r.Context(), query)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	filename := site.Domain + "-" + string(stat.Name) + "-" + rng.From.Format("2006-01-02") + "-" + rng.To.Format("2006-01-02")
	if len(filters) > 0 {
		filename += "-filtered" // the file holds only the matching visits' numbers
	}
	filename += ".csv"
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "no-store") // as every page: see render
	out := bufio.NewWriterSize(w, 32<<10)
	out.WriteString("value,count\r\n")
	for _, e := range entries {
		out.WriteString(csvField(spreadsheetSafe(e.Value)))
		out.WriteByte(',')
		out.WriteString(strconv.FormatInt(e.Count, 10))
		out.WriteString("\r\n")
	}
	if err := out.Flush(); err != nil {
		p.log.Warn("export: write", "error", err) // the client went away
	}
}

// csvField quotes a field as RFC 4180 says: in double quotes, with its quotes doubled, when it
// holds a comma, a quote or a line break (or starts or ends with a space, which some readers
// trim). Unlike encoding/csv with CRLF line endings, a line break inside a value is written
// as it is stored, so the file holds every value exactly.
func csvField(v string) string {
	if v == "" || !(strings.ContainsAny(v, ",\"\r\n") || v[0] == ' ' || v[len(v)-1] == ' ') {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// spreadsheetSafe defuses formula injection (OWASP "CSV injection"): a stranger's page path or
// event name starting with =, +, -, @, tab or carriage return, after any leading spaces (which
// spreadsheets skip), would run as a formula when the file is opened in a spreadsheet, so such
// a value is written after a single quote, which spreadsheets show as text. Every other value
// is written exactly as stored.
func spreadsheetSafe(v string) string {
	if rest := strings.TrimLeft(v, " "); rest != "" && strings.ContainsRune("=+-@\t\r", rune(rest[0])) {
		return "'" + v
	}
	return v
}
