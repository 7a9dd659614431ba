package pages

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/pages/filterform"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/pages/period"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// topSize is how many values each top list of the dashboard shows.
const topSize = 10

// comparedTopSize is how many values of each list the compared days are read for: a value
// shown but not among them had at most the last one's count then, which its row says.
const comparedTopSize = 100

// dashboardPage is the data of dashboard.html.
type dashboardPage struct {
	Domain string
	Owner  bool
	// SettingsURL is the website's settings, for those who may change them ("" otherwise):
	// the header's link, and the Goals panel's way to add one.
	SettingsURL string
	Range       stats.Range
	Filters     stats.Filters  // for the custom range form, which keeps them
	FilterBar   *filterbar.Bar // the active filters' chips; nil without filters
	Picker      rangePicker
	Visits      visitsPanel
	Graph       graphPanel
	Comparer    comparer   // the comparison's form
	Boxes       []boxPanel // Sources, Pages, Locations, Devices: a tab each shown
	Top         []topList  // the lists of their own: referrers, languages, events...
	Goals       []goalRow  // the Goals panel; none when the website has no goals
	GoalsCSV    string
	// GoalsRevenue: a goal has a currency, so the Goals panel has a revenue column.
	GoalsRevenue bool
	Properties   *propertiesPanel // nil when the range has no custom property
	Funnel       *funnelPanel     // nil when the website has no funnels
	Dialog       filterDialog
	Pinned       pinnedView // segments and annotations (pinned.go)
}

// periodLink is one entry of the period menu.
type periodLink struct {
	Label   string
	Key     string // its keyboard shortcut, "d" for Today
	URL     string // with the base
	Current bool
}

// rangePicker is the data of the "range_picker" template: the period menu (pages/period)
// with the arrows to the periods before and after, and the custom range form, with the dates
// as sent and their refusals when they cannot be shown.
type rangePicker struct {
	Label      string // what the menu's button says: the period shown, or its dates
	Periods    []periodLink
	Prev, Next string // the arrows' addresses, with the base; "" for none
	From, To   string // YYYY-MM-DD, or as sent
	Filters    stats.Filters
	// Keep are the view's other parameters (comparison, graph, tabs, a shared link's token),
	// kept by the custom range form as hidden inputs; not the interval, which another range
	// may not allow.
	Keep   url.Values
	Errors stats.FieldErrors
}

// newRangePicker is the period menu of a website's dashboard on today, with first its first
// day with data (for "all time"), current the range shown (none: zero); every link keeps the
// rest of the view addr shows, and its interval where the new range allows it.
func newRangePicker(base string, v statsView, addr dashAddress, today, first time.Time, last24, current stats.Range, filters stats.Filters) rangePicker {
	picker := rangePicker{Filters: filters, Label: "Choose a period", Keep: url.Values{}}
	for k, vs := range addr.query {
		if k != "from" && k != "to" && k != "period" && k != graph.IntervalParam && !stats.IsFilterParam(k) {
			picker.Keep[k] = vs
		}
	}
	to := func(r stats.Range) string {
		q := url.Values{"from": {""}, "to": {""}, "period": {""}, graph.IntervalParam: {""}} // dates or period=24h
		for k, vs := range r.Query() {
			q[k] = vs
		}
		if i := stats.Interval(addr.query.Get(graph.IntervalParam)); i != "" && graph.Allows(i, graph.SpanOf(r, today, len(filters) > 0)) {
			q.Set(graph.IntervalParam, string(i))
		}
		return base + addr.with(q)
	}
	menu := period.Menu(today, first, last24)
	if !current.From.IsZero() {
		picker.From, picker.To = current.From.Format(time.DateOnly), current.To.Format(time.DateOnly)
		picker.Label = current.String()
		if p, ok := period.Current(menu, current); ok {
			picker.Label = p.Label
		}
		if r, ok := period.Arrow(menu, current, -1, today); ok {
			picker.Prev = to(r)
		}
		if r, ok := period.Arrow(menu, current, 1, today); ok {
			picker.Next = to(r)
		}
	}
	currentFound := false
	for _, p := range menu {
		link := periodLink{Label: p.Label, Key: p.Key}
		switch {
		case p.Realtime:
			link.URL = base + v.url("/realtime", url.Values{})
		case p.Custom:
			link.URL = "#from"
		default:
			link.URL = to(p.Range)
			link.Current = !currentFound && p.Range == current
			currentFound = currentFound || link.Current
		}
		picker.Periods = append(picker.Periods, link)
	}
	return picker
}

// rangeErrorPage is the data of range_error.html.
type rangeErrorPage struct {
	Domain    string
	Picker    rangePicker
	FilterBar *filterbar.Bar
}

// onlyRangeErrors tells whether every refusal is of from or to: the dashboard then shows its
// picker with them, rather than an error page.
func onlyRangeErrors(errs stats.FieldErrors) bool {
	for field := range errs {
		if field != "from" && field != "to" {
			return false
		}
	}
	return len(errs) > 0
}

// rangeError answers a dashboard whose dates cannot be shown (from after to, a date that is
// not one): 422, with the picker holding the dates as sent, each refusal beside its field,
// the presets and the filters kept.
func (p *Pages) rangeError(w http.ResponseWriter, r *http.Request, site repository.Website, today time.Time, errs stats.FieldErrors) {
	q := r.URL.Query()
	v := viewOf(r, site)
	refused := stats.FieldErrors{}
	filters := v.parseFilters(q, refused)
	if len(refused) > 0 { // refused filters are reported with the range's by badParams
		p.serverError(w, r, fmt.Errorf("range error page: filters refused after the dashboard took them: %v", refused))
		return
	}
	first, err := p.base.Repo.FirstStatDay(r.Context(), site.ID)
	if err != nil && !errors.Is(err, repository.ErrNotFound) {
		p.serverError(w, r, err)
		return
	}
	base := p.base.Links.Base(r, web.Page)
	picker := newRangePicker(base, v, newDashAddress(v.path, q), today, first, p.last24(site), stats.Range{}, filters)
	picker.From, picker.To, picker.Errors = q.Get("from"), q.Get("to"), errs
	links := newFilterLinks(v.path, q, filters)
	p.render(w, r, http.StatusUnprocessableEntity, "range_error.html", site.Domain,
		rangeErrorPage{Domain: site.Domain, Picker: picker, FilterBar: v.bar(base, links)})
}

// topList is one statistic's top values.
type topList struct {
	Stat      statistic
	Rows      []topRow
	Groups    []eventGroup // events, grouped by name
	Distinct  int64
	ListURL   string
	ExportURL string
	Base      string // where addresses begin, for the event groups' template
	Engaged   bool   // the rows have a time on page and scroll depth (top pages)
}

type topRow struct {
	Label string
	Value string // as stored, for the title attribute
	Count int64
	Share string // of the list's largest count, 0..100, for the bar
	// Filter is the address of the dashboard with the value's filter added (to the page's
	// own filters); "" when the value is not a filter (stats.Filterable).
	Filter string
	// Of a top page: its time on page and scroll depth, as shown (engagement.go).
	TimeOnPage, ScrollDepth string
	// Compared is the value's count on the compared days and the change, shown on hover
	// and focus: "was 412, +8%"; "" without a comparison.
	Compared string
}

func (p *Pages) dashboard(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	today := p.today(site)
	q := r.URL.Query()
	if filterform.Sent(q) {
		p.applyFilterDialog(w, r, site)
		return
	}
	last24 := p.last24(site)
	rng, errs := parseRange(q, today, last24)
	var (
		cmp      stats.Comparison
		metric   graph.Metric
		interval stats.Interval
	)
	filters := viewOf(r, site).parseFilters(q, errs)
	span := graph.SpanOf(rng, today, len(filters) > 0)
	if len(errs) == 0 {
		checkComparable(rng, errs)
		cmp = parseComparison(q, rng, errs)
		_, goal := filters.Get(stats.GoalName)
		metric, interval = parseGraph(q, span, goal, errs)
		checkMinuteComparison(interval, rng, cmp, p.zone(site).OfDay(cmp.Range(rng).From), p.base.Now(), errs)
	}
	edit := filterform.ParseOpen(q, filters, errs)
	tabs := parseTabs(q, errs)
	propKey := parsePropertyKey(q, errs)
	funnel := parseFunnelParam(q, errs)
	if onlyRangeErrors(errs) {
		p.rangeError(w, r, site, today, errs)
		return
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
	zone := p.zone(site)
	graphed := seriesOf{metric: metric, interval: interval}
	if interval == graph.Minute {
		graphed.minutes = minutesSoFar(today, zone.OfDay(today), p.base.Now())
	}
	reads, err := p.readDashboard(r.Context(), site.ID, zone, rng, cmp, graphed, filters, today, tabs, propKey, funnel)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	base, v := p.base.Links.Base(r, web.Page), viewOf(r, site)
	addr := newDashAddress(v.path, q)
	data := newDashboardPage(base, site, v, rng, today, newFilterLinks(v.path, q, filters), reads, zone.OfDay(rng.To),
		dashChoices{tabs: tabs, addr: addr, metric: metric, interval: interval, edit: edit, last24: last24})
	data.Owner = hasRole(site)
	if repository.Role(site.Role).Can(repository.RoleEditor) && v.shared == nil {
		data.SettingsURL = fmt.Sprintf("%s/websites/%d/edit", base, site.ID)
	}
	data.Funnel = newFunnelPanel(reads.funnel, q, base+v.path)
	if err := p.dashboardExtras(r, site, v, rng, interval, filters, reads.series, &data); err != nil {
		p.serverError(w, r, err)
		return
	}
	p.render(w, r, http.StatusOK, "dashboard.html", site.Domain, data)
}

// dashChoices are what a dashboard's address chooses beyond its range and filters: the
// boxes' tabs (in the order of tabBoxes), the graph's metric and interval, and the address itself for the links
// that change one of them.
type dashChoices struct {
	tabs     []stats.Name
	edit     int // the filter the Filter dialog is open on, -1 for none
	addr     dashAddress
	metric   graph.Metric
	interval stats.Interval
	last24   stats.Range // the menu's Last 24 hours
}

// dashboardReads are what a dashboard shows, as read.
type dashboardReads struct {
	top    map[stats.Name]repository.StatList
	events []repository.EventGroup
	// spellings are the names as sent of encoded event names (repository.EventSpellings).
	spellings map[string]string
	series    []repository.Bucket
	// cmp is the comparison asked for; compared the time series of its days (none when off).
	cmp      stats.Comparison
	compared []repository.Bucket
	// rateBase and comparedBase: the series a conversion rate divides by (graphSeries).
	rateBase, comparedBase []repository.Bucket
	// comparedTop is the compared days' top lists, of up to comparedTopSize values each.
	comparedTop map[stats.Name]repository.StatList
	visits      visitsReads
	first       time.Time // the first day with data, for "all time"
	// engaged is the time on page and scroll depth of the top pages.
	engaged map[string]repository.PageEngagement
	goals   goalReads
	props   propertyReads
	funnel  funnelReads
}

// readDashboard reads everything a dashboard shows in statements run at once: the top pages
// in one and the eleven other top lists in another (pages are about half of a website's rows:
// two statements of about equal size use both cores of a small server), the events grouped by
// name, the chart's time series, the summaries of the range and of the one before, current
// visitors, the notes on the ranges (with filters, the first day with visit details), and the
// first day with data (for "all time"), the goals and the funnel shown. Of each box (tabBoxes),
// only the tab shown is read: the Pages box's in a statement of its own (pages are about half
// of a website's rows), with the time on page of the top pages.
// Filters narrow every number but current visitors (docs/filters.md).
func (p *Pages) readDashboard(ctx context.Context, siteID int64, zone stats.Zone, rng stats.Range, cmp stats.Comparison, graphed seriesOf, filters stats.Filters, today time.Time, tabs []stats.Name, propKey string, funnel int64) (dashboardReads, error) {
	var (
		out      = dashboardReads{first: today, cmp: cmp}
		topPages map[stats.Name]repository.StatList
		pagesTab = tabs[1] // top, entry or exit pages
		others   = append(append([]stats.Name{tabs[0]}, tabs[2:]...), topNames()...)
	)
	reader := p.base.Repo.Reader(siteID, rng, filters)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		if topPages, err = reader.Top(ctx, []stats.Name{pagesTab}, topSize); err != nil || pagesTab != stats.Page {
			return err
		}
		out.engaged, err = reader.Engagement(ctx, pageValues(topPages[stats.Page].Entries))
		return err
	})
	g.Go(func() (err error) {
		out.top, err = reader.Top(ctx, others, topSize)
		return err
	})
	g.Go(func() (err error) {
		if out.events, _, err = reader.Events(ctx, topSize, eventValuesShown); err != nil {
			return err
		}
		out.spellings, err = p.base.Repo.EventSpellings(ctx, siteID)
		return err
	})
	p.graphSeries(ctx, g, siteID, zone, rng, graphed, filters, &out.series, &out.rateBase)
	if cmp.On() {
		// The compared days in buckets of the same size, for the chart's dashed lines.
		compared := p.base.Repo.Reader(siteID, cmp.Range(rng), filters)
		p.graphSeries(ctx, g, siteID, zone, cmp.Range(rng), graphed, filters, &out.compared, &out.comparedBase)
		// The lists' rows show their value's count on the compared days: one statement for
		// every list, deeper than the lists so that most values shown are found.
		g.Go(func() (err error) {
			out.comparedTop, err = compared.Top(ctx, append([]stats.Name{pagesTab}, others...), comparedTopSize)
			return err
		})
	}
	p.readVisits(ctx, g, siteID, rng, cmp.Range(rng), filters, &out.visits)
	g.Go(func() (err error) {
		out.goals, err = p.readGoals(ctx, siteID, rng, filters)
		return err
	})
	g.Go(func() (err error) {
		out.props, err = p.readProperties(ctx, siteID, rng, filters, propKey)
		return err
	})
	g.Go(func() (err error) {
		out.funnel, err = p.readFunnel(ctx, siteID, rng, filters, funnel)
		return err
	})
	g.Go(func() error {
		day, err := p.base.Repo.FirstStatDay(ctx, siteID)
		if errors.Is(err, repository.ErrNotFound) {
			return nil
		}
		out.first = day
		return err
	})
	if err := g.Wait(); err != nil {
		return dashboardReads{}, err
	}
	out.top[pagesTab] = topPages[pagesTab]
	return out, nil
}

// topNames are the statistics with a top list of their own on the dashboard, in its order:
// not the graph's, not a box's tab.
func topNames() []stats.Name {
	var out []stats.Name
	for _, stat := range statistics {
		if !chartStat(stat.Name) && !inTabBox(stat.Name) && stat.Name != stats.UTMCampaign {
			out = append(out, stat.Name)
		}
	}
	return out
}

// newDashboardPage lays out what readDashboard read. base is where the service's addresses
// begin (PUBLIC_URL); v is where the stats pages' links lead; links are the dashboard's own
// address with its filters. Every link it makes keeps the filters, but the realtime view's,
// which filters do not narrow.
func newDashboardPage(base string, site repository.Website, v statsView, rng stats.Range, today time.Time, links filterbar.Links, reads dashboardReads, loc *time.Location, c dashChoices) dashboardPage {
	addr, metric, interval := c.addr, c.metric, c.interval
	dash := v.path
	filters := links.Filters
	data := dashboardPage{Domain: site.Domain, Range: rng, Filters: filters, FilterBar: v.bar(base, links)}
	// A full list keeps the range, the filters and the comparison (whose parameters lead back).
	listQuery := v.with(filterbar.With(rng.Query(), filters))
	for k, vs := range reads.cmp.Query() {
		listQuery[k] = vs
	}
	rangeQuery := listQuery.Encode()
	top := func(name stats.Name) topList {
		stat, _ := statisticNamed(string(name))
		list := reads.top[name]
		rows := topRows(name, list.Entries, links.Add)
		if reads.cmp.On() {
			compareRows(rows, reads.comparedTop[name])
		}
		return topList{
			Stat: stat, Rows: rows, Distinct: list.Distinct, Base: base,
			ListURL: dash + "/" + string(name) + "?" + rangeQuery, ExportURL: exportURL(v, name, rng, filters),
		}
	}
	for _, name := range topNames() {
		data.Top = append(data.Top, top(name))
		if name == stats.Event {
			data.Top[len(data.Top)-1].Groups = eventGroups(reads.events, reads.spellings, links.Add)
		}
	}
	for i, box := range tabBoxes {
		list := top(c.tabs[i])
		if c.tabs[i] == stats.Page {
			list.Engaged, list.Rows = true, withEngagement(list.Rows, reads.engaged)
		}
		data.Boxes = append(data.Boxes, newBoxPanel(box, base, addr, c.tabs[i], list))
	}
	notes := reads.visits.notesNow
	data.Boxes[0].Notice = sourcesNotice(c.tabs[0], notes.SourcesFrom, notes.SourcesLacking)
	data.Goals, data.GoalsRevenue = goalRows(reads.goals, links.Add)
	data.GoalsCSV = goalsExportURL(v, rng, filters)
	data.Properties = newPropertiesPanel(dash, cloneValues(addr.query), links, reads.props,
		propertiesExportURL(v, rng, filters))
	data.Visits = newVisitsPanel(base, v, rng, reads.cmp, len(filters) > 0, reads.visits)
	data.Graph = newGraphPanel(base, addr, metric, interval, graph.SpanOf(rng, today, len(filters) > 0), reads, loc, data.Visits.Before)
	_, goal := filters.Get(stats.GoalName)
	cardLinks(data.Visits.Numbers, base, addr, metric, interval, goal)
	data.Picker = newRangePicker(base, v, addr, today, reads.first, c.last24, rng, filters)
	lists := slices.Clone(data.Top)
	for _, b := range data.Boxes {
		lists = append(lists, b.List)
	}
	data.Dialog = newFilterDialog(addr, filters, c.edit, lists)
	if data.FilterBar != nil {
		for i := range data.FilterBar.Chips {
			if filters[i].Name != stats.Property && !filters[i].Locked {
				data.FilterBar.Chips[i].Edit = addr.set(filterform.OpenParam, strconv.Itoa(i)) + "#filter-dialog"
			}
		}
	}
	data.Comparer = newComparer(v, rng, filters, links.Query(), reads.cmp)
	data.Comparer.Toggle, data.Comparer.ToggleLabel = compareToggle(base, addr, reads.cmp)
	return data
}

// chartStat tells whether a statistic is one of the daily series the chart and the headline
// numbers show (pageview, visitor, visit): it has no top list of its own on the dashboard.
func chartStat(n stats.Name) bool {
	return n == stats.Pageview || n == stats.Visitor || n == stats.Visit
}

// topRows are a list's rows; link makes the address that filters by a value ("" for none).
func topRows(name stats.Name, entries []repository.StatEntry, link func(stats.Name, string) string) []topRow {
	rows := make([]topRow, len(entries))
	var largest int64 = 1
	for _, e := range entries {
		largest = max(largest, e.Count)
	}
	for i, e := range entries {
		rows[i] = topRow{Label: display.Value(name, e.Value), Value: e.Value, Count: e.Count,
			Share: num(float64(e.Count) / float64(largest) * 100), Filter: link(name, e.Value)}
	}
	return rows
}

// hasRole tells whether the signed-in user is the website's owner or a member (the website as
// lookupSite read it): they see what only the website's people see, the recent pageviews.
func hasRole(site repository.Website) bool {
	return site.Role != ""
}

// statsPath is the address of a website's dashboard.
func statsPath(domain string) string {
	return "/stats/" + url.PathEscape(domain)
}

func exportURL(v statsView, name stats.Name, rng stats.Range, filters stats.Filters) string {
	q := filterbar.With(rng.Query(), filters)
	q.Set("name", string(name))
	return v.url("/export", q)
}

// badParams answers parameters a stats page cannot use, naming each.
func (p *Pages) badParams(w http.ResponseWriter, r *http.Request, domain string, errs stats.FieldErrors) {
	p.render(w, r, http.StatusUnprocessableEntity, "error.html", "Invalid address", errorPage{
		Status: http.StatusUnprocessableEntity, Heading: "Invalid address",
		Message: "This page of " + domain + " cannot be shown with these parameters:", Details: errorLines(errs),
		Back: viewOf(r, repository.Website{Domain: domain}).url("", url.Values{}), BackLabel: "Back to the dashboard of " + domain,
	})
}
