package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/testkit/harness"
)

func segmentsPath(site any) string { return fmt.Sprintf("/api/v1/websites/%v/segments", site) }

func (e *env) storeSegment(key string, site any, fields ...string) harness.Response {
	e.T.Helper()
	form := url.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Set(fields[i], fields[i+1])
	}
	return e.Do(harness.Request{Method: "POST", Path: segmentsPath(site), Key: key, Form: form})
}

func segmentNames(t *testing.T, e *env, key string, site any) string {
	t.Helper()
	var names []string
	for _, s := range want(t, e.Do(harness.Request{Path: segmentsPath(site), Key: key}), http.StatusOK)["data"].([]any) {
		seg := s.(map[string]any)
		names = append(names, fmt.Sprint(seg["name"], ":", seg["type"]))
	}
	return strings.Join(names, ",")
}

const germany = `[["is", "visit:country", ["DE"]]]`

// TestSegmentsAPI: personal segments for any role, the website's for editors, each seen only
// by whom it is for; a segment of another website or user answers 404; bad fields 422 with
// nothing stored.
func TestSegmentsAPI(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	site := e.Site(owner.Key, "example.com")
	viewer, editor := e.User("viewer@example.com"), e.User("editor@example.com")
	e.Member(site, owner, viewer, repository.RoleViewer)
	e.Member(site, owner, editor, repository.RoleEditor)
	stranger := e.User("stranger@example.com")
	other := e.Site(stranger.Key, "other.example")

	mine := want(t, e.storeSegment(viewer.Key, site, "name", "Mine", "filters", germany), http.StatusCreated)["data"].(map[string]any)
	if mine["type"] != "personal" || fmt.Sprint(mine["filters"]) != "[[is visit:country [DE]]]" {
		t.Errorf("stored %v", mine)
	}
	want(t, e.storeSegment(viewer.Key, site, "name", "Site", "type", "site", "filters", germany), http.StatusForbidden)
	siteSeg := want(t, e.storeSegment(editor.Key, site, "name", "Everyone", "type", "site", "filters", germany), http.StatusCreated)["data"].(map[string]any)
	want(t, e.storeSegment(owner.Key, site, "name", "owner's", "filters", `[["contains", "event:page", ["/blog"]]]`), http.StatusCreated)
	theirs := want(t, e.storeSegment(stranger.Key, other, "name", "Elsewhere", "filters", germany), http.StatusCreated)["data"].(map[string]any)

	if got := segmentNames(t, e, viewer.Key, site); got != "Everyone:site,Mine:personal" {
		t.Errorf("viewer sees %s", got)
	}
	if got := segmentNames(t, e, owner.Key, site); got != "Everyone:site,owner's:personal" {
		t.Errorf("owner sees %s", got)
	}
	wantNotFound(t, e.Do(harness.Request{Path: segmentsPath(site), Key: stranger.Key}))
	wantNotFound(t, e.storeSegment(stranger.Key, site, "name", "x", "filters", germany))

	path := func(s map[string]any) string { return fmt.Sprint(segmentsPath(site), "/", s["id"]) }
	patch := func(key, p string, form url.Values) harness.Response {
		return e.Do(harness.Request{Method: "PATCH", Path: p, Key: key, Form: form})
	}
	// Another user's personal segment, and another website's, are unknown here.
	want(t, patch(owner.Key, path(mine), url.Values{"name": {"taken over"}}), http.StatusNotFound)
	want(t, patch(owner.Key, path(theirs), url.Values{"name": {"x"}}), http.StatusNotFound)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: path(theirs), Key: owner.Key}), http.StatusNotFound)
	// The website's segments need editor.
	want(t, patch(viewer.Key, path(siteSeg), url.Values{"name": {"x"}}), http.StatusForbidden)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: path(siteSeg), Key: viewer.Key}), http.StatusForbidden)
	want(t, patch(viewer.Key, path(mine), url.Values{"type": {"site"}}), http.StatusForbidden)
	renamed := want(t, patch(viewer.Key, path(mine), url.Values{"name": {"  Renamed  "}}), http.StatusOK)["data"].(map[string]any)
	if renamed["name"] != "Renamed" || renamed["type"] != "personal" {
		t.Errorf("renamed: %v", renamed)
	}
	// An editor makes the website's segment personal: it becomes the editor's.
	want(t, patch(editor.Key, path(siteSeg), url.Values{"type": {"personal"}}), http.StatusOK)
	if got := segmentNames(t, e, viewer.Key, site); got != "Renamed:personal" {
		t.Errorf("viewer sees %s", got)
	}

	// Bad input: 422 naming the field, nothing stored or changed.
	bad := []struct{ fields []string }{
		{[]string{"name", "", "filters", germany}},
		{[]string{"name", strings.Repeat("n", 81), "filters", germany}},
		{[]string{"name", "x"}},
		{[]string{"name", "x", "filters", "not json"}},
		{[]string{"name", "x", "filters", "[]"}},
		{[]string{"name", "x", "filters", `[["is", "visit:nothing", ["a"]]]`}},
		{[]string{"name", "x", "filters", `[["is", "segment", [1]]]`}},
		{[]string{"name", "x", "filters", `[["matches", "event:page", ["("]]]`}},
		{[]string{"name", "x", "filters", germany, "type", "team"}},
		{[]string{"name", "x", "filters", germany, "color", "red"}},
	}
	for _, b := range bad {
		res := e.storeSegment(owner.Key, site, b.fields...)
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%q: %d %s", b.fields, res.Status, res.Body)
		}
		want(t, res, http.StatusUnprocessableEntity)
	}
	wantField(t, e.storeSegment(owner.Key, site, "name", "x", "filters", `[["is", "visit:nothing", ["a"]]]`), "filters")
	wantField(t, patch(viewer.Key, path(mine), url.Values{"filters": {`[["is", "segment", [1]]]`}}), "filters")
	if got := segmentNames(t, e, owner.Key, site); got != "owner's:personal" {
		t.Errorf("after refusals the owner sees %s", got)
	}

	want(t, e.Do(harness.Request{Method: "DELETE", Path: path(mine), Key: viewer.Key}), http.StatusOK)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: path(mine), Key: viewer.Key}), http.StatusNotFound)
}

// TestSegmentsLimit: a website holds at most MaxSegments segments; the next is a 422.
func TestSegmentsLimit(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	site := e.Site(owner.Key, "example.com")
	if _, err := e.DB.ExecContext(context.Background(), `INSERT INTO segments (website_id, name, filters, created_at, updated_at)
		SELECT $1, 'S' || n, '[["is", "visit:country", ["DE"]]]', now(), now() FROM generate_series(1, $2) n`, site, repository.MaxSegments); err != nil {
		t.Fatal(err)
	}
	wantField(t, e.storeSegment(owner.Key, site, "name", "one more", "filters", germany), "name")
}

// TestSegmentFilter: the query API's ["is", "segment", [ID]] counts what the segment's
// filters count; a segment the key's user cannot see is a 400. A segment saved from the
// dashboard's filters counts what the dashboard (v1's filters) counts.
func TestSegmentFilter(t *testing.T) {
	e, key, _ := queryEnv(t)
	site := e.Site(key, "second.example")
	stranger := e.User("stranger@example.com")
	strangerSite := e.Site(stranger.Key, "stranger.example")
	id := func(res harness.Response) string {
		return fmt.Sprint(want(t, res, http.StatusCreated)["data"].(map[string]any)["id"])
	}
	mainSite := int64(0)
	if err := e.DB.GetContext(context.Background(), &mainSite, `SELECT id FROM websites WHERE domain = 'example.com'`); err != nil {
		t.Fatal(err)
	}
	inline := `[["is", "visit:country", ["DE"]], ["contains", "event:page", ["/pri"]]]`
	seg := id(e.storeSegment(key, mainSite, "name", "de", "filters", inline))
	q := func(filters string) string {
		return `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews"], "date_range": ["2026-02-25", "2026-03-03"], "dimensions": ["visit:browser"], "filters": ` + filters + `}`
	}
	_, want1 := wantQuery(t, e.query(key, q(inline)))
	_, got := wantQuery(t, e.query(key, q(`[["is", "segment", [`+seg+`]]]`)))
	_, everything := wantQuery(t, e.query(key, q(allRows)))
	if fmt.Sprint(got) != fmt.Sprint(want1) || fmt.Sprint(got) == fmt.Sprint(everything) {
		t.Errorf("segment: %v, its filters: %v (unfiltered %v)", got, want1, everything)
	}

	otherSite := id(e.storeSegment(key, site, "name", "x", "filters", germany))
	theirs := id(e.storeSegment(stranger.Key, strangerSite, "name", "x", "filters", germany))
	for _, s := range []string{otherSite, theirs, "999999"} {
		wantQueryError(t, e.query(key, q(`[["is", "segment", [`+s+`]]]`)), http.StatusBadRequest, "segment "+s, "does not exist or is not accessible")
	}

	// The dashboard's filters, saved as a segment, count as v1 counts them.
	address := url.Values{"filter[country]": {"DE:Germany"}, "filter_any[browser]": {"Firefox|Chrome"},
		"filter_not[page]": {"/docs?q=a&b"}, "filter[device]": {"desktop"}}
	filters, err := stats.ParseFilters(address)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := query.DashboardSegment(filters)
	if err != nil {
		t.Fatal(err)
	}
	dash := id(e.storeSegment(key, mainSite, "name", "dashboard", "filters", string(saved)))
	summary := want(t, e.Do(harness.Request{Path: fmt.Sprintf("/api/v1/stats/%d/summary?from=2026-02-25&to=2026-03-03&%s", mainSite, address.Encode()), Key: key}),
		http.StatusOK)["data"].(map[string]any)
	_, lines := wantQuery(t, e.query(key, `{"site_id": "example.com", "metrics": ["visitors", "visits", "pageviews"], "date_range": ["2026-02-25", "2026-03-03"], "filters": [["is", "segment", [`+dash+`]]]}`))
	if want := fmt.Sprint([]any{}, "=", []any{summary["visitors"], summary["visits"], summary["pageviews"]}); len(lines) != 1 || lines[0] != want {
		t.Errorf("dashboard segment: %v, v1's filters: %s", lines, want)
	}
}

func annotationsPath(site any) string { return fmt.Sprintf("/api/v1/websites/%v/annotations", site) }

// TestAnnotationsAPI: notes of 1..300 characters on a day, personal or the website's as
// segments, listed by day within from..to.
func TestAnnotationsAPI(t *testing.T) {
	e := newEnv(t)
	owner := e.User("owner@example.com")
	site := e.Site(owner.Key, "example.com")
	viewer := e.User("viewer@example.com")
	e.Member(site, owner, viewer, repository.RoleViewer)
	stranger := e.User("stranger@example.com")
	store := func(key string, fields ...string) harness.Response {
		form := url.Values{}
		for i := 0; i+1 < len(fields); i += 2 {
			form.Set(fields[i], fields[i+1])
		}
		return e.Do(harness.Request{Method: "POST", Path: annotationsPath(site), Key: key, Form: form})
	}
	long := strings.Repeat("é", 300)
	a := want(t, store(owner.Key, "date", "2026-03-10", "note", long, "type", "site"), http.StatusCreated)["data"].(map[string]any)
	if a["note"] != long || a["date"] != "2026-03-10" || a["type"] != "site" {
		t.Errorf("stored %v", a)
	}
	want(t, store(viewer.Key, "date", "2026-03-02", "note", "<b>mine</b>"), http.StatusCreated)
	want(t, store(viewer.Key, "date", "2026-03-02", "note", "site", "type", "site"), http.StatusForbidden)
	wantNotFound(t, store(stranger.Key, "date", "2026-03-02", "note", "x"))
	for _, bad := range [][]string{
		{"date", "2026-03-02", "note", long + "x"},
		{"date", "2026-03-02", "note", "   "},
		{"date", "2026-03-02"},
		{"note", "x"},
		{"date", "2026-02-30", "note", "x"},
		{"date", "0000-01-01", "note", "x"},
		{"date", "2026-3-1", "note", "x"},
		{"date", "2026-03-02", "note", "x", "type", "team"},
	} {
		want(t, store(owner.Key, bad...), http.StatusUnprocessableEntity)
	}
	wantField(t, store(owner.Key, "date", "2026-03-02", "note", long+"x"), "note")

	list := func(key, q string) string {
		var out []string
		for _, x := range want(t, e.Do(harness.Request{Path: annotationsPath(site) + q, Key: key}), http.StatusOK)["data"].([]any) {
			m := x.(map[string]any)
			out = append(out, fmt.Sprint(m["date"], ":", m["type"], ":", len([]rune(m["note"].(string)))))
		}
		return strings.Join(out, ",")
	}
	if got := list(viewer.Key, ""); got != "2026-03-02:personal:11,2026-03-10:site:300" {
		t.Errorf("viewer lists %s", got)
	}
	if got := list(owner.Key, "?from=2026-03-03&to=2026-03-31"); got != "2026-03-10:site:300" {
		t.Errorf("owner lists %s", got)
	}
	want(t, e.Do(harness.Request{Path: annotationsPath(site) + "?from=2026-03-03&to=2026-03-01", Key: owner.Key}), http.StatusUnprocessableEntity)
	want(t, e.Do(harness.Request{Path: annotationsPath(site) + "?from=yesterday", Key: owner.Key}), http.StatusUnprocessableEntity)

	p := fmt.Sprint(annotationsPath(site), "/", a["id"])
	want(t, e.Do(harness.Request{Method: "PATCH", Path: p, Key: viewer.Key, Form: url.Values{"note": {"x"}}}), http.StatusForbidden)
	wantField(t, e.Do(harness.Request{Method: "PATCH", Path: p, Key: owner.Key, Form: url.Values{"note": {long + "x"}}}), "note")
	changed := want(t, e.Do(harness.Request{Method: "PATCH", Path: p, Key: owner.Key, Form: url.Values{"date": {"2026-03-11"}}}), http.StatusOK)["data"].(map[string]any)
	if changed["date"] != "2026-03-11" || changed["note"] != long {
		t.Errorf("changed %v", changed)
	}
	want(t, e.Do(harness.Request{Method: "DELETE", Path: p, Key: stranger.Key}), http.StatusNotFound)
	want(t, e.Do(harness.Request{Method: "DELETE", Path: p, Key: owner.Key}), http.StatusOK)
	want(t, e.Do(harness.Request{Method: "PATCH", Path: p, Key: owner.Key, Form: url.Values{"note": {"x"}}}), http.StatusNotFound)
}
