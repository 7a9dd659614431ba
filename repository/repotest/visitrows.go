package repotest

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// Visit is one visit as visit_rows holds it (docs/filters.md), for tests of filtered reads:
// RandomVisits draws them, WriteVisitRows stores them, and the methods below compute what a
// filtered read must answer from the list itself, apart from the SQL under test.
type Visit struct {
	Day     time.Time // its day in TZ
	Visitor int32     // the day number
	Hour    int       // the hour (TZ) it started
	Seconds int
	Pages   []string // one per pageview, in order
	Events  []string // "name:value:unit", one per event
	// EventNames are the names of Events as sent, one each; nil for a row written before
	// visit rows kept them.
	EventNames []string
	// Order is the order of its hits as hit_order holds it ('p' a page, 'e' an event); ""
	// for its pages, then its events.
	Order string
	// Values are its visit-level values by name (landing_page ... city); a name absent is "".
	Values map[stats.Name]string
	// Props are the custom properties its hits carried, stats.PropPair each, one per hit
	// and property; Revenue the revenue of its events, one each.
	Props   []string
	Revenue []Revenue
}

// Revenue is an event's revenue: its name as sent, currency and amount (a decimal).
type Revenue struct{ Name, Currency, Amount string }

// Bounce tells whether the visit is a bounce: one pageview and no event.
func (v Visit) Bounce() bool { return len(v.Pages) == 1 && len(v.Events) == 0 }

// HitOrder is the order of the visit's hits: Order, or its pages then its events.
func (v Visit) HitOrder() string {
	if v.Order != "" {
		return v.Order
	}
	return strings.Repeat("p", len(v.Pages)) + strings.Repeat("e", len(v.Events))
}

// visitPools are the values RandomVisits draws each visit-level name from, first ones more
// often; "" is a visit with none. Countries share codes under two names (a GeoIP release that
// renamed one), cities of one country share its code, and some values need escaping.
var visitPools = map[stats.Name][]string{
	stats.Referrer:         {"", "www.google.com", "news.ycombinator.com", "t.co", "example.org", "100%_sure.example", `quote'"s.example`},
	stats.SearchEngine:     {"", "Google", "Bing", "DuckDuckGo"},
	stats.SocialNetwork:    {"", "Twitter", "Hacker News"},
	stats.Campaign:         {"", "spring", "launch_2026"},
	stats.Source:           {"", "Google", "example.org", "Newsletter", "Hacker News"},
	stats.Channel:          {"Direct", "Organic Search", "Referral", "Email", "Organic Social"},
	stats.UTMSource:        {"", "newsletter", "google"},
	stats.UTMMedium:        {"", "email", "cpc"},
	stats.UTMTerm:          {"", "running shoes"},
	stats.UTMContent:       {"", "hero", "footer"},
	stats.Browser:          {"Chrome", "Firefox", "Safari", "Edge", ""},
	stats.OperatingSystem:  {"Windows", "macOS", "Linux", "Android", "iOS"},
	stats.Device:           {"Desktop", "Mobile", "Tablet"},
	stats.Language:         {"en", "de", "fr", "ja", ""},
	stats.ScreenResolution: {"1920x1080", "1366x768", "390x844", ""},
	stats.Continent:        {"EU:Europe", "NA:North America", "AS:Asia", "EU:Europa", ""},
	stats.Country:          {"DE:Germany", "US:United States", "FR:France", "DE:Deutschland", "JP:Japan", ""},
	stats.City:             {"DE:Berlin", "DE:Munich", "US:Boston", "FR:Paris", "JP:Tōkyō", ""},
}

// visitPages are the pages RandomVisits draws from, the first ones more often.
var visitPages = []string{"/", "/pricing", "/docs", "/blog/a", "/blog/b", "/about", "/100%", "/a_b", `/q'"uote`, "/ünï"}

// visitEvents are the events RandomVisits draws from.
var visitEvents = []string{"Signup:free:", "Signup:pro:", "Download:app.zip:", "Purchase:Pro:EUR", "Play::"}

// RandomVisits draws perDay visits on each day from..to: visitors of a day are drawn from a
// pool smaller than its visits (so some have several visits), with uniform day numbers (so a
// sample by day number is a fair one), 1 to 4 pageviews, a few events on some visits.
func RandomVisits(rng *mathrand.Rand, from, to time.Time, perDay int) []Visit {
	var out []Visit
	skewed := func(n int) int { return min(rng.IntN(n), rng.IntN(n)) }
	for day := from; !day.After(to); day = day.AddDate(0, 0, 1) {
		pool := make([]int32, perDay*2/3+1)
		for i := range pool {
			pool[i] = int32(rng.Uint32())
		}
		for range perDay {
			v := Visit{Day: day, Visitor: pool[rng.IntN(len(pool))], Hour: rng.IntN(24), Values: map[stats.Name]string{}}
			for range 1 + skewed(4) {
				v.Pages = append(v.Pages, visitPages[skewed(len(visitPages))])
			}
			if rng.IntN(4) == 0 {
				for range 1 + rng.IntN(2) {
					v.Events = append(v.Events, visitEvents[skewed(len(visitEvents))])
				}
			}
			if len(v.Pages) > 1 || len(v.Events) > 0 {
				v.Seconds = 5 + rng.IntN(600)
			}
			for name, pool := range visitPools {
				v.Values[name] = pool[skewed(len(pool))]
			}
			v.Values[stats.LandingPage] = v.Pages[0]
			v.Values[stats.ExitPage] = v.Pages[len(v.Pages)-1]
			out = append(out, v)
		}
	}
	return out
}

// WriteVisitRows makes the partitions of the visits' days and writes the visits into
// visit_rows with AddVisitBatch, as flushes do (a row a visit, each in one write).
func WriteVisitRows(tb testing.TB, db *sqlx.DB, websiteID int64, visits []Visit) {
	tb.Helper()
	if len(visits) == 0 {
		return
	}
	ctx := context.Background()
	repo := repository.New(db, nil)
	first, last := visits[0].Day, visits[0].Day
	for _, v := range visits {
		first, last = minTime(first, v.Day), maxTime(last, v.Day)
	}
	if err := repo.EnsureVisitRowPartitions(ctx, first, last); err != nil {
		tb.Fatal(err)
	}
	rng := mathrand.New(mathrand.NewPCG(uint64(websiteID), 1))
	rows := make([]repository.VisitRow, len(visits))
	for i, v := range visits {
		rows[i] = repository.VisitRow{WebsiteID: websiteID, Day: v.Day, Visitor: v.Visitor, ID: rng.Int64(), Hour: v.Hour,
			Pageviews: len(v.Pages), Seconds: v.Seconds, Bounce: v.Bounce(), Pages: v.Pages, Events: v.Events, EventNames: v.EventNames,
			Order: []byte(v.HitOrder()), Props: v.Props}
		for _, r := range v.Revenue {
			rows[i].RevenueNames = append(rows[i].RevenueNames, r.Name)
			rows[i].RevenueCurrencies = append(rows[i].RevenueCurrencies, r.Currency)
			rows[i].RevenueAmounts = append(rows[i].RevenueAmounts, r.Amount)
		}
		for j, d := range stats.Dimensions {
			rows[i].Values[j] = v.Values[d.Name]
		}
	}
	added, err := repo.AddVisitBatch(ctx, repository.VisitBatch{ID: uuid.NewString(), Rows: repository.VisitRowList(rows)}, repository.DefaultMaxValuesPerDay)
	if err != nil || added.RowsDropped != 0 {
		tb.Fatalf("write visit rows: %d dropped (%v)", added.RowsDropped, err)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Matches tells whether the visit matches every filter, as docs/filters.md words it.
func (v Visit) Matches(filters stats.Filters) bool {
	for _, f := range filters {
		if !v.matches(f) {
			return false
		}
	}
	return true
}

func (v Visit) matches(f stats.Filter) bool {
	switch f.Op {
	case stats.AnyOf, stats.NoneOf:
		any := slices.ContainsFunc(f.Values, func(value string) bool {
			return v.matches(stats.Filter{Name: f.Name, Value: value})
		})
		return any == (f.Op == stats.AnyOf)
	case stats.ContainsNone:
		return !v.matches(stats.Filter{Name: f.Name, Op: stats.ContainsAny, Values: f.Values})
	case stats.ContainsAny:
		hits := []string{v.Values[f.Name]}
		switch f.Name {
		case stats.Page:
			hits = v.Pages
		case stats.Event:
			hits = v.Events
		}
		return slices.ContainsFunc(hits, func(h string) bool {
			return slices.ContainsFunc(f.Values, func(t string) bool {
				return strings.Contains(strings.ToLower(h), strings.ToLower(t))
			})
		})
	}
	code := func(s string) string { c, _, _ := strings.Cut(s, ":"); return c }
	if f.Value == stats.Other { // the counters' value past the daily limit: no visit has it
		return false
	}
	f.Name = f.Name.Canonical()
	switch f.Name {
	case stats.GoalName: // the websites of these fixtures have no goals: a goal filter names none
		return false
	case stats.Page:
		return slices.Contains(v.Pages, f.Value)
	case stats.Event:
		if f.Value == "" {
			return len(v.Events) == 0
		}
		return slices.Contains(v.Events, f.Value)
	}
	if d, _, _ := stats.DimensionOf(f.Name); d.Compare == stats.CodeBefore {
		return code(v.Values[f.Name]) == code(f.Value)
	}
	return v.Values[f.Name] == f.Value
}

// pageviews are the visit's pageviews as filtered numbers count them: with page filters,
// those of the pages they keep.
func (v Visit) pageviews(filters stats.Filters) int64 {
	var n int64
	for _, p := range v.Pages {
		if pageKept(p, filters) {
			n++
		}
	}
	return n
}

// pageKept tells whether a pageview of page counts under the filters: when a visit of that
// one page matches every page filter.
func pageKept(page string, filters stats.Filters) bool {
	alone := Visit{Pages: []string{page}}
	for _, f := range filters {
		if f.Name == stats.Page && !alone.matches(f) {
			return false
		}
	}
	return true
}

// Filtered are the visits of from..to that match the filters.
func Filtered(visits []Visit, from, to time.Time, filters stats.Filters) []Visit {
	var out []Visit
	for _, v := range visits {
		if !v.Day.Before(from) && !v.Day.After(to) && v.Matches(filters) {
			out = append(out, v)
		}
	}
	return out
}

// ExpectList is what a filtered list of name counts over the matching visits, by value.
func ExpectList(matching []Visit, name stats.Name, filters stats.Filters) map[string]int64 {
	name = name.Canonical()
	out := map[string]int64{}
	seen := map[string]bool{}
	for _, v := range matching {
		day := stats.DayValue(v.Day)
		switch name {
		case stats.Page:
			for _, p := range v.Pages {
				if pageKept(p, filters) {
					out[p]++
				}
			}
		case stats.Event:
			for _, e := range v.Events {
				out[e]++
			}
		case stats.Pageview:
			if n := v.pageviews(filters); n > 0 {
				out[day] += n
			}
		case stats.Visit:
			out[day]++
		case stats.Visitor:
			key := fmt.Sprint(day, v.Visitor)
			if !seen[key] {
				seen[key] = true
				out[day]++
			}
		default:
			// The names counted only when given have no "" entry.
			if d, _, _ := stats.DimensionOf(name); !d.OnlyGiven || v.Values[name] != "" {
				out[v.Values[name]]++
			}
		}
	}
	return out
}

// ExpectTotals are the totals of the matching visits; key names the bucket of a visit ("" for
// one bucket), within which visitors are distinct by day.
func ExpectTotals(matching []Visit, filters stats.Filters, key func(Visit) string) map[string]stats.Totals {
	out := map[string]stats.Totals{}
	seen := map[string]bool{}
	for _, v := range matching {
		k := key(v)
		t := out[k]
		if visitor := fmt.Sprint(k, stats.DayValue(v.Day), v.Visitor); !seen[visitor] {
			seen[visitor] = true
			t.Visitors++
		}
		t.Visits++
		t.TimedVisits++
		t.Pageviews += v.pageviews(filters)
		t.Events += int64(len(v.Events))
		t.VisitSeconds += int64(v.Seconds)
		if v.Bounce() {
			t.Bounces++
		}
		out[k] = t
	}
	return out
}

// ExpectTotal is the totals of the matching visits in one bucket, visitors distinct by day.
func ExpectTotal(matching []Visit, filters stats.Filters) stats.Totals {
	return ExpectTotals(matching, filters, func(Visit) string { return "" })[""]
}
