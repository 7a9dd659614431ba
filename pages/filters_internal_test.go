package pages

import (
	"bytes"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/pages/htmlpage"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// The links of a filtered page: adding a filter keeps the others, the range and a list's
// search and order, and starts again at page 1; removing one keeps the rest.
func TestFilterLinks(t *testing.T) {
	q := url.Values{"from": {"2026-03-01"}, "search": {"a&b"}, "page": {"3"},
		"filter[country]": {"DE:Germany"}, "filter[page]": {"/a b"}}
	filters, err := stats.ParseFilters(q)
	if err != nil {
		t.Fatal(err)
	}
	l := newFilterLinks("/stats/example.com/page", q, filters)
	const at = "/stats/example.com/page?"
	for _, tc := range []struct{ got, want string }{
		{l.Add(stats.Browser, "Firefox"), at + "filter%5Bbrowser%5D=Firefox&filter%5Bcountry%5D=DE%3AGermany&filter%5Bpage%5D=%2Fa+b&from=2026-03-01&search=a%26b"},
		{l.Add(stats.Country, "FR:France"), at + "filter%5Bcountry%5D=FR%3AFrance&filter%5Bpage%5D=%2Fa+b&from=2026-03-01&search=a%26b"},
		{l.Add(stats.Country, stats.Other), ""},
		{l.Add(stats.Pageview, "2026-03-01"), ""},
		{l.To(nil), at + "from=2026-03-01&search=a%26b"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	bar := l.Bar("")
	want := &filterbar.Bar{Clear: at + "from=2026-03-01&search=a%26b", Chips: []filterbar.Chip{
		{Name: "Page", Op: "is", Value: "/a b", Raw: "/a b", Remove: at + "filter%5Bcountry%5D=DE%3AGermany&from=2026-03-01&search=a%26b",
			Switches: []filterbar.Switch{
				{Label: "is not", Href: at + "filter%5Bcountry%5D=DE%3AGermany&filter_not%5Bpage%5D=%2Fa+b&from=2026-03-01&search=a%26b"},
				{Label: "contains", Href: at + "filter%5Bcountry%5D=DE%3AGermany&filter_contains%5Bpage%5D=%2Fa+b&from=2026-03-01&search=a%26b"},
			}},
		{Name: "Country", Op: "is", Value: "Germany", Raw: "DE:Germany", Remove: at + "filter%5Bpage%5D=%2Fa+b&from=2026-03-01&search=a%26b",
			Switches: []filterbar.Switch{
				{Label: "is not", Href: at + "filter%5Bpage%5D=%2Fa+b&filter_not%5Bcountry%5D=DE%3AGermany&from=2026-03-01&search=a%26b"},
				{Label: "contains", Href: at + "filter%5Bpage%5D=%2Fa+b&filter_contains%5Bcountry%5D=DE%3AGermany&from=2026-03-01&search=a%26b"},
			}},
	}}
	if !reflect.DeepEqual(bar, want) {
		t.Errorf("chips %+v\nwant  %+v", bar, want)
	}
	// A switched chip reads its operator, keeps it in the URL and switches back.
	notQuery := url.Values{"filter_not[referrer]": {`a\|b|www.google.com`}}
	notFilters, err := stats.ParseFilters(notQuery)
	if err != nil {
		t.Fatal(err)
	}
	chip := newFilterLinks("/stats/example.com", notQuery, notFilters).Bar("").Chips[0]
	if chip.Op != "is not" || chip.Raw != "a|b | www.google.com" || len(chip.Switches) != 2 ||
		chip.Switches[0] != (filterbar.Switch{Label: "is", Href: "/stats/example.com?filter_any%5Breferrer%5D=a%5C%7Cb%7Cwww.google.com"}) {
		t.Errorf("switched chip %+v", chip)
	}
	// A goal chip has no switch: a goal is filtered with "is" only (stats.ParseFilters).
	goalQuery := url.Values{"filter[goal]": {"Signup"}}
	goalFilters, err := stats.ParseFilters(goalQuery)
	if err != nil {
		t.Fatal(err)
	}
	if chip := newFilterLinks("/stats/example.com", goalQuery, goalFilters).Bar("").Chips[0]; chip.Name != "Goal" || len(chip.Switches) != 0 {
		t.Errorf("goal chip %+v", chip)
	}
	if newFilterLinks("/stats/example.com", url.Values{}, nil).Bar("") != nil {
		t.Error("a page without filters has chips")
	}
	if got := newFilterLinks("/stats/example.com", url.Values{}, nil).Add(stats.LandingPage, "/x"); got != "/stats/example.com?filter%5Blanding_page%5D=%2Fx" {
		t.Errorf("add to no filter: %s", got)
	}
}

// A filtered dashboard, laid out from given reads (the filtered reads themselves are the
// repository's, tested there and in filters_test.go): every link but the realtime view's keeps
// the filters, each value links to the dashboard with its filter added, the chips show the
// filters with their remove links, the custom range form carries them, the notes say from
// which day the numbers count and that a sampled view says so, and a stranger's markup as a
// filter is inert everywhere.
func TestFilteredDashboardLayout(t *testing.T) {
	const (
		base   = "https://example.net/analytics"
		script = "/<script>alert(1)</script>"
	)
	q := url.Values{"from": {"2026-01-01"}, "to": {"2026-03-20"}, "filter[country]": {"DE:Germany"}, "filter[page]": {script}}
	filters, err := stats.ParseFilters(q)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	rng := stats.Range{From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: today}
	reads := dashboardReads{
		first: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
		top: map[stats.Name]repository.StatList{
			stats.Page:    {Entries: []repository.StatEntry{{Value: script, Count: 3}, {Value: "/b", Count: 1}}, Distinct: 2},
			stats.Country: {Entries: []repository.StatEntry{{Value: "DE:Germany", Count: 3}, {Value: stats.Other, Count: 1}}, Distinct: 2},
		},
		events: []repository.EventGroup{{Name: "<b>Signup</b>", Total: 2, Values: []repository.StatEntry{{Value: ":", Count: 2}}}},
		visits: visitsReads{filteredFrom: time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), fraction: 0.2},
	}
	site := repository.Website{Domain: "example.com"}
	data := newDashboardPage(base, site, statsView{path: statsPath(site.Domain)}, rng, today, newFilterLinks(statsPath(site.Domain), q, filters), reads, time.UTC,
		dashChoices{tabs: parseTabs(q, stats.FieldErrors{}), addr: newDashAddress(statsPath(site.Domain), q), metric: graph.Metrics[0], interval: stats.Daily, edit: -1})
	body := renderPage(t, "dashboard.html", base, data)

	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>Signup") {
		t.Fatal("a filter value or a value is on the page unescaped")
	}
	var links, chipTexts []string
	var hidden, compareHidden = url.Values{}, url.Values{}
	walk(t, body, func(n *html.Node) {
		switch {
		case n.Data == "a":
			links = append(links, attr(n, "href"))
		case n.Data == "input" && attr(n, "type") == "hidden" && attr(n.Parent, "class") == "range-form":
			hidden.Add(attr(n, "name"), attr(n, "value"))
		case n.Data == "input" && attr(n, "type") == "hidden" && attr(n.Parent, "class") == "compare-form":
			compareHidden.Add(attr(n, "name"), attr(n, "value"))
		case n.Data == "span" && attr(n, "class") == "chip-text":
			chipTexts = append(chipTexts, text(n))
		}
	})
	if want := []string{"Page is " + script, "Country is Germany"}; !reflect.DeepEqual(chipTexts, want) {
		t.Errorf("chips %q, want %q", chipTexts, want)
	}
	if !reflect.DeepEqual(hidden, url.Values{"filter[country]": {"DE:Germany"}, "filter[page]": {script}}) {
		t.Errorf("the range form's hidden inputs: %v", hidden)
	}
	// The comparison's form keeps the range and the filters.
	if want := (url.Values{"filter[country]": {"DE:Germany"}, "filter[page]": {script}, "from": {"2026-01-01"}, "to": {today.Format(time.DateOnly)}}); !reflect.DeepEqual(compareHidden, want) {
		t.Errorf("the comparison form's hidden inputs: %v, want %v", compareHidden, want)
	}
	counts := map[int]int{} // links by the number of filters they carry
	boxLinks := 0           // each box's full list, CSV and tabs
	for _, box := range tabBoxes {
		boxLinks += 2 + len(box.Tabs)
	}
	var adds []string
	for _, link := range links {
		if link == "#from" { // the period menu's custom range: the form's first field
			continue
		}
		rest, ok := strings.CutPrefix(link, base+"/stats/example.com")
		if !ok {
			t.Errorf("link %q is not under %s", link, base)
			continue
		}
		u, err := url.Parse(rest)
		if err != nil {
			t.Fatal(err)
		}
		f, err := stats.ParseFilters(u.Query())
		if err != nil {
			t.Fatalf("link %q: %v", link, err)
		}
		if u.Path == "/realtime" {
			if len(f) != 0 {
				t.Errorf("the realtime link carries filters: %s", link)
			}
			continue
		}
		counts[len(f)]++
		if len(f) == 3 {
			adds = append(adds, string(f[len(f)-1].Name)+"="+f[len(f)-1].Value)
		}
	}
	// One link clears them (0), one chip each removes one (1). The period menu's thirteen
	// ranges (the last 24 hours among them), its arrow back (the range ends today: none forward), the comparison's switch,
	// the seven cards the graph can draw (no goal filter: not the conversion rate), the three intervals of 79 days, each list's full
	// list and CSV (the boxes' too) and the boxes' tabs keep both (2), as do the
	// values of the filtered statistics, which replace the filter on theirs (the two pages,
	// Germany), and each chip's two operator switches and its link to edit it; the event adds its filter (3); (other)
	// links nowhere.
	if want := map[int]int{0: 1, 1: 2, 2: 13 + 1 + 1 + 7 + 3 + 2*len(data.Top) + boxLinks + 3 + 2*3, 3: 1}; !reflect.DeepEqual(counts, want) {
		t.Errorf("links by their number of filters: %v, want %v\n%s", counts, want, strings.Join(links, "\n"))
	}
	if want := []string{"event=<b>Signup</b>::"}; !reflect.DeepEqual(adds, want) {
		t.Errorf("values adding a filter: %q, want %q", adds, want)
	}
	for _, note := range []string{
		"With filters, the numbers of the 79 days before start on 1 Dec 2025: earlier days have no visit details.",
		"Estimated from 20 % of visitors (views of more than 10 million pageviews are sampled).",
	} {
		if !strings.Contains(body, note) {
			t.Errorf("the note %q is not on the page", note)
		}
	}
}

// A full list with filters: the search form keeps them, the values link to the filtered
// dashboard, the chips stay on the list.
func TestFilteredListLayout(t *testing.T) {
	q := url.Values{"filter[referrer]": {`"><svg onload=alert(1)>`}, "search": {"x"}}
	filters, err := stats.ParseFilters(q)
	if err != nil {
		t.Fatal(err)
	}
	stat, _ := statisticNamed("country")
	toDashboard := newFilterLinks("/stats/example.com", filterbar.RangeParams(q), filters)
	data := listPage{Domain: "example.com", Stat: stat, Filters: filters,
		Rows:      topRows(stat.Name, []repository.StatEntry{{Value: "DE:Germany", Count: 2}}, toDashboard.Add),
		FilterBar: newFilterLinks("/stats/example.com/country", q, filters).Bar(""),
		Notices:   []string{"With filters, numbers start on 10 Feb 2026: earlier days have no visit details."},
		Params:    stats.ListQuery{Search: "x", Paging: stats.Paging{Number: 1, Size: 50}},
		Total:     1, PerPages: stats.PerPageValues, SortLinks: map[string]string{},
	}
	body := renderPage(t, "list.html", "", data)
	if strings.Contains(body, "<svg onload") {
		t.Fatal("the filter value is on the page unescaped")
	}
	for _, want := range []string{
		`<a class="filter-link" href="/stats/example.com?filter%5Bcountry%5D=DE%3AGermany&amp;filter%5Breferrer%5D=%22%3E%3Csvg&#43;onload%3Dalert%281%29%3E">Germany</a>`,
		`<input type="hidden" name="filter[referrer]" value="&#34;&gt;&lt;svg onload=alert(1)&gt;">`,
		`<a class="chip-remove" href="/stats/example.com/country?search=x">`,
		`<p>With filters, numbers start on 10 Feb 2026: earlier days have no visit details.</p>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the list does not hold %s:\n%s", want, body)
		}
	}
}

// renderPage renders a page's template with the layout, as Pages.render does.
func renderPage(t *testing.T, name, base string, data any) string {
	t.Helper()
	templates, err := parseTemplates()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := templates[name].ExecuteTemplate(&buf, "layout", htmlpage.View{Base: base, Title: "t", Data: data}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// walk calls f on every element of main.
func walk(t *testing.T, body string, f func(*html.Node)) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var visit func(*html.Node, bool)
	visit = func(n *html.Node, inMain bool) {
		inMain = inMain || (n.Type == html.ElementNode && n.Data == "main")
		if n.Type == html.ElementNode && inMain {
			f(n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, inMain)
		}
	}
	visit(doc, false)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return b.String()
}

// A chip shows at most filterbar.ChipLength characters of a value; its title holds all of it.
func TestChipOfALongValue(t *testing.T) {
	long := strings.Repeat("é", 255)
	bar := newFilterLinks("/stats/example.com", url.Values{}, stats.Filters{{Name: stats.Page, Value: long}}).Bar("")
	if got := bar.Chips[0].Value; got != strings.Repeat("é", filterbar.ChipLength-1)+"…" || bar.Chips[0].Raw != long {
		t.Errorf("chip of a 255-character value: %q", got)
	}
	if got := filterbar.Shorten("/pricing", filterbar.ChipLength); got != "/pricing" {
		t.Errorf("a short value is shortened: %q", got)
	}
}
