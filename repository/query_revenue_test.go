package repository_test

import (
	"fmt"
	"math/big"
	mathrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	queryapi "github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository/repotest"
	"github.com/analytics-service/analytics/stats"
)

// TestQueryRevenueMatchesAReference: the query API's revenue metrics are the exact sums (and
// means) of the revenue the revenue goals' events carried in their currency, computed here
// from the visits with exact rationals, by goal, by country, with goal and visit filters.
func TestQueryRevenueMatchesAReference(t *testing.T) {
	f := newFixture(t, "goals.example")
	site := f.sites[0]
	rng := mathrand.New(mathrand.NewPCG(27, 3))
	visits := goalVisitsOf(rng)
	withRevenue := 0
	for i := range visits {
		v := &visits[i]
		for _, name := range v.EventNames {
			if rng.IntN(3) > 0 {
				currency := []string{"EUR", "EUR", "USD"}[rng.IntN(3)]
				v.Revenue = append(v.Revenue, repotest.Revenue{Name: name, Currency: currency,
					Amount: fmt.Sprintf("%d.%03d", rng.IntN(100_000), rng.IntN(1000))})
				withRevenue++
			}
		}
	}
	if withRevenue < 30 {
		t.Fatalf("only %d events with revenue", withRevenue)
	}
	repotest.WriteVisitRows(t, f.db, site, visits)
	goals := []stats.Goal{
		{Kind: stats.GoalEvent, Event: "Signup", DisplayName: "Signup", Currency: "EUR"},
		{Kind: stats.GoalEvent, Event: "Download", DisplayName: "Download", Currency: "EUR"},
		{Kind: stats.GoalEvent, Event: "Outbound Link: Click", DisplayName: "Click", Currency: "USD"},
		{Kind: stats.GoalEvent, Event: "Signup", DisplayName: "Signup plain"},
		{Kind: stats.GoalPageview, Page: "/blog/*", DisplayName: "Blog"},
	}
	for _, g := range goals {
		mustGoal(t, f, site, g)
	}
	env := queryapi.Env{Now: time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC), Location: time.UTC}
	// run answers a query as "dims: total average" lines by its rows' dimensions.
	run := func(body string) map[string]string {
		t.Helper()
		answer := f.runQuery(t, site, `{"site_id": "goals.example", "date_range": ["2026-03-01", "2026-03-04"], `+
			`"metrics": ["total_revenue", "average_revenue"], `+body+`}`, env)
		out := map[string]string{}
		for _, row := range answer.Rows {
			var values []string
			for _, r := range row.Revenue {
				if r == nil {
					values = append(values, "null")
				} else {
					values = append(values, exactAmount(t, r.Amount)+" "+r.Currency)
				}
			}
			out[strings.Join(row.Dimensions, ",")] = strings.Join(values, " ")
		}
		return out
	}
	countryIs := func(code string) func(repotest.Visit) bool {
		return func(v repotest.Visit) bool {
			c, _, _ := strings.Cut(v.Values[stats.Country], ":")
			return c == code
		}
	}
	check := func(body string, want map[string]string) {
		t.Helper()
		got := run(body)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\ngot  %v\nwant %v", body, got, want)
		}
	}
	eur := []string{"Signup", "Download"}
	// One goal, two of one currency, with a visit filter.
	check(`"filters": [["is", "event:goal", ["Signup"]]]`, map[string]string{"": referenceRevenue(visits, nil, eur[:1], "EUR")})
	check(`"filters": [["is", "event:goal", ["Signup", "Download"]], ["is", "visit:country", ["DE"]]]`,
		map[string]string{"": referenceRevenue(visits, countryIs("DE"), eur, "EUR")})
	// By country: a row for each country of the visits that convert on either goal.
	byCountry := map[string]string{}
	for _, v := range visits {
		if code, _, _ := strings.Cut(v.Values[stats.Country], ":"); convertsOnAny(v, eur) {
			byCountry[code] = referenceRevenue(visits, countryIs(code), eur, "EUR")
		}
	}
	check(`"filters": [["is", "event:goal", ["Signup", "Download"]]], "dimensions": ["visit:country"]`, byCountry)
	// By goal: each revenue goal in its own currency, the others null.
	byGoal := map[string]string{}
	for _, g := range goals {
		if referenceConverts(visits, g) {
			byGoal[g.DisplayName] = "null null"
			if g.Currency != "" {
				byGoal[g.DisplayName] = referenceRevenue(visits, nil, []string{g.Event}, g.Currency)
			}
		}
	}
	check(`"dimensions": ["event:goal"]`, byGoal)
	// By event name: each revenue goal's revenue under its event's name as events are counted
	// (colons as spaces), 0 under the other names, of the visits the goal filter keeps.
	for _, c := range []struct {
		goals, events []string // the goals filtered, by display name, and their events
		currency      string
	}{
		{[]string{"Signup", "Download"}, eur, "EUR"},
		{[]string{"Click"}, []string{"Outbound Link: Click"}, "USD"},
	} {
		kept := func(v repotest.Visit) bool { return convertsOnAny(v, c.events) }
		byName := map[string]string{}
		for _, v := range visits {
			if !kept(v) {
				continue
			}
			if len(v.Pages) > 0 {
				byName["pageview"] = referenceRevenue(visits, kept, nil, c.currency)
			}
			for _, e := range v.Events {
				label, _, _ := strings.Cut(e, ":")
				var names []string
				for _, n := range c.events {
					if strings.ReplaceAll(n, ":", " ") == label {
						names = append(names, n)
					}
				}
				byName[label] = referenceRevenue(visits, kept, names, c.currency)
			}
		}
		goals := fmt.Sprintf("%q", c.goals)
		goals = strings.ReplaceAll(strings.Trim(goals, "[]"), `" "`, `", "`)
		check(`"filters": [["is", "event:goal", [`+goals+`]]], "dimensions": ["event:name"]`, byName)
	}
}

// referenceRevenue is "total currency average currency" of the revenue in currency carried
// by events of those names, of the visits keep holds (nil: all), rounded to two places halves
// away from zero (big.Rat.FloatString), 0 without any.
func referenceRevenue(visits []repotest.Visit, keep func(repotest.Visit) bool, names []string, currency string) string {
	sum, n := new(big.Rat), int64(0)
	for _, v := range visits {
		if keep != nil && !keep(v) {
			continue
		}
		for _, r := range v.Revenue {
			if r.Currency == currency && containsString(names, r.Name) {
				amount, _ := new(big.Rat).SetString(r.Amount)
				sum.Add(sum, amount)
				n++
			}
		}
	}
	mean := new(big.Rat)
	if n > 0 {
		mean.Quo(sum, big.NewRat(n, 1))
	}
	return fmt.Sprintf("%s %s %s %s", trimmed(sum.FloatString(2)), currency, trimmed(mean.FloatString(2)), currency)
}

// exactAmount is an amount as the repository answers it, written as referenceRevenue writes
// one.
func exactAmount(t *testing.T, amount string) string {
	r, ok := new(big.Rat).SetString(amount)
	if !ok {
		t.Fatalf("amount %q is not a decimal", amount)
	}
	return trimmed(r.FloatString(2))
}

func trimmed(s string) string { return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") }

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// convertsOnAny tells whether one of the visit's events has one of the names.
func convertsOnAny(v repotest.Visit, events []string) bool {
	for _, e := range events {
		if goalHits(v, stats.Goal{Kind: stats.GoalEvent, Event: e}) > 0 {
			return true
		}
	}
	return false
}

// referenceConverts tells whether a visit converts on g.
func referenceConverts(visits []repotest.Visit, g stats.Goal) bool {
	for _, v := range visits {
		if goalHits(v, g) > 0 {
			return true
		}
	}
	return false
}
