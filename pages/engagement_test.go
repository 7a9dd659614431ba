package pages_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The dashboard's Top pages show each page's time on page and scroll depth, "–" where no
// engagement came for it.
func TestTopPagesEngagement(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "example.com")
	const day = "2026-03-02"
	e.Count(id, day, "page", map[string]int64{"/read": 4, "/glance": 2})
	e.Count(id, day, "engaged_visit", map[string]int64{"/read": 2})
	e.Count(id, day, "engaged_ms", map[string]int64{"/read": 146_000})
	e.Count(id, day, "scroll_visit", map[string]int64{"/read": 2})
	e.Count(id, day, "scroll_sum", map[string]int64{"/read": 130})
	p := e.browser().get("/stats/example.com?from=" + day + "&to=" + day)
	wantStatus(t, "dashboard", p, http.StatusOK)
	card := regexp.MustCompile(`(?s)<section class="card top[^"]*"[^>]* data-stat="page">.*?</section>`).FindString(p.body)
	if !strings.Contains(card, "Time on page") || !strings.Contains(card, "Scroll depth") {
		t.Fatalf("no engagement columns in the top pages:\n%s", card)
	}
	cells := regexp.MustCompile(`<td class="num">([^<]*)</td>`).FindAllStringSubmatch(card, -1)
	var got []string
	for _, c := range cells {
		got = append(got, c[1])
	}
	if want := "4 | 1 min 13 s | 65\u202f% | 2 | – | –"; strings.Join(got, " | ") != want {
		t.Fatalf("top pages' numbers %q, want %q", strings.Join(got, " | "), want)
	}
}

// Browsers of the engagement tests' two visitors.
const (
	chromeUA  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
)

// trackAs sends one hit to POST /api/event as a tracker in the browser userAgent would.
func (e *env) trackAs(userAgent, body string) {
	e.T.Helper()
	req, err := http.NewRequest("POST", e.Server.URL+"/api/event", strings.NewReader(body))
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("User-Agent", userAgent)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		e.T.Fatalf("track %s: %d", body, res.StatusCode)
	}
}

// engagedVisits sends, through the collector, two visits of example.com that engage with its
// pages, and flushes once both have ended:
//   - Chrome views /read (engaged 40 s, scrolled to 70 %), /other (3 s, no scroll depth), and
//     /read again (20 s more, scrolled to 50 %): on /read 60 s, deepest 70 %;
//   - Firefox views /read (10 s, 100 %).
//
// So /read has 35 s and 85 % over both visits, 60 s and 70 % for Chrome's alone; /other 3 s
// and no scroll depth.
func engagedVisits(t *testing.T, e *env) {
	t.Helper()
	for _, hit := range []struct{ ua, body string }{
		{chromeUA, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{chromeUA, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":40000,"sd":70}`},
		{chromeUA, `{"n":"pageview","d":"example.com","u":"https://example.com/other"}`},
		{chromeUA, `{"n":"engagement","d":"example.com","u":"https://example.com/other","e":3000}`},
		{chromeUA, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{chromeUA, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":20000,"sd":50}`},
		{firefoxUA, `{"n":"pageview","d":"example.com","u":"https://example.com/read"}`},
		{firefoxUA, `{"n":"engagement","d":"example.com","u":"https://example.com/read","e":10000,"sd":100}`},
	} {
		e.trackAs(hit.ua, hit.body)
	}
	e.Clock.Advance(time.Hour) // both visits end
	if err := e.App.Pipeline.Flusher.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Filtered, the Top pages and the page CSV give the time on page and scroll depth of the
// matching visits only, by the same means as unfiltered; the CSV's columns are empty where no
// engagement came.
func TestFilteredTopPagesEngagement(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	e.Site(owner.Key, "example.com")
	engagedVisits(t, e)
	b := e.browser()
	topPages := func(query string) string {
		t.Helper()
		p := b.get(encodePath("/stats/example.com?" + query))
		wantStatus(t, query, p, http.StatusOK)
		card := regexp.MustCompile(`(?s)<section class="card top[^"]*"[^>]* data-stat="page">.*?</section>`).FindString(p.body)
		var got []string
		for _, c := range regexp.MustCompile(`<td class="num">([^<]*)</td>`).FindAllStringSubmatch(card, -1) {
			got = append(got, c[1])
		}
		return strings.Join(got, " | ")
	}
	if got, want := topPages("from=2026-03-20&to=2026-03-20"), "3 | 35 s | 85\u202f% | 1 | 3 s | –"; got != want {
		t.Errorf("top pages %q, want %q", got, want)
	}
	if got, want := topPages("from=2026-03-20&to=2026-03-20&filter[browser]=Chrome"), "2 | 1 min | 70\u202f% | 1 | 3 s | –"; got != want {
		t.Errorf("top pages of Chrome %q, want %q", got, want)
	}
	if got, want := topPages("from=2026-03-20&to=2026-03-20&filter[browser]=Firefox"), "1 | 10 s | 100\u202f%"; got != want {
		t.Errorf("top pages of Firefox %q, want %q", got, want)
	}
	for query, want := range map[string]string{
		"":                         "value,count,time_on_page,scroll_depth\r\n/read,3,35,85\r\n/other,1,3,\r\n",
		"&filter[browser]=Chrome":  "value,count,time_on_page,scroll_depth\r\n/read,2,60,70\r\n/other,1,3,\r\n",
		"&filter[browser]=Firefox": "value,count,time_on_page,scroll_depth\r\n/read,1,10,100\r\n",
		"&filter[browser]=Safari":  "value,count,time_on_page,scroll_depth\r\n",
	} {
		p := b.get(encodePath("/stats/example.com/export?name=page&from=2026-03-20&to=2026-03-20" + query))
		wantStatus(t, "export"+query, p, http.StatusOK)
		if p.body != want {
			t.Errorf("export%s\n%q\nwant\n%q", query, p.body, want)
		}
	}
}
