package pages_test

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// visitorsCard is the dashboard's "Unique visitors" card: its number, its change and what
// the change is against.
var visitorsCard = regexp.MustCompile(`Unique visitors</div>\s*<div class="number">([^<]*)</div>\s*<div class="counts[^"]*">[^<]*</div>\s*<div class="change [a-z]+">([^<]*)<span class="muted">vs\. ([^<]*)</span>`)

// The dashboard's comparison: the cards' change is against the compared days (as the API's
// summary counts them), the chart draws their dashed lines and its table their numbers, the
// presets keep the comparison, and a stranger's markup stays text.
func TestDashboardComparison(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "compare.example")
	e.seedMonth(id)
	b := e.browser().signIn(owner)
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, -9).Format(time.DateOnly), today.Format(time.DateOnly)
	for _, c := range []struct {
		query  string
		before string // what the cards say they compare with
	}{
		{"", "the 10 days before"},
		{"comparison=previous_period", "the 10 days before"},
		{"comparison=previous_period&match_day_of_week=false", "the 10 days before"},
		{"comparison=year_over_year", "the same days a year before"},
		{"comparison=custom&compare_from=" + today.AddDate(0, 0, -40).Format(time.DateOnly) + "&compare_to=" + today.AddDate(0, 0, -35).Format(time.DateOnly), "the chosen days"},
		// The form sends empty dates with the other modes: they are no custom days.
		{"comparison=previous_period&compare_from=&compare_to=", "the 10 days before"},
		{"comparison=&compare_from=&compare_to=&match_day_of_week=true", "the 10 days before"},
	} {
		t.Run(c.query, func(t *testing.T) {
			q := "from=" + from + "&to=" + to + "&" + c.query
			p := b.get("/stats/compare.example?" + q)
			wantStatus(t, "dashboard", p, http.StatusOK)
			m := visitorsCard.FindStringSubmatch(p.body)
			if m == nil {
				t.Fatalf("no visitors card:\n%s", p.body)
			}
			// The API's summary with the same parameters (without one: the days before).
			api := q
			if !strings.Contains(c.query, "comparison=") || strings.Contains(c.query, "comparison=&") {
				api = "from=" + from + "&to=" + to + "&comparison=previous_period&match_day_of_week=false"
			}
			api = strings.NewReplacer("&compare_from=&compare_to=", "", "&match_day_of_week=true", "").Replace(api)
			status, raw := e.api("GET", fmt.Sprintf("/api/v1/stats/%d/summary?%s", id, api), owner.Key, nil)
			var s struct {
				Data       struct{ Visitors int64 }
				Comparison struct {
					From, To string
					Data     struct{ Visitors int64 }
				}
			}
			if err := json.Unmarshal([]byte(raw), &s); err != nil || status != http.StatusOK {
				t.Fatalf("API %s: %d %s", api, status, raw)
			}
			now, before := s.Data.Visitors, s.Comparison.Data.Visitors
			yoy := strings.Contains(c.query, "year_over_year") // 45 days of data: nothing a year before
			if now == 0 || (before == 0) != yoy || now == before {
				t.Fatalf("the data makes %d against %d: a case that tells nothing", now, before)
			}
			change := "new"
			if !yoy {
				change = fmt.Sprintf("%+d%%", int64(math.Round(float64(now-before)*100/float64(before))))
			}
			if got := html.UnescapeString(m[2]); strings.TrimSpace(got) != change {
				t.Errorf("change %q, want %q (%d against %d)", got, change, now, before)
			}
			if got := strings.ReplaceAll(html.UnescapeString(m[1]), "\u202f", ""); got != strconv.FormatInt(now, 10) {
				t.Errorf("visitors %q, want %d", got, now)
			}
			wantBefore := c.before
			if got := strings.ReplaceAll(html.UnescapeString(m[3]), "\u202f", ""); got != strconv.FormatInt(before, 10) {
				t.Errorf("against %q, want %d", got, before)
			}
			note := fmt.Sprintf("Changes compare each number with %s (%s – %s).", wantBefore,
				day(s.Comparison.From).Format("2 Jan 2006"), day(s.Comparison.To).Format("2 Jan 2006"))
			if !strings.Contains(html.UnescapeString(p.body), note) {
				t.Errorf("the page does not say %q", note)
			}
			on := c.query != "" && !strings.HasPrefix(c.query, "comparison=&")
			if got := strings.Contains(p.body, `class="cmp-line" d="M`); got != on {
				t.Errorf("dashed line drawn: %v, want %v", got, on)
			}
			if got := strings.Contains(p.body, `<th scope="col">Compared with</th>`); got != on {
				t.Errorf("table's comparison columns: %v, want %v", got, on)
			}
			if on && !regexp.MustCompile(`href="[^"]*comparison=[^"]*" data-key="w"`).MatchString(p.body) {
				t.Errorf("the period menu does not keep the comparison")
			}
			if on {
				// A list's row: the value's count on the compared days, as the API's list has it.
				status, raw := e.api("GET", fmt.Sprintf("/api/v1/stats/%d?name=page&from=%s&to=%s&per_page=100", id, s.Comparison.From, s.Comparison.To), owner.Key, nil)
				var list struct {
					Data []struct {
						Value string
						Count int64
					}
				}
				if err := json.Unmarshal([]byte(raw), &list); err != nil || status != http.StatusOK {
					t.Fatalf("API list: %d %s", status, raw)
				}
				for _, entry := range list.Data {
					if entry.Value != "/pricing" && entry.Value != "/<script>alert(1)</script>" {
						continue
					}
					row := regexp.MustCompile(`title="` + regexp.QuoteMeta(html.EscapeString(entry.Value)) + `">.*?</td>\s*<td class="num">([^<]*)<span class="row-cmp">([^<]*)</span>`).FindStringSubmatch(p.body)
					if row == nil {
						t.Fatalf("no row of %s with its comparison", entry.Value)
					}
					nowCount, _ := strconv.ParseInt(strings.ReplaceAll(html.UnescapeString(row[1]), "\u202f", ""), 10, 64)
					want := fmt.Sprintf("was %d, %+d%%", entry.Count, int64(math.Round(float64(nowCount-entry.Count)*100/float64(entry.Count))))
					if got := strings.ReplaceAll(html.UnescapeString(row[2]), "\u202f", ""); got != want {
						t.Errorf("row %s: %q, want %q", entry.Value, got, want)
					}
				}
			}
			if strings.Contains(p.body, "<script>alert(1)") {
				t.Error("a page path's markup is in the page as markup")
			}
		})
	}
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// A comparison the dashboard cannot show is a 422 page naming the parameter, never a 500.
func TestDashboardComparisonRefusals(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "compare.example")
	e.seedMonth(id)
	b := e.browser().signIn(owner)
	for _, c := range []struct{ query, says string }{
		{"from=2026-03-01&to=2026-03-07&comparison=nope", "comparison must be one of"},
		{"from=2026-03-01&to=2026-03-07&comparison=custom", "compare_from is required"},
		{"from=2026-03-01&to=2026-03-07&comparison=custom&compare_from=2026-02-10&compare_to=2026-02-01", "compare_to must be a date after"},
		{"from=2026-03-01&to=2026-03-07&comparison=custom&compare_from=2026-02-10&compare_to=10000-01-01", "compare_to"},
		{"from=2026-03-01&to=2026-03-07&comparison=previous_period&compare_from=2026-02-10", "comparison must be custom"},
		{"from=2026-03-01&to=2026-03-07&comparison=previous_period&match_day_of_week=maybe", "match_day_of_week must be true or false"},
		{"from=0001-06-01&to=0001-06-05&comparison=year_over_year", "outside the dates 0001-01-01 to 9999-12-31"},
		{"from=2026-03-01&to=2026-03-07&comparison=previous_period&comparison=custom", "comparison must be sent once"},
	} {
		t.Run(c.query, func(t *testing.T) {
			p := b.get("/stats/compare.example?" + c.query)
			wantStatus(t, "dashboard", p, http.StatusUnprocessableEntity)
			if text := html.UnescapeString(p.body); !strings.Contains(text, c.says) {
				t.Errorf("the page does not say %q:\n%s", c.says, text)
			}
		})
	}
}

// The comparison in Chromium, as a person uses it: the form chosen and sent (no script
// needed) draws the dashed lines; at a desktop's and a phone's width nothing is wider than
// the screen and axe-core finds nothing serious. Screenshots: SCREENSHOT_DIR/comparison-*.png.
func TestDashboardComparisonInChromium(t *testing.T) {
	check := newPageChecker(t)
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "compare.example")
	e.seedMonth(id)
	ctx := newTab(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); tabDo(t, ctx, steps...) }
	signInTab(t, ctx, e.Server.URL, owner, "table.sites")
	today := e.Clock.Now().UTC().Truncate(24 * time.Hour)
	page := fmt.Sprintf("%s/stats/compare.example?from=%s&to=%s&sources=source", e.Server.URL,
		today.AddDate(0, 0, -20).Format(time.DateOnly), today.Format(time.DateOnly))
	do(viewportOf(1280), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#comparison")))
	var lines int
	tabEval(t, ctx, `document.querySelectorAll(".cmp-line").length`, &lines)
	if lines != 0 {
		t.Fatalf("%d dashed lines before a comparison is chosen", lines)
	}
	do(chromedp.SetValue(chromedp.CSS("#comparison"), "previous_period"),
		chromedp.Click(chromedp.CSS(".compare-form button")),
		chromedp.WaitVisible(chromedp.CSS(".chart-wide .cmp-line")))
	var loc string
	tabEval(t, ctx, `location.search`, &loc)
	if !strings.Contains(loc, "comparison=previous_period") || !strings.Contains(loc, "sources=source") || !strings.Contains(loc, "from=") {
		t.Errorf("the form sent %s: not the comparison with the range and the other parameters kept", loc)
	}
	tabEval(t, ctx, `document.querySelectorAll(".cmp-line").length`, &lines)
	if lines != 2 { // one line, wide and compact
		t.Errorf("%d dashed lines, want 2", lines)
	}
	// A row's comparison shows when its link has the focus (the keyboard's hover).
	var shown string
	tabEval(t, ctx, `(() => { const a = document.querySelector("main").closest("main").querySelector(".top a.filter-link");
		a.focus(); const c = a.closest("tr").querySelector(".row-cmp"); return getComputedStyle(c).display + " " + c.textContent })()`, &shown)
	if !strings.HasPrefix(shown, "block was ") {
		t.Errorf("a focused row's comparison: %q", shown)
	}
	var pwned bool
	tabEval(t, ctx, `document.querySelector("main script") !== null`, &pwned)
	if pwned {
		t.Error("a page path's markup became an element")
	}
	compared := e.Server.URL + "/stats/compare.example" + loc
	for _, width := range []int64{1280, 375} {
		do(viewportOf(width), chromedp.Navigate(compared), chromedp.WaitVisible(chromedp.CSS("#comparison")))
		auditPage(t, ctx, check.axe, check.shots, "comparison-dashboard", width)
		shootElement(t, ctx, ".chart", filepath.Join(check.shots, fmt.Sprintf("comparison-chart-%d.png", width)))
	}
}
