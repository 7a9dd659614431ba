package pages_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/testkit/harness"
)

// pinnedSite is a public website with a month of numbers, its owner and a viewer signed in.
func pinnedSite(t *testing.T) (e *env, id int64, o harness.User, owner, viewer *browser) {
	e = newEnv(t)
	o = e.UserWithPassword("owner@example.com")
	v := e.UserWithPassword("viewer@example.com")
	id = e.Site(o.Key, "pinned.example")
	e.Member(id, o, v, repository.RoleViewer)
	e.seedMonth(id)
	return e, id, o, e.browser().signIn(o), e.browser().signIn(v)
}

// TestSegmentsOnTheDashboard: the filters shown are saved as a segment, listed in the menu
// as a link to the same filters, renamed and deleted; a site-wide one needs an editor; filters
// a segment cannot hold, a bad name and another user's segment get readable refusals.
func TestSegmentsOnTheDashboard(t *testing.T) {
	e, id, o, owner, viewer := pinnedSite(t)
	filtered := "/stats/pinned.example?filter%5Bcountry%5D=DE%3AGermany&filter_any%5Bbrowser%5D=Chrome%7CFirefox"
	dash := owner.get(filtered)
	wantStatus(t, "filtered dashboard", dash, http.StatusOK)
	if !strings.Contains(dash.body, "Save these filters as") || !strings.Contains(dash.body, `name="filter[country]" value="DE:Germany"`) {
		t.Fatalf("no save form with the filters:\n%.3000s", dash.body)
	}
	save := url.Values{"name": {"Germans on <b>Chrome</b>"}, "filter[country]": {"DE:Germany"}, "filter_any[browser]": {"Chrome|Firefox"},
		"return": {"filter[country]=DE:Germany&filter_any[browser]=Chrome|Firefox&from=2026-03-01&to=2026-03-20"}}
	done := owner.post(fmt.Sprintf("/websites/%d/segments", id), save)
	wantStatus(t, "save", done, http.StatusSeeOther)
	if loc := done.header.Get("Location"); !strings.HasPrefix(loc, "/stats/pinned.example?") || !strings.Contains(loc, "from=2026-03-01") {
		t.Errorf("back to %q", loc)
	}
	segs, err := e.Repo.Segments(context.Background(), id, 0)
	if err != nil || len(segs) != 0 {
		t.Fatalf("site-wide segments: %v %v", segs, err)
	}
	if mine, _ := e.Repo.Segments(context.Background(), id, o.ID); len(mine) != 1 || strings.ReplaceAll(string(mine[0].Filters), " ", "") !=
		`[["is","visit:browser",["Chrome","Firefox"],{"case_sensitive":false}],["is","visit:country",["DE"]]]` {
		t.Errorf("saved as %+v", mine)
	}
	// Applied from the menu of the unfiltered dashboard: a link to the same filters.
	plain := owner.get("/stats/pinned.example")
	if !strings.Contains(plain.body, "Germans on &lt;b&gt;Chrome&lt;/b&gt;") || strings.Contains(plain.body, "<b>Chrome</b>") {
		t.Errorf("the segment's name is not in the menu, escaped")
	}
	if !strings.Contains(plain.body, `href="/stats/pinned.example?filter%5Bcountry%5D=DE&amp;filter_any%5Bbrowser%5D=Chrome%7CFirefox"`) {
		t.Errorf("no link applying the segment:\n%s", menuOf(plain.body))
	}
	applied := owner.get("/stats/pinned.example?filter%5Bcountry%5D=DE&filter_any%5Bbrowser%5D=Chrome%7CFirefox")
	if !strings.Contains(menuOf(applied.body), `aria-current="true"`) {
		t.Errorf("the applied segment is not marked current:\n%s", menuOf(applied.body))
	}
	// A site-wide one is listed to a stranger on the public dashboard, not in a shared link's view.
	site := owner.post(fmt.Sprintf("/websites/%d/segments", id), url.Values{"name": {"Everyone's"}, "type": {"site"}, "filter[country]": {"FR:France"}})
	wantStatus(t, "save site-wide", site, http.StatusSeeOther)
	if p := e.browser().get("/stats/pinned.example"); !strings.Contains(menuOf(p.body), "Everyone&#39;s") || strings.Contains(p.body, "Germans on") ||
		strings.Contains(p.body, "Save these filters") {
		t.Errorf("a stranger's menu:\n%s", menuOf(p.body))
	}
	shared := makeSharedLink(t, owner, id, url.Values{"name": {"press"}})
	if p := e.browser().get(shared); p.status != http.StatusOK || strings.Contains(p.body, `class="segments"`) {
		t.Errorf("the shared view (%d) lists segments:\n%s", p.status, menuOf(p.body))
	}
	// Personal: the viewer does not see it.
	if strings.Contains(viewer.get("/stats/pinned.example").body, "Germans on") {
		t.Error("the viewer sees the owner's personal segment")
	}

	// Refusals, each a readable page, nothing stored.
	bad := []struct {
		who    *browser
		form   url.Values
		status int
		says   string
	}{
		{viewer, url.Values{"name": {"all"}, "type": {"site"}, "filter[country]": {"DE:Germany"}}, http.StatusForbidden, "role"},
		{owner, url.Values{"name": {"x"}, "filter[language]": {"de"}}, http.StatusUnprocessableEntity, "language filter cannot be saved"},
		{owner, url.Values{"name": {"x"}}, http.StatusUnprocessableEntity, "no filter to save"},
		{owner, url.Values{"name": {strings.Repeat("n", 81)}, "filter[country]": {"DE:Germany"}}, http.StatusUnprocessableEntity, "1 to 80 characters"},
		{owner, url.Values{"name": {"x"}, "type": {"team"}, "filter[country]": {"DE:Germany"}}, http.StatusUnprocessableEntity, "personal or site"},
		{owner, url.Values{"name": {"x"}, "filter[nothing]": {"x"}}, http.StatusUnprocessableEntity, "filters are invalid"},
	}
	for _, b := range bad {
		p := b.who.post(fmt.Sprintf("/websites/%d/segments", id), b.form)
		if p.status != b.status || !strings.Contains(html.UnescapeString(p.body), b.says) {
			t.Errorf("%v: %d, want %d saying %q\n%.1500s", b.form, p.status, b.status, b.says, p.body)
		}
	}
	mine, err := e.Repo.Segments(context.Background(), id, o.ID)
	if err != nil || len(mine) != 2 || mine[1].Name != "Germans on <b>Chrome</b>" {
		t.Fatalf("owner's segments after refusals: %v %v", mine, err)
	}
	mine = mine[1:] // the personal one (after "Everyone's")
	path := fmt.Sprintf("/websites/%d/segments/%d", id, mine[0].ID)
	wantStatus(t, "the viewer renames the owner's", viewer.post(path+"/rename", url.Values{"name": {"mine now"}}), http.StatusNotFound)
	wantStatus(t, "the viewer deletes the owner's", viewer.post(path+"/delete", nil), http.StatusNotFound)
	wantStatus(t, "rename to nothing", owner.post(path+"/rename", url.Values{"name": {""}}), http.StatusUnprocessableEntity)
	wantStatus(t, "rename", owner.post(path+"/rename", url.Values{"name": {"Germany"}}), http.StatusSeeOther)
	if got, _ := e.Repo.Segment(context.Background(), id, o.ID, mine[0].ID); got.Name != "Germany" {
		t.Errorf("renamed to %q", got.Name)
	}
	// The filters shown saved into it: offered on a dashboard filtered otherwise, not on its
	// own; its name stays; filters it cannot hold, none, or another's segment are refused.
	if other := owner.get("/stats/pinned.example?filter%5Bcountry%5D=FR%3AFrance"); !strings.Contains(menuOf(other.body), `action="`+path+`/filters"`) ||
		!strings.Contains(menuOf(other.body), "Save the filters shown") {
		t.Errorf("no form saving the filters shown into the segment:\n%s", menuOf(other.body))
	}
	if own := owner.get("/stats/pinned.example?filter%5Bcountry%5D=DE&filter_any%5Bbrowser%5D=Chrome%7CFirefox"); strings.Contains(menuOf(own.body), `action="`+path+`/filters"`) {
		t.Error("the segment's own filters are offered to be saved into it")
	}
	wantStatus(t, "the viewer replaces the owner's filters", viewer.post(path+"/filters", url.Values{"filter[country]": {"FR:France"}}), http.StatusNotFound)
	wantStatus(t, "no filters", owner.post(path+"/filters", nil), http.StatusUnprocessableEntity)
	wantStatus(t, "a filter a segment cannot hold", owner.post(path+"/filters", url.Values{"filter[language]": {"de"}}), http.StatusUnprocessableEntity)
	wantStatus(t, "replace the filters", owner.post(path+"/filters", url.Values{"filter[country]": {"FR:France"}}), http.StatusSeeOther)
	if got, _ := e.Repo.Segment(context.Background(), id, o.ID, mine[0].ID); got.Name != "Germany" || strings.ReplaceAll(string(got.Filters), " ", "") != `[["is","visit:country",["FR"]]]` {
		t.Errorf("after replacing its filters: %q %s", got.Name, got.Filters)
	}
	wantStatus(t, "delete", owner.post(path+"/delete", nil), http.StatusSeeOther)
	wantStatus(t, "delete again", owner.post(path+"/delete", nil), http.StatusNotFound)
}

// menuOf is the segments menu of a dashboard's HTML.
func menuOf(body string) string {
	start := strings.Index(body, `<details class="segments"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(body[start:], "</details>")
	return body[start : start+end]
}

// TestAnnotationsOnTheDashboard: a note of up to 300 characters on a day shows as a marker
// under the graph (its note as the marker's title) and in the list, escaped; 301 characters
// and a bad date are readable 422 pages; personal notes are their maker's only; a site-wide
// one needs an editor and is seen by everyone.
func TestAnnotationsOnTheDashboard(t *testing.T) {
	e, id, _, owner, viewer := pinnedSite(t)
	add := func(b *browser, form url.Values) page {
		t.Helper()
		form.Set("return", "from=2026-03-01&to=2026-03-20")
		return b.post(fmt.Sprintf("/websites/%d/annotations", id), form)
	}
	note := "<script>alert(1)</script> launch " + strings.Repeat("x", 266)
	wantStatus(t, "add", add(owner, url.Values{"date": {"2026-03-10"}, "note": {note}, "type": {"site"}}), http.StatusSeeOther)
	wantStatus(t, "add personal", add(viewer, url.Values{"date": {"2026-03-12"}, "note": {"viewer's own"}}), http.StatusSeeOther)
	for _, bad := range []struct {
		who    *browser
		form   url.Values
		status int
		says   string
	}{
		{owner, url.Values{"date": {"2026-03-10"}, "note": {strings.Repeat("é", 301)}}, http.StatusUnprocessableEntity, "note must be 1 to 300 characters"},
		{owner, url.Values{"date": {"2026-03-10"}, "note": {"  "}}, http.StatusUnprocessableEntity, "must be 1 to 300 characters"},
		{owner, url.Values{"date": {"10/03/2026"}, "note": {"x"}}, http.StatusUnprocessableEntity, "date must be a date, YYYY-MM-DD"},
		{owner, url.Values{"note": {"x"}}, http.StatusUnprocessableEntity, "date is required"},
		{viewer, url.Values{"date": {"2026-03-10"}, "note": {"x"}, "type": {"site"}}, http.StatusForbidden, "role"},
	} {
		p := add(bad.who, bad.form)
		if p.status != bad.status || !strings.Contains(html.UnescapeString(p.body), bad.says) {
			t.Errorf("%v: %d, want %d saying %q\n%.1500s", bad.form, p.status, bad.status, bad.says, p.body)
		}
	}
	dash := owner.get("/stats/pinned.example?from=2026-03-01&to=2026-03-20")
	wantStatus(t, "dashboard", dash, http.StatusOK)
	if strings.Contains(dash.body, "<script>alert(1)</script>") || !strings.Contains(dash.body, "&lt;script&gt;alert(1)&lt;/script&gt; launch") {
		t.Error("the note is not escaped, or not shown")
	}
	if n := strings.Count(dash.body, `<path class="marker"`); n != 2 { // one a chart shape
		t.Errorf("%d markers, want 2 (wide and compact)", n)
	}
	if !strings.Contains(dash.body, "<title>2026-03-10: &lt;script&gt;") || strings.Contains(dash.body, "viewer&#39;s own") {
		t.Errorf("the marker's title, or the viewer's personal note:\n%s", dash.body[strings.Index(dash.body, `class="annotations"`):][:800])
	}
	if v := viewer.get("/stats/pinned.example?from=2026-03-01&to=2026-03-20"); !strings.Contains(v.body, "viewer&#39;s own") || strings.Count(v.body, `<path class="marker"`) != 4 {
		t.Error("the viewer does not see both notes")
	}
	// Out of the range: no marker. A stranger on the public dashboard sees the site-wide one.
	if p := owner.get("/stats/pinned.example?from=2026-03-11&to=2026-03-20"); strings.Contains(p.body, `class="marker"`) {
		t.Error("a note outside the range has a marker")
	}
	if p := e.browser().get("/stats/pinned.example?from=2026-03-01&to=2026-03-20"); strings.Count(p.body, `<path class="marker"`) != 2 || strings.Contains(p.body, "Add an annotation") {
		t.Error("a stranger: the site-wide note's markers, and no form")
	}
	notes, err := e.Repo.Annotations(context.Background(), id, 0, time.Time{}, time.Time{})
	if err != nil || len(notes) != 1 {
		t.Fatalf("site-wide notes: %v %v", notes, err)
	}
	path := fmt.Sprintf("/websites/%d/annotations/%d/delete", id, notes[0].ID)
	wantStatus(t, "the viewer deletes the site-wide note", viewer.post(path, nil), http.StatusForbidden)
	wantStatus(t, "delete", owner.post(path, nil), http.StatusSeeOther)
	wantStatus(t, "delete again", owner.post(path, nil), http.StatusNotFound)
}

// TestCountryMap: the map shades the range's countries by the Countries list's counts, a
// country with visits links to its filter and says its number, one without has no link.
func TestCountryMap(t *testing.T) {
	_, _, _, owner, _ := pinnedSite(t)
	dash := owner.get("/stats/pinned.example?from=2026-03-01&to=2026-03-20")
	wantStatus(t, "dashboard", dash, http.StatusOK)
	m := between(dash.body, `<figure class="country-map">`, "</figure>")
	// seedMonth: the US counts most, Japan a third of it (shade 3 of 5: by the square root);
	// none in Brazil.
	us := regexp.MustCompile(`<a href="/stats/pinned.example\?filter%5Bcountry%5D=US%3AUnited&#43;States&amp;from=2026-03-01&amp;to=2026-03-20"><path class="land shade-5" d="M[^"]+"><title>United States: [\d,]+ visits</title>`)
	if !us.MatchString(m) {
		t.Errorf("no link for the US, darkest:\n%.1500s", m)
	}
	jp := regexp.MustCompile(`filter%5Bcountry%5D=JP%3AJapan[^"]*"><path class="land shade-([0-5])"`)
	if got := jp.FindStringSubmatch(m); got == nil || got[1] != "3" {
		t.Errorf("Japan: %v", got)
	}
	if !strings.Contains(m, `<path class="land shade-0" d="`) || !strings.Contains(m, "<title>Brazil: no visits</title>") || strings.Contains(m, "country%5D=BR") {
		t.Error("Brazil: no visits, no link")
	}
	// The countries' table stays beside the map, in the same card.
	card := between(dash.body, `aria-labelledby="top-locations"`, "</section>")
	if !strings.Contains(card, `class="country-map"`) || !strings.Contains(card, "<table") {
		t.Error("the map and the table are not in one card")
	}
	// Filtered by a country, its link keeps the other filters (none here) and the range.
	filtered := owner.get("/stats/pinned.example?from=2026-03-01&to=2026-03-20&filter%5Bcountry%5D=DE%3AGermany")
	wantStatus(t, "filtered", filtered, http.StatusOK)
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], to)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j]
}
