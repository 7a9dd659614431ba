package pages_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

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
	if err != nil || len(mine) != 1 {
		t.Fatalf("owner's segments after refusals: %v %v", mine, err)
	}
	path := fmt.Sprintf("/websites/%d/segments/%d", id, mine[0].ID)
	wantStatus(t, "the viewer renames the owner's", viewer.post(path+"/rename", url.Values{"name": {"mine now"}}), http.StatusNotFound)
	wantStatus(t, "the viewer deletes the owner's", viewer.post(path+"/delete", nil), http.StatusNotFound)
	wantStatus(t, "rename to nothing", owner.post(path+"/rename", url.Values{"name": {""}}), http.StatusUnprocessableEntity)
	wantStatus(t, "rename", owner.post(path+"/rename", url.Values{"name": {"Germany"}}), http.StatusSeeOther)
	if got, _ := e.Repo.Segment(context.Background(), id, o.ID, mine[0].ID); got.Name != "Germany" {
		t.Errorf("renamed to %q", got.Name)
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
