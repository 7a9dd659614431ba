package pages_test

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// conversionCard is the dashboard's "Conversion rate" headline number: its value and the
// change against the range before, "" when the page has no such card.
var conversionCard = regexp.MustCompile(`<div class="label">Conversion rate</div>\s*<div class="number">([^<]*)</div>\s*<div class="counts[^"]*">[^<]*</div>\s*<div class="change [a-z]+">([^<]*)<span class="muted">vs\. ([^<]*)</span>`)

// rateCardLink is the Conversion rate card as a link to the graph of the rate.
var rateCardLink = regexp.MustCompile(`<a class="card total metric-card" href="[^"]*graph_metric=conversion_rate[^"]*"[^>]*>\s*<div class="label">Conversion rate</div>`)

// Filtered by a goal, the dashboard's headline numbers end with the conversion rate: the
// goal's visitors over those of the same range and the other filters, as the API's summary
// has it, against the same rate of the range before. Without a goal filter there is none.
func TestDashboardConversionRateCard(t *testing.T) {
	e := newEnv(t)
	owner := e.UserWithPassword("owner@example.com")
	id := e.Site(owner.Key, "rate.example")
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	dayBefore := day.AddDate(0, 0, -1)
	e.Count(id, "2026-03-10", "page", map[string]int64{"/": 3})
	visit := func(d time.Time, visitor int32, pages ...string) repotest.Visit {
		return repotest.Visit{Day: d, Visitor: visitor, Pages: pages,
			Values: map[stats.Name]string{stats.LandingPage: pages[0], stats.ExitPage: pages[len(pages)-1]}}
	}
	// The range: three visitors, one converting; two of them (one converting) landed on "/".
	// The day before: four visitors, one converting.
	visits := []repotest.Visit{
		visit(day, 1, "/", "/signup/done"),
		visit(day, 2, "/"),
		visit(day, 3, "/pricing"),
		visit(dayBefore, 1, "/", "/signup/done"),
		visit(dayBefore, 2, "/"),
		visit(dayBefore, 3, "/"),
		visit(dayBefore, 4, "/about"),
	}
	repotest.WriteVisitRows(t, e.DB, id, visits)
	if _, err := e.DB.Exec(`UPDATE websites SET filters_from = '2026-03-09' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Signed up", "<script>alert(1)</script>"} {
		g := goalValues("kind", "pageview", "page", "/signup/*", "display_name", name)
		if status, body := e.api("POST", fmt.Sprintf("/api/v1/websites/%d/goals", id), owner.Key, g); status != http.StatusCreated {
			t.Fatalf("goal: %d %s", status, body)
		}
	}
	// The rate as the data above makes it: converting visitors over visitors, in percent.
	rate := func(d time.Time, landing string) string {
		var converting, all int
		for _, v := range visits {
			if !v.Day.Equal(d) || (landing != "" && v.Pages[0] != landing) {
				continue
			}
			all++
			for _, p := range v.Pages {
				if strings.HasPrefix(p, "/signup/") {
					converting++
					break
				}
			}
		}
		return percentText(100 * float64(converting) / float64(all))
	}

	b := e.browser().signIn(owner)
	dashboard := func(filters url.Values) (card []string, body string) {
		t.Helper()
		q := url.Values{"from": {"2026-03-10"}, "to": {"2026-03-10"}}
		for k, v := range filters {
			q[k] = v
		}
		p := b.get("/stats/rate.example?" + q.Encode())
		wantStatus(t, "dashboard "+filters.Encode(), p, http.StatusOK)
		if m := conversionCard.FindStringSubmatch(p.body); m != nil {
			for i := range m {
				m[i] = html.UnescapeString(m[i])
			}
			return m[1:], p.body
		}
		return nil, p.body
	}
	for _, c := range []struct {
		filters           url.Values
		now, before, diff string
	}{
		{url.Values{"filter[goal]": {"Signed up"}}, rate(day, ""), rate(dayBefore, ""), "+33% "},
		{url.Values{"filter[goal]": {"Signed up"}, "filter[landing_page]": {"/"}}, rate(day, "/"), rate(dayBefore, "/"), "+50% "},
	} {
		card, body := dashboard(c.filters)
		if want := []string{c.now, c.diff, c.before}; strings.Join(card, "|") != strings.Join(want, "|") {
			t.Errorf("%s: conversion rate card %q, want %q\n%s", c.filters.Encode(), card, want, body)
		}
		if c.now != "33.3%" && c.now != "50%" {
			t.Fatalf("the data makes %q, not the rates this test means to show", c.now)
		}
		// The API's summary says the same.
		q := url.Values{"from": {"2026-03-10"}, "to": {"2026-03-10"}}
		for k, v := range c.filters {
			q[k] = v
		}
		status, raw := e.api("GET", fmt.Sprintf("/api/v1/stats/%d/summary?%s", id, q.Encode()), owner.Key, nil)
		var summary struct {
			Data struct {
				ConversionRate *float64 `json:"conversion_rate"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(raw), &summary); err != nil || status != http.StatusOK || summary.Data.ConversionRate == nil ||
			percentText(*summary.Data.ConversionRate) != c.now {
			t.Errorf("%s: the API's summary says %d %s, the dashboard %q", c.filters.Encode(), status, raw, c.now)
		}
	}

	for _, filters := range []url.Values{nil, {"filter[landing_page]": {"/"}}} {
		if card, body := dashboard(filters); card != nil || strings.Contains(body, "Conversion rate") {
			t.Errorf("%s: a conversion rate without a goal filter: %q", filters.Encode(), card)
		}
	}

	// The card is a link to the graph of the rate, a day a point: each day's rate as the
	// card's, the visitors of the other filters dividing.
	for _, landing := range []string{"", "/"} {
		q := url.Values{"from": {"2026-03-09"}, "to": {"2026-03-10"}, "interval": {"day"}, "filter[goal]": {"Signed up"}}
		if landing != "" {
			q.Set("filter[landing_page]", landing)
		}
		p := b.get("/stats/rate.example?" + q.Encode())
		if !rateCardLink.MatchString(p.body) {
			t.Errorf("%s: the Conversion rate card is no link to its graph", q.Encode())
		}
		q.Set("graph_metric", "conversion_rate")
		p = b.get("/stats/rate.example?" + q.Encode())
		wantStatus(t, "graph of the rate", p, http.StatusOK)
		rows := chartRowRE.FindAllStringSubmatch(p.body, -1)
		if len(rows) != 2 || rows[0][1] != rate(dayBefore, landing) || rows[1][1] != rate(day, landing) ||
			!strings.Contains(p.body, "Conversion rate per day") {
			t.Errorf("%s: the graph's days %v, want %s and %s", q.Encode(), rows, rate(dayBefore, landing), rate(day, landing))
		}
	}
	// Compared with the day before, hour by hour (visits at hour 0): the 10th's rate beside the 9th's.
	q := url.Values{"from": {"2026-03-10"}, "to": {"2026-03-10"}, "filter[goal]": {"Signed up"}, "graph_metric": {"conversion_rate"},
		"comparison": {"previous_period"}, "match_day_of_week": {"false"}}
	p := b.get("/stats/rate.example?" + q.Encode())
	wantStatus(t, "the rate compared", p, http.StatusOK)
	if want := "<td>2026-03-10 00:00</td><td class=\"num\">" + rate(day, "") + "</td><td>2026-03-09 00:00</td><td class=\"num\">" + rate(dayBefore, "") + "</td>"; !strings.Contains(p.body, want) {
		t.Errorf("the graph's table has no compared rate %s", want)
	}

	// A goal named with markup: the chip shows the name as text, and the card is there.
	card, body := dashboard(url.Values{"filter[goal]": {"<script>alert(1)</script>"}})
	if strings.Contains(body, "<script>alert(1)") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the goal's markup name is not escaped on the dashboard:\n%s", body)
	}
	if want := rate(day, ""); card == nil || card[0] != want {
		t.Errorf("conversion rate card under the markup goal %q, want %q", card, want)
	}
}

// percentText writes a rate as the headline numbers do, to one decimal without a trailing
// zero: 33.3%, 50%.
func percentText(rate float64) string {
	return strconv.FormatFloat(math.Round(rate*10)/10, 'f', -1, 64) + "%"
}
