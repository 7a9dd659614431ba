package pages_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

// A shared link's segment (docs/teams.md): the settings form offers the website's own
// segments the dashboard can apply; the link's view is narrowed by the segment's filters,
// which its viewer cannot remove.

// segmentName is a stranger's markup: a segment's name is shown on the settings page and to
// whoever has the link.
const segmentName = "<script>alert('segment')</script> Germany"

// segmentSite is a private website with visit rows (filterVisits, 1..20 March 2026), its
// owner signed in, and segments: the website's own of Germany (germany), a personal one
// (personal), the website's own that the dashboard cannot apply (matches), and another
// website's of the owner (theirs).
type segmentSite struct {
	e                                  *env
	owner                              harness.User
	site                               int64
	visits                             []repotest.Visit
	browser                            *browser
	germany, personal, matches, theirs repository.Segment
}

func newSegmentSite(t *testing.T) *segmentSite {
	t.Helper()
	e := newEnv(t)
	s := &segmentSite{e: e, owner: e.UserWithPassword("owner@example.com")}
	s.site = e.Site(s.owner.Key, "example.com", "privacy", "1")
	s.visits = e.filterVisits(s.site, "2026-03-01", "2026-03-20", 40)
	s.browser = e.browser().signIn(s.owner)
	other := e.Site(s.owner.Key, "other.example")
	germany, err := query.DashboardSegment(stats.Filters{{Name: stats.Country, Value: "DE:Germany"}})
	if err != nil {
		t.Fatal(err)
	}
	newSegment := func(site int64, owner *int64, name string, filters []byte) repository.Segment {
		t.Helper()
		seg, err := e.Repo.CreateSegment(context.Background(), site, owner, name, filters)
		if err != nil {
			t.Fatal(err)
		}
		return seg
	}
	s.germany = newSegment(s.site, nil, segmentName, germany)
	s.personal = newSegment(s.site, &s.owner.ID, "Only mine", germany)
	s.matches = newSegment(s.site, nil, "Blog by pattern", []byte(`[["matches","event:page",["^/blog"]]]`))
	s.theirs = newSegment(other, nil, "Theirs", germany)
	return s
}

// links are the website's shared links.
func (s *segmentSite) links(t *testing.T) []repository.SharedLink {
	t.Helper()
	links, err := s.e.Repo.SharedLinks(context.Background(), s.site)
	if err != nil {
		t.Fatal(err)
	}
	return links
}

func (s *segmentSite) settings() string { return fmt.Sprintf("/websites/%d/shared", s.site) }

var segmentOptionRE = regexp.MustCompile(`(?s)<select id="link-segment" name="segment"[^>]*>(.*?)</select>`)

// The form offers "None (everything)" and then the website's own segments the dashboard can
// apply; every other segment id, garbage and an id sent twice answer the form again with 422
// on the field, and nothing is stored; a good one is stored and named in the list, escaped.
func TestSharedLinkSegmentForm(t *testing.T) {
	s := newSegmentSite(t)
	form := s.browser.get(s.settings())
	wantStatus(t, "the settings page", form, http.StatusOK)
	m := segmentOptionRE.FindStringSubmatch(form.body)
	if m == nil {
		t.Fatalf("no segment select:\n%s", form.body)
	}
	options := regexp.MustCompile(`<option value="([^"]*)"[^>]*>([^<]*)</option>`).FindAllStringSubmatch(m[1], -1)
	var got []string
	for _, o := range options {
		got = append(got, o[1]+"="+html.UnescapeString(o[2]))
	}
	if want := []string{"=None (everything)", fmt.Sprintf("%d=%s", s.germany.ID, segmentName)}; strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("the segments offered %q, want %q", got, want)
	}
	if strings.Contains(form.body, segmentName) {
		t.Error("the settings page shows a segment's name unescaped")
	}

	for what, sent := range map[string][]string{
		"a personal segment":                   {strconv.FormatInt(s.personal.ID, 10)},
		"a segment the dashboard cannot apply": {strconv.FormatInt(s.matches.ID, 10)},
		"another website's segment":            {strconv.FormatInt(s.theirs.ID, 10)},
		"an unknown id":                        {"999999"},
		"garbage":                              {"DE' OR 1=1"},
		"a negative id":                        {"-1"},
		"twice":                                {strconv.FormatInt(s.germany.ID, 10), strconv.FormatInt(s.germany.ID, 10)},
	} {
		p := s.browser.post(s.settings(), url.Values{"name": {"Refused"}, "segment": sent})
		wantStatus(t, what, p, http.StatusUnprocessableEntity)
		want := "must be one of the website&#39;s segments offered, or none"
		if what == "twice" {
			want = "must be sent once"
		}
		if !strings.Contains(p.body, `<p class="error-text" id="link-segment-error">`+want) || !strings.Contains(p.body, `aria-invalid="true" aria-describedby="link-segment-error"`) {
			t.Errorf("%s: no refusal on the field:\n%s", what, p.body)
		}
		if strings.Contains(p.body, `id="new-link"`) {
			t.Errorf("%s: a link is shown as made", what)
		}
		if links := s.links(t); len(links) != 0 {
			t.Fatalf("%s: links stored %v", what, links)
		}
	}
	// A refusal of another field keeps the segment chosen.
	p := s.browser.post(s.settings(), url.Values{"name": {""}, "segment": {strconv.FormatInt(s.germany.ID, 10)}})
	wantStatus(t, "no name", p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.body, fmt.Sprintf(`<option value="%d" selected>`, s.germany.ID)) {
		t.Errorf("the segment chosen is not kept:\n%s", p.body)
	}
	if len(s.links(t)) != 0 {
		t.Fatal("a link without a name was stored")
	}

	// A segment in the address is no field of the form: the link is made without one.
	fromQuery := s.browser.post(s.settings()+"?segment="+strconv.FormatInt(s.germany.ID, 10), url.Values{"name": {"Everything"}})
	wantStatus(t, "a segment in the address", fromQuery, http.StatusOK)
	if links := s.links(t); len(links) != 1 || links[0].SegmentID != nil {
		t.Fatalf("the address's segment was taken as the form's: %+v", links)
	}
	made := s.browser.post(s.settings(), url.Values{"name": {"Germany only"}, "segment": {strconv.FormatInt(s.germany.ID, 10)}, "password": {"open sesame"}})
	wantStatus(t, "make a link with a segment", made, http.StatusOK)
	if want := "The link “Germany only”, with its password and showing only the segment “" + html.EscapeString(segmentName) + "”, was made."; !strings.Contains(made.body, want) {
		t.Errorf("the link made is not said to show the segment:\n%s", made.body)
	}
	links := s.links(t)
	if len(links) != 2 || links[0].Name != "Germany only" || links[0].SegmentID == nil || *links[0].SegmentID != s.germany.ID || links[1].SegmentID != nil {
		t.Fatalf("links stored %+v", links)
	}
	list := s.browser.get(s.settings())
	row := regexp.MustCompile(`<td data-label="Segment">([^\n]*)</td>`).FindAllStringSubmatch(list.body, -1)
	if len(row) != 2 || html.UnescapeString(row[0][1]) != segmentName || row[1][1] != "" {
		t.Errorf("the list's segments %q", row)
	}
	if strings.Contains(list.body, segmentName) {
		t.Error("the list shows a segment's name unescaped")
	}
}

// shownNumbers are the headline numbers of a dashboard.
func shownNumbers(body string) string {
	var out []string
	for _, m := range numberRE.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return strings.Join(out, " | ")
}

// csvCounts are the value and count columns of a CSV export.
func csvCounts(t *testing.T, body string) map[string]int64 {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range records[1:] {
		n, _ := strconv.ParseInt(r[1], 10, 64)
		out[strings.TrimPrefix(r[0], "'")] = n
	}
	return out
}

// A segment's link shows the segment's numbers only (checked against the visits written) on
// the dashboard, its full lists and CSV export, with the viewer's own filters on top; its
// filters are in no address and their chips cannot be removed; a filter on the name they fix
// is refused, on every page and in the filter dialog; a segment made personal or no longer
// applicable makes the link 404, and deleting the segment deletes the link.
func TestSharedLinkSegmentView(t *testing.T) {
	s := newSegmentSite(t)
	link := makeSharedLink(t, s.browser, s.site, url.Values{"name": {"Germany only"}, "segment": {strconv.FormatInt(s.germany.ID, 10)}})
	token := strings.TrimPrefix(link, "/share/example.com?auth=")
	reader := s.e.browser()
	const days = "&from=2026-03-14&to=2026-03-20"
	segment, ok := query.SegmentDashboard(s.germany.Filters)
	if !ok {
		t.Fatal("the segment is not the dashboard's kind")
	}
	germany := filterCase{filters: segment}
	now := germany.matching(s.visits, "2026-03-14", "2026-03-20")
	everything := filterCase{}.matching(s.visits, "2026-03-14", "2026-03-20")
	if len(now) == 0 || len(now) == len(everything) {
		t.Fatalf("%d of %d visits are Germany's: the test cannot tell narrowed from not", len(now), len(everything))
	}

	dash := reader.get(link + days)
	wantStatus(t, "the segment's dashboard", dash, http.StatusOK)
	if got, want := shownNumbers(dash.body), strings.Join(germany.sums(now).shown(), " | "); got != want {
		t.Errorf("the dashboard's numbers %q, want Germany's %q", got, want)
	}
	lists := topLists(dash.body)
	for _, name := range []string{"page", "browser", "referrer"} {
		if got, want := shownCounts(t, lists[name]), top10(germany.counts(now, name)); !maps.Equal(got, want) {
			t.Errorf("top %s %v, want Germany's %v", name, got, want)
		}
	}
	if !strings.Contains(dash.body, "<title>France: no visits</title>") || !strings.Contains(dash.body, `<path class="land shade-`) {
		t.Error("the map is not narrowed to Germany")
	}
	// The chips: the segment named, escaped, its filter fixed; nothing to clear.
	bar := regexp.MustCompile(`(?s)<section class="filter-bar".*?</section>`).FindString(dash.body)
	if !strings.Contains(bar, "Segment: <strong>"+html.EscapeString(segmentName)+"</strong>") ||
		!strings.Contains(bar, `<li class="chip chip-fixed"><span class="chip-text">Country is <strong title="DE">`) ||
		!strings.Contains(bar, "fixed<span class=\"visually-hidden\"> by the shared link: this filter cannot be removed</span>") {
		t.Errorf("the filter bar:\n%s", bar)
	}
	if strings.Contains(bar, "chip-remove") || strings.Contains(bar, "clear-filters") || strings.Contains(bar, "chip-edit") || strings.Contains(bar, "chip-switch") {
		t.Errorf("the fixed chip can be changed:\n%s", bar)
	}
	if strings.Contains(dash.body, segmentName) || strings.Contains(dash.body, "<script>alert(") {
		t.Error("the shared view shows a segment's name unescaped")
	}
	// The segment's filter is in no address or form of the view, which all keep the token.
	noCountry := func(what, body string) {
		t.Helper()
		for _, m := range regexp.MustCompile(`(?:href|action|value)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
			v, _ := url.QueryUnescape(html.UnescapeString(m[1]))
			if strings.Contains(v, "[country]") {
				t.Errorf("%s: an address or form carries the segment's filter: %s", what, m[1])
			}
		}
		if strings.Contains(body, `name="filter[country]"`) || strings.Contains(body, `<option value="country"`) {
			t.Errorf("%s: a form offers or keeps the country filter", what)
		}
	}
	noCountry("the dashboard", dash.body)
	for _, m := range regexp.MustCompile(`href="(/share/[^"]+)"`).FindAllStringSubmatch(dash.body, -1) {
		if !strings.Contains(m[1], "auth="+token) {
			t.Errorf("a link leaves the shared view: %s", m[1])
		}
	}

	// The viewer's own filter narrows further, and can be removed; the segment's stays.
	firefox := filterCase{filters: segment.Joined(stats.Filters{{Name: stats.Browser, Value: "Firefox"}})}
	both := firefox.matching(s.visits, "2026-03-14", "2026-03-20")
	own := reader.get(link + days + "&filter%5Bbrowser%5D=Firefox")
	wantStatus(t, "the segment and the viewer's filter", own, http.StatusOK)
	if got, want := shownNumbers(own.body), strings.Join(firefox.sums(both).shown(), " | "); got != want {
		t.Errorf("with the viewer's filter: numbers %q, want Germany's Firefox's %q", got, want)
	}
	if got, want := shownCounts(t, topLists(own.body)["page"]), top10(firefox.counts(both, "page")); !maps.Equal(got, want) {
		t.Errorf("with the viewer's filter: top pages %v, want %v", got, want)
	}
	noCountry("the dashboard with the viewer's filter", own.body)
	remove := regexp.MustCompile(`<a class="chip-remove" href="([^"]+)">`).FindAllStringSubmatch(own.body, -1)
	if len(remove) != 1 || strings.Contains(remove[0][1], "browser") || !strings.Contains(remove[0][1], "auth="+token) {
		t.Errorf("the remove links %q", remove)
	}

	// Full lists and the CSV export: narrowed the same way.
	full := reader.get("/share/example.com/browser?auth=" + token + days + "&per_page=100")
	wantStatus(t, "the full list", full, http.StatusOK)
	if got, want := shownCounts(t, full.body), germany.counts(now, "browser"); !maps.Equal(got, want) {
		t.Errorf("the full list %v, want Germany's %v", got, want)
	}
	noCountry("the full list", full.body)
	export := reader.get("/share/example.com/export?name=page&auth=" + token + days)
	wantStatus(t, "the export", export, http.StatusOK)
	if got, want := csvCounts(t, export.body), germany.counts(now, "page"); !maps.Equal(got, want) {
		t.Errorf("the CSV %v, want Germany's %v", got, want)
	}
	if !strings.Contains(export.header.Get("Content-Disposition"), "-filtered.csv") {
		t.Errorf("the CSV's name %q", export.header.Get("Content-Disposition"))
	}
	export = reader.get("/share/example.com/export?name=page&auth=" + token + days + "&filter%5Bbrowser%5D=Firefox")
	wantStatus(t, "the export with the viewer's filter", export, http.StatusOK)
	if got, want := csvCounts(t, export.body), firefox.counts(both, "page"); !maps.Equal(got, want) {
		t.Errorf("the CSV with the viewer's filter %v, want %v", got, want)
	}

	// A filter on the name the segment fixes: refused, never dropped, on every page. The
	// dialog's numbers are the chips': the fixed one's among them, in the filters' order.
	fixed := strconv.Itoa(slices.IndexFunc(firefox.filters, func(f stats.Filter) bool { return f.Name == stats.Country }))
	for _, path := range []string{
		link + days + "&filter%5Bcountry%5D=FR:France",
		link + days + "&filter_not%5Bcountry%5D=FR",
		link + days + "&filter%5Bcountry%5D=DE:Germany",
		"/share/example.com/browser?auth=" + token + "&filter_any%5Bcountry%5D=FR|US",
		"/share/example.com/export?name=page&auth=" + token + "&filter%5Bcountry%5D=FR:France",
		link + "&dialog_name=country&dialog_op=is&dialog_value=FR:France",
		link + "&filter%5Bbrowser%5D=Firefox&edit_filter=" + fixed,
		link + "&filter%5Bbrowser%5D=Firefox&dialog_name=browser&dialog_op=is&dialog_value=Safari&dialog_edit=" + fixed,
	} {
		p := reader.get(path)
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "fixed by the shared link") || !strings.Contains(p.body, "Back to the dashboard of example.com") {
			t.Errorf("%s: %d\n%.3000s", path, p.status, p.body)
		}
		if strings.Contains(p.body, segmentName) {
			t.Errorf("%s: the refusal shows the segment's name unescaped", path)
		}
	}
	// The filter dialog on another name: the view with the viewer's filter, and no country.
	applied := reader.get(link + "&dialog_name=browser&dialog_op=is&dialog_value=Safari")
	wantStatus(t, "the dialog", applied, http.StatusSeeOther)
	if loc := applied.header.Get("Location"); !strings.Contains(loc, "filter%5Bbrowser%5D=Safari") || strings.Contains(loc, "country") || !strings.Contains(loc, "auth=") {
		t.Errorf("the dialog leads to %s", loc)
	}

	// The segment made personal, or given filters the dashboard cannot show: the link shows
	// nothing (the 404 page); back as it was, it works again.
	ctx := context.Background()
	for what, change := range map[string]func(*repository.Segment){
		"made personal":            func(seg *repository.Segment) { seg.UserID = &s.owner.ID },
		"not the dashboard's kind": func(seg *repository.Segment) { seg.Filters = s.matches.Filters },
	} {
		changed := s.germany
		change(&changed)
		if _, err := s.e.Repo.UpdateSegment(ctx, changed); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, what, reader.get(link), http.StatusNotFound)
		if list := s.browser.get(s.settings()); !strings.Contains(list.body, "Not applicable any more") {
			t.Errorf("%s: the settings page does not say the link shows nothing", what)
		}
		if _, err := s.e.Repo.UpdateSegment(ctx, s.germany); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, what+", then back", reader.get(link), http.StatusOK)
	}
	// Deleting the segment deletes its link: the 404 page.
	deleted := s.browser.post(fmt.Sprintf("/websites/%d/segments/%d/delete", s.site, s.germany.ID), url.Values{"return": {""}})
	wantStatus(t, "delete the segment", deleted, http.StatusSeeOther)
	wantStatus(t, "the link of a deleted segment", reader.get(link), http.StatusNotFound)
	if links := s.links(t); len(links) != 0 {
		t.Errorf("the links left %v", links)
	}
}
