package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/analytics-service/analytics/testkit/harness"
)

// exactLines are a query answer's rows as "dims = metric; metric" lines, numbers as written
// (json.Number: an amount's digits are not rounded through float64), a revenue as "value
// currency long short", and its meta.metric_warnings as "metric code" lines.
func exactLines(t *testing.T, res harness.Response) (rows, warnings []string) {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var body struct {
		Results []struct {
			Dimensions []string `json:"dimensions"`
			Metrics    []any    `json:"metrics"`
		} `json:"results"`
		Meta struct {
			MetricWarnings map[string]struct{ Code, Warning string } `json:"metric_warnings"`
		} `json:"meta"`
	}
	dec := json.NewDecoder(bytes.NewReader(res.Body))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, r := range body.Results {
		var metrics []string
		for _, m := range r.Metrics {
			switch m := m.(type) {
			case map[string]any:
				metrics = append(metrics, fmt.Sprintf("%v %v %v %v", m["value"], m["currency"], m["long"], m["short"]))
			case nil:
				metrics = append(metrics, "null")
			default:
				metrics = append(metrics, fmt.Sprint(m))
			}
		}
		rows = append(rows, strings.Join(r.Dimensions, ",")+" = "+strings.Join(metrics, "; "))
	}
	for m, w := range body.Meta.MetricWarnings {
		if w.Warning == "" {
			t.Errorf("warning of %s without a sentence", m)
		}
		warnings = append(warnings, m+" "+w.Code)
	}
	slices.Sort(warnings)
	return rows, warnings
}

// TestQueryRevenue: total_revenue and average_revenue sum the revenue the revenue goals'
// events carried in the goals' currency, exactly, as Plausible's Stats API v2 answers them;
// without one currency they are null and meta.metric_warnings says why.
func TestQueryRevenue(t *testing.T) {
	e := newEnv(t)
	key := e.User("a@example.com").Key
	site := e.propSite(key)
	e.storeGoal(key, site, "kind", "event", "event", "Purchase", "currency", "EUR")
	e.storeGoal(key, site, "kind", "event", "event", "Purchase", "currency", "USD", "display_name", "Purchase (USD)")
	e.storeGoal(key, site, "kind", "event", "event", "Purchase", "display_name", "Purchase (no currency)")
	e.storeGoal(key, site, "kind", "pageview", "page", "/")
	const head = `{"site_id": "props.example", "date_range": ["2026-03-01", "2026-03-01"], `
	run := func(t *testing.T, body string) ([]string, []string) {
		t.Helper()
		return exactLines(t, e.in(t).query(key, head+body+`}`))
	}
	check := func(t *testing.T, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// The EUR revenue of propVisits: 10.005 and 0.1 (DE), 123456789012345.125 (US); 19.99 USD (US).
	const eurTotal = `123456789012355.23 EUR €123,456,789,012,355.23 €123.5T`
	const eurAverage = `41152263004118.41 EUR €41,152,263,004,118.41 €41.2T`

	t.Run("goal filter, one currency", func(t *testing.T) {
		rows, warnings := run(t, `"metrics": ["total_revenue", "average_revenue", "visitors"], "filters": [["is", "event:goal", ["Purchase"]]]`)
		check(t, rows, []string{" = " + eurTotal + "; " + eurAverage + "; 3"})
		check(t, warnings, nil)
	})

	t.Run("by country, ordered by revenue", func(t *testing.T) {
		rows, _ := run(t, `"metrics": ["total_revenue", "average_revenue"], "filters": [["is", "event:goal", ["Purchase"]]],
			"dimensions": ["visit:country"], "order_by": [["total_revenue", "asc"]]`)
		check(t, rows, []string{
			// 10.105 rounds half away from zero; its mean 5.0525 too.
			"DE = 10.11 EUR €10.11 €10.1; 5.05 EUR €5.05 €5.1",
			"US = 123456789012345.13 EUR €123,456,789,012,345.13 €123.5T; 123456789012345.13 EUR €123,456,789,012,345.13 €123.5T",
		})
	})

	t.Run("by goal, each in its currency", func(t *testing.T) {
		rows, warnings := run(t, `"metrics": ["visitors", "total_revenue"], "dimensions": ["event:goal"], "order_by": [["event:goal", "asc"]]`)
		check(t, rows, []string{
			"Purchase = 3; " + eurTotal,
			"Purchase (USD) = 3; 19.99 USD $19.99 $20.0",
			"Purchase (no currency) = 3; null",
			"Visit / = 4; null",
		})
		check(t, warnings, nil)
	})

	t.Run("a revenue goal without revenue is zero", func(t *testing.T) {
		rows, _ := run(t, `"metrics": ["total_revenue", "average_revenue"], "filters": [["is", "event:goal", ["Purchase (USD)"]], ["is", "visit:country", ["DE"]]]`)
		check(t, rows, []string{" = 0 USD $0.00 $0.0; 0 USD $0.00 $0.0"})
	})

	t.Run("by day, several filtered goals of one currency", func(t *testing.T) {
		rows, _ := run(t, `"metrics": ["total_revenue"], "filters": [["contains", "event:goal", ["purchase"], {"case_sensitive": false}], ["is", "visit:country", ["US"]]],
			"dimensions": ["time:day"]`)
		// Purchase (EUR) and Purchase (USD) are both named: two currencies.
		check(t, rows, []string{"2026-03-01 = null"})
	})

	t.Run("no single currency", func(t *testing.T) {
		for body, visitors := range map[string]string{
			`"metrics": ["total_revenue", "average_revenue", "visitors"], "filters": [["is", "event:goal", ["Purchase", "Purchase (USD)"]]]`: "3",
			// Without a goal filter every revenue goal counts.
			`"metrics": ["total_revenue", "average_revenue", "visitors"], "filters": [["is_not", "visit:screen", ["0x0"]]]`: "4",
			// Nor filter nor dimension: the visit rows answer (the counters hold no revenue).
			`"metrics": ["total_revenue", "average_revenue", "visitors"]`: "4",
		} {
			rows, warnings := run(t, body)
			check(t, rows, []string{" = null; null; " + visitors})
			check(t, warnings, []string{"average_revenue no_single_revenue_currency", "total_revenue no_single_revenue_currency"})
		}
	})

	t.Run("no revenue goal", func(t *testing.T) {
		rows, warnings := run(t, `"metrics": ["visitors", "total_revenue"], "filters": [["is", "event:goal", ["Purchase (no currency)"]]]`)
		check(t, rows, []string{" = 3; null"})
		check(t, warnings, []string{"total_revenue no_revenue_goals_matching"})
		rows, warnings = run(t, `"metrics": ["visitors", "total_revenue"], "dimensions": ["event:goal"], "filters": [["is", "event:goal", ["Visit /"]]]`)
		check(t, rows, []string{"Visit / = 4; null"})
		check(t, warnings, []string{"total_revenue no_revenue_goals_matching"})
	})

	t.Run("by event name", func(t *testing.T) {
		rows, warnings := run(t, `"metrics": ["visitors", "events", "total_revenue", "average_revenue"], "filters": [["is", "event:goal", ["Purchase"]]],
			"dimensions": ["event:name"], "order_by": [["event:name", "asc"]]`)
		// Visits 1 to 3 convert: a pageview each, and four Purchase events, three in EUR.
		check(t, rows, []string{
			"Purchase = 3; 4; " + eurTotal + "; " + eurAverage,
			"pageview = 3; 3; 0 EUR €0.00 €0.0; 0 EUR €0.00 €0.0",
		})
		check(t, warnings, nil)
	})

	t.Run("refusals", func(t *testing.T) {
		for body, words := range map[string][]string{
			head + `"metrics": ["total_revenue"], "dimensions": ["event:page"]}`:       {"total_revenue", "event:page"},
			head + `"metrics": ["total_revenue"], "dimensions": ["event:props:plan"]}`: {"total_revenue", "event:props:plan"},
			head + `"metrics": ["total_revenue", "total_revenue"]}`:                    {"total_revenue", "twice"},
		} {
			wantQueryError(t, e.in(t).query(key, body), http.StatusBadRequest, words...)
		}
	})
}
