package pages_test

import (
	"encoding/csv"
	"html"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/web/webtest"
)

// Filters on the stats pages (docs/filters.md).

var (
	filterPages     = []string{"/", "/pricing", "/blog", "/docs", "/<script>alert(1)</script>", "=1+1"}
	filterCountries = []string{"DE:Germany", "FR:France", "US:United States", ""}
	filterBrowsers  = []string{"Chrome", "Firefox", "Safari"}
	filterReferrers = []string{"", "www.google.com", "news.ycombinator.com"}
	filterEvents    = []string{"Signup::", "Purchase:5:USD"}
)

// filterVisits writes perDay random visits a day, from..to, to a website's visit_rows (making
// their partitions), marks the website as having visit rows from from and counting visits
// since long before, and adds one counter, so the dashboard shows numbers and not the guide to
// installing the tracker. The tests count what a filtered page must show from the visits.
// bigView adds 15 M pageviews to the website's counters of day: the views that hold it (with
// under 5 M pageviews of other days) are sampled at 50 %.
func (e *env) bigView(id int64, day string) {
	e.T.Helper()
	repotest.CountPageviews(e.T, repository.New(e.DB, nil), id, mustDay(day), 3*stats.MaxExactPageviews/2)
}

// sampledNote is the note of a view sampled at 50 %.
const sampledNote = "Estimated from 50 % of visitors (views of more than 10 million pageviews are sampled)."

func (e *env) filterVisits(id int64, from, to string, perDay int) []repotest.Visit {
	e.T.Helper()
	rng := rand.New(rand.NewPCG(uint64(id), 17))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	var out []repotest.Visit
	for d := mustDay(from); !d.After(mustDay(to)); d = d.AddDate(0, 0, 1) {
		for range perDay {
			// The day number repeats within a day, so visitors < visits.
			v := repotest.Visit{Day: d, Visitor: rng.Int32N(int32(perDay * 2 / 3)), Hour: rng.IntN(24), Values: map[stats.Name]string{
				stats.Referrer: pick(filterReferrers), stats.Browser: pick(filterBrowsers), stats.Country: pick(filterCountries),
				stats.Continent: "EU:Europe",
			}}
			for range 1 + rng.IntN(4) {
				v.Pages = append(v.Pages, pick(filterPages))
			}
			if rng.IntN(4) == 0 {
				v.Events = append(v.Events, pick(filterEvents))
			}
			if !v.Bounce() {
				v.Seconds = 1 + rng.IntN(600)
			}
			v.Values[stats.LandingPage], v.Values[stats.ExitPage] = v.Pages[0], v.Pages[len(v.Pages)-1]
			out = append(out, v)
		}
	}
	repotest.WriteVisitRows(e.T, e.DB, id, out)
	e.exec(`UPDATE websites SET filters_from = $1, visits_from = '2025-01-01' WHERE id = $2`, from, id)
	e.Count(id, from, "pageview", map[string]int64{from: 1})
	// A day counted before them, so that the notes on the first day with visit rows speak of
	// days that had numbers (a website added on that day has none, and no note).
	before := mustDay(from).AddDate(0, 0, -1).Format(time.DateOnly)
	e.Count(id, before, "pageview", map[string]int64{before: 1})
	return out
}

// filterCase is a query of filters (filter[...]=... for the URL, written plainly) and the
// filters it gives, whose matching visits repotest counts, apart from the repository's SQL.
type filterCase struct {
	query   string
	filters stats.Filters
}

// newFilterCase reads the filters of a query written plainly.
func newFilterCase(query string) filterCase {
	q, err := url.ParseQuery(query)
	if err != nil {
		panic(err)
	}
	c := filterCase{query: query}
	for key, values := range q {
		name := strings.TrimSuffix(strings.TrimPrefix(key, "filter["), "]")
		c.filters = c.filters.With(stats.Name(name), values[0])
	}
	return c
}

// matching are the visits of days from..to that match c.
func (c filterCase) matching(visits []repotest.Visit, from, to string) []repotest.Visit {
	return repotest.Filtered(visits, mustDay(from), mustDay(to), c.filters)
}

// sums are the headline numbers of the matching visits.
func (c filterCase) sums(matching []repotest.Visit) sums {
	t := repotest.ExpectTotal(matching, c.filters)
	return sums{t.Visitors, t.Visits, t.Pageviews, t.Events, t.Bounces, t.VisitSeconds, t.TimedVisits}
}

// counts are the values of one statistic over the matching visits: each pageview's page (the
// page filter's alone, with one), each visit's browser or referrer.
func (c filterCase) counts(matching []repotest.Visit, name string) map[string]int64 {
	return repotest.ExpectList(matching, stats.Name(name), c.filters)
}

var (
	topRowRE   = regexp.MustCompile(`<td class="value" title="([^"]*)">.*?</td>\s*<td class="num">([^<]*)</td>`)
	topListRE  = regexp.MustCompile(`(?s)<section class="card top[^"]*"[^>]* data-stat="([a-z_]+)">(.*?)</section>`)
	eventRowRE = regexp.MustCompile(`<th scope="row" class="value" title="([^"]*)">.*?</th>\s*<td class="num">([^<]*)</td>`)
	chartRowRE = regexp.MustCompile(`<tr><td>[^<]*</td><td class="num">([^<]*)</td></tr>`)
)

// shownCounts are the values and counts of a table of values on a page (a top list's section,
// or a full list), as the title and number cells hold them.
func shownCounts(t *testing.T, body string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, m := range topRowRE.FindAllStringSubmatch(body, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(html.UnescapeString(m[2]), "\u202f", ""), 10, 64)
		if err != nil {
			t.Fatalf("count %q: %v", m[2], err)
		}
		out[html.UnescapeString(m[1])] = n
	}
	return out
}

// shownGroups are the event names and totals of the dashboard's events.
func shownGroups(t *testing.T, body string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, m := range eventRowRE.FindAllStringSubmatch(body, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(html.UnescapeString(m[2]), "\u202f", ""), 10, 64)
		if err != nil {
			t.Fatalf("count %q: %v", m[2], err)
		}
		out[html.UnescapeString(m[1])] = n
	}
	return out
}

// topLists are the dashboard's top lists by statistic name.
func topLists(body string) map[string]string {
	out := map[string]string{}
	for _, m := range topListRE.FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// top10 is the part of counts a dashboard's top list shows: the ten largest, ties by value.
func top10(counts map[string]int64) map[string]int64 {
	values := make([]string, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	slices.SortFunc(values, func(a, b string) int {
		if counts[a] != counts[b] {
			return int(counts[b] - counts[a])
		}
		return strings.Compare(a, b)
	})
	out := map[string]int64{}
	for _, v := range values[:min(10, len(values))] {
		out[v] = counts[v]
	}
	return out
}

// filteredSite is the public website example.com with perDay visits a day, 1..20 March 2026,
// in its visit rows (filterVisits), and a stranger's browser on its pages.
func filteredSite(t *testing.T, perDay int) ([]repotest.Visit, *browser) {
	t.Helper()
	e := newEnv(t)
	id := e.Site(e.User("owner@example.com").Key, "example.com")
	return e.filterVisits(id, "2026-03-01", "2026-03-20", perDay), e.browser()
}

var filterCases = []filterCase{
	newFilterCase("filter[country]=DE:Germany"),
	// Countries compare their code: a name from another GeoIP release matches the same visits.
	newFilterCase("filter[country]=DE:Deutschland"),
	newFilterCase("filter[country]=FR:France&filter[browser]=Firefox"),
	newFilterCase("filter[page]=/pricing"),
	newFilterCase("filter[referrer]="),
	newFilterCase("filter[event]=Signup::"),
	newFilterCase("filter[browser]=(other)"),
	newFilterCase("filter[browser]=Netscape"),
}

// The filtered dashboard's headline numbers, those of the 7 days before, its chart, its top
// lists of pages, browsers and referrers and its events, against counts made here from the
// visits written.
func TestFilteredNumbersOnTheDashboard(t *testing.T) {
	visits, b := filteredSite(t, 40)
	for _, c := range filterCases {
		path := "/stats/example.com?from=2026-03-14&to=2026-03-20&" + encodeQuery(c.query)
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		now := c.matching(visits, "2026-03-14", "2026-03-20")
		var got, before []string
		for _, m := range numberRE.FindAllStringSubmatch(p.body, -1) {
			got = append(got, html.UnescapeString(m[1]))
		}
		for _, m := range beforeRE.FindAllStringSubmatch(p.body, -1) {
			before = append(before, html.UnescapeString(m[1]))
		}
		if want := c.sums(now).shown(); strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: numbers\n got %q\nwant %q", c.query, got, want)
		}
		if want := c.sums(c.matching(visits, "2026-03-07", "2026-03-13")).shown(); strings.Join(before, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: the 7 days before\n got %q\nwant %q", c.query, before, want)
		}
		lists := topLists(p.body)
		for _, name := range []string{"page", "browser", "referrer"} {
			if got, want := shownCounts(t, lists[name]), top10(c.counts(now, name)); !maps.Equal(got, want) {
				t.Errorf("%s: top %s %v, want %v", c.query, name, got, want)
			}
		}
		// The graph's table: each day's visitors, and pageviews under graph_metric=pageviews.
		var days, wantDays []string
		pageviews := b.get(path + "&graph_metric=pageviews")
		wantStatus(t, path, pageviews, http.StatusOK)
		pv, vi := chartRowRE.FindAllStringSubmatch(pageviews.body, -1), chartRowRE.FindAllStringSubmatch(p.body, -1)
		for i := range min(len(pv), len(vi)) {
			days = append(days, html.UnescapeString(pv[i][1]+" "+vi[i][1]))
		}
		for d := mustDay("2026-03-14"); !d.After(mustDay("2026-03-20")); d = d.AddDate(0, 0, 1) {
			day := d.Format(time.DateOnly)
			s := c.sums(c.matching(visits, day, day))
			wantDays = append(wantDays, web.GroupDigits(s.pageviews, "\u202f")+" "+web.GroupDigits(s.visitors, "\u202f"))
		}
		if !slices.Equal(days, wantDays) {
			t.Errorf("%s: the chart's pageviews and visitors by day %q, want %q", c.query, days, wantDays)
		}
		// The events, grouped by name.
		groups := map[string]int64{}
		for event, n := range c.counts(now, "event") {
			name, _, _ := strings.Cut(event, ":")
			groups[name] += n
		}
		if got := shownGroups(t, lists["event"]); !maps.Equal(got, groups) {
			t.Errorf("%s: events %v, want %v", c.query, got, groups)
		}
		if strings.Contains(p.body, "With filters, numbers start") || strings.Contains(p.body, "Estimated from") {
			t.Errorf("%s: a note on filtered numbers that all are there, exactly", c.query)
		}
		// Current visitors are every visitor's: filters do not narrow them, and the page says so.
		if !strings.Contains(p.body, "in the last 5 minutes (all of them: filters do not apply)") {
			t.Errorf("%s: current visitors do not say they are not filtered", c.query)
		}
	}
	p := b.get("/stats/example.com?from=2026-03-14&to=2026-03-20")
	wantStatus(t, "unfiltered", p, http.StatusOK)
	if !strings.Contains(p.body, "in the last 5 minutes") || strings.Contains(p.body, "filters do not apply") {
		t.Errorf("unfiltered: current visitors say they are not filtered, or are not there")
	}
}

// A full list and the CSV export with filters, against counts made here; the notes say from
// which day filtered numbers count and that a view of more than 10 M pageviews is sampled.
func TestFilteredNumbersOnListsAndExport(t *testing.T) {
	e := newEnv(t)
	id := e.Site(e.User("owner@example.com").Key, "example.com")
	visits, b := e.filterVisits(id, "2026-03-01", "2026-03-20", 40), e.browser()
	e.bigView(id, "2026-04-05")
	for _, c := range filterCases {
		want := c.counts(c.matching(visits, "2026-03-14", "2026-03-20"), "page")
		path := "/stats/example.com/page?from=2026-03-14&to=2026-03-20&per_page=100&" + encodeQuery(c.query)
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		if got := shownCounts(t, p.body); !maps.Equal(got, want) {
			t.Errorf("%s: the full list %v, want %v", c.query, got, want)
		}
		export := b.get("/stats/example.com/export?name=page&from=2026-03-14&to=2026-03-20&" + encodeQuery(c.query))
		wantStatus(t, "export "+c.query, export, http.StatusOK)
		records, err := csv.NewReader(strings.NewReader(export.body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, r := range records[1:] {
			n, _ := strconv.ParseInt(r[1], 10, 64)
			got[strings.TrimPrefix(r[0], "'")] = n
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: the CSV %v, want %v", c.query, got, want)
		}
		if !strings.Contains(export.header.Get("Content-Disposition"), "-filtered.csv") {
			t.Errorf("%s: the file's name %q does not say it is filtered", c.query, export.header.Get("Content-Disposition"))
		}
	}
	// A range that starts before the visit rows: the page says from which day filtered
	// numbers count (and so does the dashboard); past 10 M pageviews, that they are sampled.
	for _, path := range []string{"/stats/example.com/page?from=2026-02-20&to=2026-03-20&filter[country]=DE:Germany",
		"/stats/example.com?from=2026-02-20&to=2026-03-20&filter[country]=DE:Germany"} {
		p := b.get(encodePath(path))
		wantStatus(t, path, p, http.StatusOK)
		if !strings.Contains(p.body, "With filters, numbers start on 1 Mar 2026: earlier days have no visit details.") {
			t.Errorf("%s: no note on the first day of filtered numbers:\n%s", path, p.body)
		}
	}
	p := b.get(encodePath("/stats/example.com?from=2026-03-01&to=2026-04-10&filter[country]=DE:Germany"))
	wantStatus(t, "41 days", p, http.StatusOK)
	if !strings.Contains(p.body, sampledNote) {
		t.Errorf("20 M pageviews: no note on sampling:\n%s", p.body)
	}
	// A small website's long range is exact, and says nothing of a sample.
	p = b.get(encodePath("/stats/example.com?from=2025-03-21&to=2026-03-20&filter[country]=DE:Germany"))
	wantStatus(t, "a small website's year", p, http.StatusOK)
	if strings.Contains(p.body, "Estimated from") {
		t.Errorf("a small website's year: a note on sampling:\n%s", p.body)
	}
}

// The links of a real filtered dashboard and full list keep the filters, the chips are there,
// a value adds its filter, and the owner of a private website sees its filtered pages.
func TestFilteredNumbersLinksAndOwner(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "private.example", "privacy", "1")
	e.filterVisits(id, "2026-03-01", "2026-03-20", 20)
	b := e.browser().signIn(owner)
	for _, path := range []string{"/stats/private.example?filter[country]=DE:Germany&filter[browser]=Firefox",
		"/stats/private.example/page?filter[country]=DE:Germany&filter[browser]=Firefox&sort_by=value"} {
		p := b.get(encodePath(path))
		wantStatus(t, path, p, http.StatusOK)
		if !strings.Contains(p.body, "Country is <strong") || !strings.Contains(p.body, "Browser is <strong") || !strings.Contains(p.body, ">Clear filters</a>") {
			t.Fatalf("%s: no chips:\n%s", path, p.body)
		}
		var values, switches int
		byFilters := map[int]int{} // links by how many of the two filters they keep
		for _, link := range pageLinks(t, p.body) {
			u, err := url.Parse(link)
			if err != nil || !strings.HasPrefix(u.Path, "/stats/private.example") || u.Path == "/stats/private.example/realtime" {
				continue
			}
			q := u.Query()
			if q.Has("filter_not[country]") || q.Has("filter_contains[country]") || q.Has("filter_not[browser]") || q.Has("filter_contains[browser]") {
				switches++ // a chip's operator switch: the other filter kept as it is
				continue
			}
			kept := 0
			for k, v := range map[string]string{"filter[country]": "DE:Germany", "filter[browser]": "Firefox"} {
				if q.Has(k) && q.Get(k) != v {
					t.Errorf("%s: link %s changes %s", path, link, k)
				}
				if q.Has(k) {
					kept++
				}
			}
			byFilters[kept]++
			if kept == 2 && q.Get("filter[page]") != "" {
				values++
			}
		}
		// "Clear filters" keeps none, each chip's remove link one; every other link both.
		if byFilters[0] != 1 || byFilters[1] != 2 || byFilters[2] < 5 || values == 0 || switches != 4 {
			t.Errorf("%s: links by the filters they keep %v; %d values adding a page filter; %d operator switches", path, byFilters, values, switches)
		}
	}
	if p := e.browser().get(encodePath("/stats/private.example?filter[country]=DE:Germany")); p.status != http.StatusNotFound {
		t.Errorf("a stranger on a filtered private dashboard: %d", p.status)
	}
}

// A stranger's markup as a filter value is inert in the chip, the links, the notes, the full
// list and the CSV.
func TestFilteredNumbersMarkupIsInert(t *testing.T) {
	_, b := filteredSite(t, 20)
	const script = "/<script>alert(1)</script>"
	q := "from=2026-02-20&to=2026-03-20&filter%5Bpage%5D=" + url.QueryEscape(script)
	for _, path := range []string{"/stats/example.com?" + q, "/stats/example.com/page?" + q, "/stats/example.com/referrer?" + q} {
		p := b.get(path)
		wantStatus(t, path, p, http.StatusOK)
		if strings.Contains(p.body, "<script>alert") {
			t.Fatalf("%s: the filter is on the page unescaped", path)
		}
		if !strings.Contains(p.body, "Page is <strong title=\"/&lt;script&gt;alert(1)&lt;/script&gt;\">/&lt;script&gt;alert(1)&lt;/script&gt;</strong>") {
			t.Errorf("%s: the chip does not show the value as text:\n%s", path, p.body)
		}
		for _, link := range pageLinks(t, p.body) {
			if strings.ContainsAny(link, "<>\"") {
				t.Errorf("%s: link %q holds markup", path, link)
			}
		}
	}
	export := b.get("/stats/example.com/export?name=page&" + q)
	wantStatus(t, "export", export, http.StatusOK)
	if ct := export.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" || !strings.HasPrefix(export.header.Get("Content-Disposition"), "attachment;") {
		t.Errorf("the filtered export is not an inert download: %v", export.header)
	}
	// A filtered CSV guards formulas as the unfiltered one does.
	export = b.get("/stats/example.com/export?name=page&from=2026-03-01&to=2026-03-20&filter%5Bcountry%5D=DE%3AGermany")
	wantStatus(t, "export", export, http.StatusOK)
	if !strings.Contains(export.body, "\r\n'=1+1,") || strings.Contains(export.body, "\n=1+1") {
		t.Errorf("the filtered CSV does not defuse the formula =1+1:\n%s", export.body)
	}
}

// A filter the pages cannot use is a 422 naming it, on the dashboard, a full list and the
// export alike, as the API's is; it never reaches a read.
func TestBadFiltersOnThePages(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	e.Count(id, "2026-03-20", "page", map[string]int64{"/": 1})
	b := e.browser()
	for _, c := range []struct{ query, says string }{
		{"filter%5Bnope%5D=x", "filter filter[nope]: unknown name"},
		{"filter%5Bpageview%5D=2026-03-20", "filter filter[pageview]: unknown name"},
		{"filter=x", "filter must be given as filter[NAME]=VALUE"},
		{"filter%5Bpage%5D%5Ba%5D=x", "filter must be given as filter[NAME]=VALUE"},
		{"filter%5Bpage%5D=a&filter%5Bpage%5D=b", "filter filter[page] is given 2 times"},
		{"filter%5Bpage%5D=" + strings.Repeat("a", 256), "filter filter[page]: is 256 characters long; at most 255"},
		{"filter%5Bpage%5D=a%00b", "filter filter[page]: must be UTF-8 text without NUL"},
		{"filter%5Bpage%5D=%FF", "filter filter[page]: must be UTF-8 text without NUL"},
		{"filter%5B%3Cscript%3E%5D=x", "filter filter[&lt;script&gt;]: unknown name"},
	} {
		for _, path := range []string{"/stats/example.com?", "/stats/example.com/page?", "/stats/example.com/export?name=page&"} {
			p := b.get(path + c.query)
			wantStatus(t, path+c.query, p, http.StatusUnprocessableEntity)
			if !strings.Contains(p.body, c.says) || strings.Contains(p.body, "<script>") {
				t.Errorf("%s: the page does not say %q:\n%s", path+c.query, c.says, p.body)
			}
		}
	}
	// Bad filters and a bad range: both named.
	p := b.get("/stats/example.com?from=2026-13-01&filter%5Bnope%5D=x")
	wantStatus(t, "bad range and filter", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.body, "from must be a date") || !strings.Contains(p.body, "filter filter[nope]") {
		t.Errorf("not both named:\n%s", p.body)
	}
	// A 255-character value is a filter (matching nothing here), not a refusal.
	p = b.get("/stats/example.com?filter%5Bpage%5D=" + url.QueryEscape(strings.Repeat("é", 255)))
	wantStatus(t, "a 255-character value", p, http.StatusOK)
}

// Filters change nothing of who may see a website: a private website's filtered pages are the
// unknown domain's 404 to a stranger, a password website's show the password form, which
// posts back to the filtered address, and a right password leads back to it.
func TestFiltersKeepTheAccessRules(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "private.example", "privacy", "1")
	e.Site(owner.Key, "locked.example", "privacy", "2", "password", "letmein")
	const filters = "filter%5Bcountry%5D=DE%3AGermany&filter%5Bpage%5D=%2F%3Cb%3E"
	b := e.browser()
	unknown := b.get("/stats/no-such-site.example?" + filters)
	for _, path := range []string{"/stats/private.example?", "/stats/private.example/page?", "/stats/private.example/export?name=page&"} {
		p := b.get(path + filters)
		if p.status != http.StatusNotFound || p.body != unknown.body {
			t.Errorf("%s: %d, not the unknown domain's 404", path, p.status)
		}
	}
	for _, path := range []string{"/stats/locked.example?", "/stats/locked.example/page?", "/stats/locked.example/export?name=page&"} {
		p := b.get(path + filters)
		wantStatus(t, path, p, http.StatusUnauthorized)
		if !strings.Contains(p.body, `action="`+html.EscapeString(path+filters)+`"`) || strings.Contains(p.body, "<b>") {
			t.Errorf("%s: the password form does not post back to the filtered address:\n%s", path, p.body)
		}
	}
	// A wrong password: the form again, still posting to the filtered address.
	wrong := b.post("/stats/locked.example?"+filters, url.Values{"password": {"nope"}})
	wantStatus(t, "a wrong password", wrong, http.StatusUnauthorized)
	if !strings.Contains(wrong.body, `action="/stats/locked.example?`+html.EscapeString(filters)+`"`) {
		t.Errorf("after a wrong password the form lost the filters:\n%s", wrong.body)
	}
	right := b.post("/stats/locked.example/page?"+filters, url.Values{"password": {"letmein"}})
	wantStatus(t, "the right password", right, http.StatusSeeOther)
	if loc := right.header.Get("Location"); loc != "/stats/locked.example/page?"+filters {
		t.Errorf("the right password leads to %q, not back to the filtered list", loc)
	}
}

// encodeQuery percent-encodes the values of a query written plainly ("filter[page]=/a b").
func encodeQuery(q string) string {
	v, err := url.ParseQuery(q)
	if err != nil {
		panic(err)
	}
	return v.Encode()
}

// encodePath is a path with its query percent-encoded.
func encodePath(p string) string {
	path, q, _ := strings.Cut(p, "?")
	return path + "?" + encodeQuery(q)
}

// In Chromium, as a person would: click a country on the dashboard, see its chip and the
// lists narrowed to it, add a browser, open a full list, remove a chip, clear the filters; at
// a desktop and a phone width, with no console error, nothing wider than the screen and no
// serious axe-core violation (screenshots in SCREENSHOT_DIR).
func TestFilteredNumbersInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	e.seedMonth(id)
	visits := e.filterVisits(id, "2026-03-01", "2026-03-20", 40)
	e.bigView(id, "2026-02-05")

	ctx := webtest.NewBrowser(t)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	webtest.WatchProblems(t, ctx)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	eval := func(js string, out any) { t.Helper(); tabEval(t, ctx, js, out) }
	audit := func(name string, width int64) { t.Helper(); auditPage(t, ctx, check.axe, check.shots, name, width) }
	at := func() url.Values {
		t.Helper()
		var href string
		eval(`location.href`, &href)
		u, err := url.Parse(href)
		if err != nil {
			t.Fatal(err)
		}
		return u.Query()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited in vain for %s", what)
			}
		}
	}
	chips := func() []string {
		t.Helper()
		var out []string
		eval(`[...document.querySelectorAll(".chip-text")].map(c => c.textContent)`, &out)
		return out
	}

	for _, width := range []int64{1280, 375} {
		do(viewportOf(width), chromedp.Navigate(e.Server.URL+"/stats/example.com?from=2026-03-14&to=2026-03-20"), chromedp.WaitReady(chromedp.CSS("main")))
		do(chromedp.Click(chromedp.CSS(`section[data-stat=country] td[title="DE:Germany"] a`)),
			chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
		if q := at(); q.Get("filter[country]") != "DE:Germany" || q.Get("from") != "2026-03-14" {
			t.Fatalf("after clicking Germany the address is %v", q)
		}
		if got := chips(); !slices.Equal(got, []string{"Country is Germany"}) {
			t.Errorf("chips %q", got)
		}
		var countries []string
		eval(`[...document.querySelectorAll("section[data-stat=country] td.value")].map(td => td.title)`, &countries)
		if !slices.Equal(countries, []string{"DE:Germany"}) {
			t.Errorf("the filtered countries are %q", countries)
		}
		var body string
		eval(`document.querySelector("main").innerHTML`, &body)
		de := filterCases[0]
		if got, want := shownCounts(t, topLists(body)["page"]), top10(de.counts(de.matching(visits, "2026-03-14", "2026-03-20"), "page")); !maps.Equal(got, want) {
			t.Errorf("the pages of visits from Germany %v, want %v", got, want)
		}
		audit("filtered", width)

		// A second filter: the browser; then the full list of pages keeps both.
		do(chromedp.Click(chromedp.CSS(`section[data-stat=browser] td[title="Firefox"] a`)))
		waitFor("two chips", func() bool { return len(chips()) == 2 })
		audit("filtered-two", width)
		do(chromedp.Click(chromedp.CSS(`section[data-stat=page] .card-links a`)), chromedp.WaitVisible(chromedp.CSS(".toolbar")))
		if q := at(); q.Get("filter[country]") != "DE:Germany" || q.Get("filter[browser]") != "Firefox" {
			t.Errorf("the full list's address %v lost a filter", q)
		}
		audit("filtered-list", width)

		// Back on the dashboard, remove the country's chip, then clear the rest.
		do(chromedp.Click(chromedp.CSS(`main > p.small a`)), chromedp.WaitVisible(chromedp.CSS(".filter-bar")))
		do(chromedp.Click(chromedp.CSS(`.chip:last-child .chip-remove`)))
		waitFor("one chip", func() bool { return len(chips()) == 1 })
		if q := at(); q.Has("filter[country]") || q.Get("filter[browser]") != "Firefox" {
			t.Errorf("after removing the country the address is %v", q)
		}
		do(chromedp.Click(chromedp.CSS(`.clear-filters`)))
		waitFor("no chip", func() bool { return len(chips()) == 0 })
		if got := chips(); len(got) != 0 || len(at()) != 2 {
			t.Errorf("after clearing: chips %q, address %v", got, at())
		}
	}
	// The notes: a range starting before the visit rows, and one long enough to be sampled;
	// the chips of a stranger's markup and of a long value (which must wrap on a phone); on the
	// dashboard and on a full list, which shows its own notes.
	long := strings.Repeat("a-very-long-referrer.example.", 8)
	query := "?from=2026-02-01&to=2026-03-20&filter%5Bcountry%5D=DE%3AGermany&filter%5Bpage%5D=%2F%3Cscript%3Ealert%281%29%3C%2Fscript%3E&filter%5Breferrer%5D=" + long
	for _, page := range []struct{ path, shot string }{{"", "filtered-notes"}, {"/page", "filtered-list-notes"}} {
		for _, width := range []int64{1280, 375} {
			do(viewportOf(width), chromedp.Navigate(e.Server.URL+"/stats/example.com"+page.path+query), chromedp.WaitReady(chromedp.CSS("main")))
			audit(page.shot, width)
		}
		var notes string
		eval(`document.querySelector(".range-note").innerText`, &notes)
		if !strings.Contains(notes, "numbers start on 1 Mar 2026") || !strings.Contains(notes, sampledNote) {
			t.Errorf("%s: the notes:\n%s", page.shot, notes)
		}
	}
}
