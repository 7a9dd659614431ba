package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The CSV holds every value of the range with its exact count, in the API's default order,
// quoted as RFC 4180 says, and defused for spreadsheets.
func TestExport(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "csv.example")
	values := map[string]int64{
		`/plain`:                     9,
		`/with,comma`:                9, // ties break by value ascending
		`/with "quotes"`:             7,
		"/with\nnewline":             5,
		`=HYPERLINK("http://x","y")`: 4,
		`+1`:                         3,
		`-2`:                         3,
		`@SUM(A1)`:                   2,
		"\tTab":                      2,
		"":                           1,
	}
	for i := 0; i < 150; i++ { // more than any page of the API
		values[fmt.Sprintf("/many/%03d", i)] = 1
	}
	e.Count(id, "2026-03-10", "page", values)
	e.Count(id, "2026-03-11", "page", map[string]int64{`/plain`: 1000})
	e.Count(id, "2026-02-10", "page", map[string]int64{`/outside`: 50}) // before the range

	p := e.browser().get("/stats/csv.example/export?name=page&from=2026-03-01&to=2026-03-31")
	wantStatus(t, "export", p, http.StatusOK)
	if cd := p.header.Get("Content-Disposition"); cd != `attachment; filename="csv.example-page-2026-03-01-2026-03-31.csv"` {
		t.Fatalf("Content-Disposition %q", cd)
	}
	// A page's time on page and scroll depth: empty, no engagement came (engagement_test.go).
	wantStart := "value,count,time_on_page,scroll_depth\r\n" +
		"/plain,1009,,\r\n" +
		"\"/with,comma\",9,,\r\n" +
		"\"/with \"\"quotes\"\"\",7,,\r\n" +
		"\"/with\nnewline\",5,,\r\n" +
		"\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",4,,\r\n" +
		"'+1,3,,\r\n" +
		"'-2,3,,\r\n" +
		"\"'\tTab\",2,,\r\n" + // byte order: tab before @; a tab is quoted
		"'@SUM(A1),2,,\r\n" +
		",1,,\r\n" +
		"/many/000,1,,\r\n"
	if !strings.HasPrefix(p.body, wantStart) {
		t.Fatalf("export starts\n%q\nwant\n%q", p.body[:min(len(p.body), len(wantStart)+40)], wantStart)
	}
	if lines := strings.Count(p.body, "\r\n"); lines != 1+10+150 || strings.Contains(p.body, "/outside") {
		t.Fatalf("%d lines (want 161), or a value outside the range", lines)
	}
	if !strings.HasSuffix(p.body, "/many/149,1,,\r\n") {
		t.Fatalf("export ends %q", p.body[len(p.body)-40:])
	}

	// The same range through the API sums to the same numbers.
	status, body := e.api("GET", fmt.Sprintf("/api/v1/stats/%d?name=page&from=2026-03-01&to=2026-03-31&per_page=10", id), owner.Key, nil)
	var api struct {
		Data []struct {
			Value string
			Count int64
		}
		Meta struct{ Total int64 }
	}
	if status != 200 || json.Unmarshal([]byte(body), &api) != nil || api.Meta.Total != 160 ||
		api.Data[0].Value != "/plain" || api.Data[0].Count != 1009 || api.Data[1].Value != "/with,comma" {
		t.Fatalf("the API disagrees: %d %s", status, body)
	}
}

// A campaign holding a spreadsheet's list separator of another locale (";") and a formula
// after it, sent by a real hit through the collector, exports as one quoted cell: opened in a
// German or French spreadsheet, an unquoted "x;=1+2;" would be three cells, the second a
// formula that runs.
func TestExportQuotesSeparators(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "semi.example")
	e.track(`{"page": "https://semi.example/?utm_campaign=x%3B%3D1%2B2%3B"}`)
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := e.browser().get("/stats/semi.example/export?name=campaign&from=2026-03-01&to=2026-03-31")
	wantStatus(t, "export", p, http.StatusOK)
	want := "value,count\r\n\"x;=1+2;\",1\r\n"
	if p.body != want {
		t.Fatalf("export\n%q\nwant\n%q", p.body, want)
	}
}

// pageview and visitor count days (their values are dates): their CSV is a time series, by
// date ascending, whatever the counts; the other statistics keep count descending.
func TestExportDailySeries(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "series.example")
	counts := map[string]int64{"2026-03-09": 5, "2026-03-10": 50, "2026-03-11": 7, "2026-03-12": 50}
	for day, n := range counts {
		e.Count(id, day, "pageview", map[string]int64{day: n})
		e.Count(id, day, "visitor", map[string]int64{day: n / 2})
		e.Count(id, day, "page", map[string]int64{"/" + day: n})
	}
	b := e.browser()
	for _, tc := range []struct{ name, want string }{
		{"pageview", "value,count\r\n2026-03-09,5\r\n2026-03-10,50\r\n2026-03-11,7\r\n2026-03-12,50\r\n"},
		{"visitor", "value,count\r\n2026-03-09,2\r\n2026-03-10,25\r\n2026-03-11,3\r\n2026-03-12,25\r\n"},
		{"page", "value,count,time_on_page,scroll_depth\r\n/2026-03-10,50,,\r\n/2026-03-12,50,,\r\n/2026-03-11,7,,\r\n/2026-03-09,5,,\r\n"},
	} {
		p := b.get("/stats/series.example/export?name=" + tc.name + "&from=2026-03-01&to=2026-03-31")
		wantStatus(t, tc.name, p, http.StatusOK)
		if p.body != tc.want {
			t.Errorf("%s export\n%q\nwant\n%q", tc.name, p.body, tc.want)
		}
	}
}

// A stats page with parameters it cannot use says which, in a readable page; never a 500 and
// never a silent fallback.
func TestStatsPageParameters(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "params.example")
	for i := 0; i < 30; i++ {
		e.Count(id, "2026-03-10", "page", map[string]int64{fmt.Sprintf("/p%02d", i): int64(100 - i)})
	}
	b := e.browser()
	bad := []struct{ path, says string }{
		{"/stats/params.example?from=2026-02-30", "from must be a date in the form YYYY-MM-DD"},
		{"/stats/params.example?from=2026-03-10&to=2026-03-01", "to must be a date after or equal to from"},
		{"/stats/params.example?from=2000-01-01&to=2026-03-01", "from must be at most 10 years before to"},
		{"/stats/params.example?from=2026-03-01&from=2026-03-02", "from must be sent once"},
		{"/stats/params.example/page?per_page=7", "per_page must be one of 10, 25, 50, 100"},
		{"/stats/params.example/page?sort=up", "sort must be one of desc, asc"},
		{"/stats/params.example/page?sort_by=name", "sort_by must be one of count, value"},
		{"/stats/params.example/page?page=0", "page must be a whole number from 1"},
		{"/stats/params.example/page?page=x", "page must be a whole number from 1"},
		{"/stats/params.example/page?page=1000000001", "page must be a whole number from 1"}, // the API's bound
		{"/stats/params.example/page?search_by=domain", "search_by must be one of value"},
		{"/stats/params.example/page?search=" + strings.Repeat("%C3%A9", 256), "search must be at most 255 characters"},
		{"/stats/params.example/page?search=%FF", "search must be UTF-8 text without NUL characters"},
		{"/stats/params.example/page?search=a%00b", "search must be UTF-8 text without NUL characters"},
		{"/stats/params.example/export", "name is required"},
		{"/stats/params.example/export?name=pages", "name must be one of the statistics"},
		{"/stats/params.example/export?name=page&to=nope", "to must be a date"},
	}
	for _, c := range bad {
		p := b.get(c.path)
		wantStatus(t, c.path, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.body, c.says) || !strings.Contains(p.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: the page does not say %q:\n%s", c.path, c.says, p.body)
		}
	}
	// Dates the dashboard cannot show: its picker, with the dates as sent and the refusal beside
	// the field, the presets and the filters kept; not a page of errors.
	p := b.get("/stats/params.example?from=2026-03-10&to=2026-03-01&filter%5Bcountry%5D=DE")
	wantStatus(t, "from after to", p, http.StatusUnprocessableEntity)
	for _, want := range []string{`class="range-form"`, `id="from" name="from" type="date" required value="2026-03-10"`,
		`id="to" name="to" type="date" required value="2026-03-01" aria-invalid="true" aria-describedby="to-error"`,
		`<p class="error-text" id="to-error">to must be a date after or equal to from</p>`,
		`<input type="hidden" name="filter[country]" value="DE">`,
		`href="/stats/params.example?filter%5Bcountry%5D=DE&amp;from=2026-03-14&amp;to=2026-03-20" data-key="w"><span>Last 7 days</span>`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("from after to: the page lacks %s:\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, "Invalid address") {
		t.Error("from after to: an error page, not the picker")
	}
	for _, path := range []string{"/stats/params.example/pages", "/stats/params.example/export/x", "/stats/-bad-/page", "/stats/"} {
		wantStatus(t, path, b.get(path), http.StatusNotFound)
	}
	wantStatus(t, "DELETE a stats page", b.do(mustRequest(t, "DELETE", e.Server.URL+"/stats/params.example")), http.StatusMethodNotAllowed)

	// A domain written as a person would is sent to its canonical address.
	p = b.get("/stats/WWW.Params.Example/page?page=2")
	wantStatus(t, "non-canonical domain", p, http.StatusMovedPermanently)
	if loc := p.header.Get("Location"); loc != "/stats/params.example/page?page=2" {
		t.Fatalf("canonical redirect to %q", loc)
	}

	// Paging, searching and sorting as in the API.
	list := b.get("/stats/params.example/page?from=2026-03-01&to=2026-03-20&per_page=10&page=2")
	wantStatus(t, "page 2", list, http.StatusOK)
	if !strings.Contains(list.body, "11–20 of 30") || !strings.Contains(list.body, ">/p10<") || strings.Contains(list.body, ">/p09<") {
		t.Fatalf("page 2 of 10:\n%s", list.body)
	}
	if !strings.Contains(list.body, `href="/stats/params.example/page?from=2026-03-01&amp;page=3&amp;per_page=10&amp;to=2026-03-20"`) {
		t.Fatalf("the next link does not keep the parameters:\n%s", list.body)
	}
	past := b.get("/stats/params.example/page?from=2026-03-01&to=2026-03-20&per_page=10&page=9")
	wantStatus(t, "past the end", past, http.StatusOK)
	if !strings.Contains(past.body, "past the end") {
		t.Fatal("a page past the end does not say so")
	}
	last := b.get("/stats/params.example/page?from=2026-03-01&to=2026-03-20&per_page=10&page=1000000000")
	wantStatus(t, "the last page allowed", last, http.StatusOK)
	if !strings.Contains(last.body, "past the end") {
		t.Fatal("the last page allowed is not past the end")
	}
	// The bound counts characters, as the API's maxLength does, not bytes.
	wantStatus(t, "255 two-byte characters", b.get("/stats/params.example/page?search="+strings.Repeat("%C3%A9", 255)), http.StatusOK)
	found := b.get("/stats/params.example/page?from=2026-03-01&to=2026-03-20&search=P2&sort_by=value&sort=desc")
	if !strings.Contains(found.body, "1–10 of 10") || strings.Index(found.body, ">/p29<") > strings.Index(found.body, ">/p20<") {
		t.Fatalf("search and sort:\n%s", found.body)
	}
}
