package stats_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/stats"
)

func TestFilterNames(t *testing.T) {
	if len(stats.FilterNames) != len(stats.Names)-3+1 { // goal is a filter, not a statistic
		t.Fatalf("FilterNames %v", stats.FilterNames)
	}
	for _, n := range []stats.Name{stats.Pageview, stats.Visitor, stats.Visit} {
		for _, f := range stats.FilterNames {
			if f == n {
				t.Errorf("%s is a filter name: its values are days", n)
			}
		}
	}
}

func TestParseFiltersAccepts(t *testing.T) {
	f := func(name stats.Name, value string) stats.Filter { return stats.Filter{Name: name, Value: value} }
	cases := []struct {
		name  string
		query string
		want  stats.Filters
	}{
		{"none", "name=page&from=2026-01-01", nil},
		{"other parameters that only look alike", "filters=x&filterx=y&Filter[country]=DE&xfilter[a]=b", nil},
		{"one", "filter[country]=DE:Germany", stats.Filters{f(stats.Country, "DE:Germany")}},
		// In the order of FilterNames, whatever the order of the query.
		{"several", "filter[event]=Signup::&filter[page]=/a&filter[country]=DE:Germany",
			stats.Filters{f(stats.Page, "/a"), f(stats.Country, "DE:Germany"), f(stats.Event, "Signup::")}},
		{"empty value", "filter[campaign]=", stats.Filters{f(stats.Campaign, "")}},
		{"escaped", "filter%5Bpage%5D=%2Fa%3Fb%3D1%26c", stats.Filters{f(stats.Page, "/a?b=1&c")}},
		{"(other) is a value", "filter[referrer]=(other)", stats.Filters{f(stats.Referrer, stats.Other)}},
		{"255 characters of two bytes", "filter[page]=" + strings.Repeat("%C3%A9", 255), stats.Filters{f(stats.Page, strings.Repeat("é", 255))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := stats.ParseFilters(q)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestParseFiltersRefuses(t *testing.T) {
	cases := []struct {
		name    string
		query   url.Values
		message string // a part of the message
	}{
		{"unknown name", url.Values{"filter[colour]": {"red"}}, "filter[colour]: unknown name; one of page, landing_page"},
		{"a name whose values are days", url.Values{"filter[pageview]": {"2026-01-01"}}, "unknown name"},
		{"repeated name", url.Values{"filter[country]": {"DE", "FR"}}, "filter[country] is given 2 times"},
		{"not deepObject", url.Values{"filter": {"country"}}, "must be given as filter[NAME]=VALUE"},
		{"no name", url.Values{"filter[]": {"x"}}, "must be given as filter[NAME]=VALUE"},
		{"nested", url.Values{"filter[country][code]": {"DE"}}, "must be given as filter[NAME]=VALUE"},
		{"unclosed", url.Values{"filter[country": {"DE"}}, "must be given as filter[NAME]=VALUE"},
		{"bracket in the name", url.Values{"filter[coun[try]": {"DE"}}, "must be given as filter[NAME]=VALUE"},
		{"256 characters", url.Values{"filter[page]": {strings.Repeat("é", 256)}}, "is 256 characters long; at most 255"},
		{"NUL", url.Values{"filter[page]": {"/a\x00"}}, "filter[page]: must be UTF-8 text without NUL"},
		{"invalid UTF-8", url.Values{"filter[page]": {"/\xff"}}, "filter[page]: must be UTF-8 text without NUL"},
		// A stranger's name is not echoed when long or not text.
		{"long unknown name", url.Values{"filter[" + strings.Repeat("x", 41) + "]": {"1"}}, "filter[...]: unknown name"},
		{"unknown name not UTF-8", url.Values{"filter[\xff]": {"1"}}, "filter[...]: unknown name"},
		// A goal is one goal: the other operators would silently match nothing.
		{"goal not", url.Values{"filter_not[goal]": {"Signup"}}, "filter_not[goal]: a goal is filtered with filter[goal]=NAME only"},
		{"goal any", url.Values{"filter_any[goal]": {"Signup|Buy"}}, "filter_any[goal]: a goal is filtered with filter[goal]=NAME only"},
		{"goal contains", url.Values{"filter_contains[goal]": {"Sign"}}, "filter_contains[goal]: a goal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := stats.ParseFilters(c.query)
			if err == nil {
				t.Fatalf("accepted: %v", got)
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Fatalf("message %q, want it to hold %q", err, c.message)
			}
		})
	}
}

// With several wrong parameters, the message is the same on every call (the first wrong key in
// order), not whichever a map's iteration met first.
func TestParseFiltersMessageIsStable(t *testing.T) {
	q := url.Values{}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		q.Set("filter["+name+"]", "1")
	}
	_, first := stats.ParseFilters(q)
	for range 50 {
		if _, err := stats.ParseFilters(q); err == nil || err.Error() != first.Error() {
			t.Fatalf("message %v, then %v", first, err)
		}
	}
	if !strings.HasPrefix(first.Error(), "filter[a]:") {
		t.Fatalf("message %q, want the first name in order", first)
	}
}

func TestFiltersQueryRoundTrip(t *testing.T) {
	var f stats.Filters
	f = f.With(stats.Event, "").With(stats.Page, "/a b?c=&d").With(stats.Country, "DE:Germany")
	f = f.With(stats.Page, "/b") // replaces
	want := stats.Filters{{Name: stats.Page, Value: "/b"}, {Name: stats.Country, Value: "DE:Germany"}, {Name: stats.Event, Value: ""}}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("With: %v", f)
	}
	back, err := stats.ParseFilters(f.Query())
	if err != nil || !reflect.DeepEqual(back, f) {
		t.Fatalf("ParseFilters(Query()) = %v, %v; want %v", back, err, f)
	}
	if v, ok := f.Get(stats.Country); !ok || v != "DE:Germany" {
		t.Fatalf("Get %q %v", v, ok)
	}
	if _, ok := f.Without(stats.Country).Get(stats.Country); ok {
		t.Fatal("Without kept the filter")
	}
	if len(f) != 3 {
		t.Fatal("Without changed its receiver")
	}
}

func TestMatchesNothingAndFilterable(t *testing.T) {
	if (stats.Filters{{Name: stats.Country, Value: "DE:Germany"}}).MatchesNothing() {
		t.Error("a plain value matches nothing")
	}
	if !(stats.Filters{{Name: stats.Country, Value: "DE:Germany"}, {Name: stats.Page, Value: stats.Other}}).MatchesNothing() {
		t.Error("(other) matches something")
	}
	if stats.Filterable(stats.Page, stats.Other) || stats.Filterable(stats.Pageview, "2026-01-01") || !stats.Filterable(stats.Page, "") {
		t.Error("Filterable")
	}
}

func TestSampleFraction(t *testing.T) {
	cases := []struct {
		pageviews int64
		want      float64
	}{
		{0, 1}, {1, 1}, {10_000_000, 1}, // exact up to 10 M pageviews, whatever the range's length
		{10_000_001, 0.5}, {20_000_000, 0.5}, {20_000_001, 0.2}, {50_000_000, 0.2}, {50_000_001, 0.1},
		{100_000_000, 0.1}, {200_000_000, 0.05}, {500_000_000, 0.02}, {500_000_001, 0.01}, {1e12, 0.01},
	}
	for _, c := range cases {
		if got := stats.SampleFraction(c.pageviews); got != c.want {
			t.Errorf("%d pageviews: %v, want %v", c.pageviews, got, c.want)
		}
	}
}

// TestFilterValueLists: the three list operators split at unescaped '|', keep "\|" and "\\"
// as literals, and write back what they read.
func TestFilterValueLists(t *testing.T) {
	q := url.Values{
		"filter_any[page]":         {`/a\|b|/c\\d|`},
		"filter_not[referrer]":     {`x.example`},
		"filter_contains[browser]": {`Fire|chrome`},
		"filter[page]":             {"/e"},
	}
	f, err := stats.ParseFilters(q)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(f)
	want := `[{page  /e 0 [] false} {page   1 [/a|b /c\d ] false} {referrer   2 [x.example] false} {browser   3 [Fire chrome] false}]` // Key "" after Name; not Locked
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	again, err := stats.ParseFilters(f.Query())
	if err != nil || fmt.Sprint(again) != want {
		t.Errorf("written back and read: %v %v", again, err)
	}
	for _, bad := range []string{`a\b`, `a\`, strings.Repeat("a|", stats.MaxFilterValues) + "a", strings.Repeat("é", 256)} {
		if _, err := stats.ParseFilters(url.Values{"filter_not[page]": {bad}}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Locked filters (a shared link's segment's) join the address's in order, and are in no
// address: Query leaves them out, so a link made from the filters cannot carry them.
func TestLockedFilters(t *testing.T) {
	locked := stats.Filters{{Name: stats.Country, Value: "DE", Locked: true}, {Name: stats.Property, Key: "plan", Value: "pro", Locked: true}}
	own := stats.Filters{{Name: stats.Page, Value: "/"}, {Name: stats.Browser, Op: stats.NoneOf, Values: []string{"Chrome"}}}
	both := own.Joined(locked)
	want := stats.Filters{own[0], own[1], locked[0], locked[1]} // page, browser, country, properties
	if !reflect.DeepEqual(both, want) {
		t.Fatalf("Joined %v, want %v", both, want)
	}
	if got := both.Query().Encode(); got != own.Query().Encode() {
		t.Fatalf("Query %s, want the address's only: %s", got, own.Query().Encode())
	}
	if len(own) != 2 || len(locked) != 2 {
		t.Fatal("Joined changed its operands")
	}
	for _, c := range []struct {
		a, b stats.Filter
		same bool
	}{
		{locked[0], stats.Filter{Name: stats.Country, Op: stats.NoneOf, Values: []string{"FR"}}, true},
		{locked[0], own[0], false},
		{locked[1], stats.Filter{Name: stats.Property, Key: "plan", Value: "free"}, true},
		{locked[1], stats.Filter{Name: stats.Property, Key: "tier", Value: "pro"}, false},
	} {
		if got := c.a.SameField(c.b); got != c.same {
			t.Errorf("%v.SameField(%v) = %v", c.a, c.b, got)
		}
	}
}
