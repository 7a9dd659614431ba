package ingest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// propRow is what a visit's row holds of properties and revenue.
type propRow struct {
	Props      pq.StringArray `db:"props"`
	Names      pq.StringArray `db:"revenue_names"`
	Currencies pq.StringArray `db:"revenue_currencies"`
	Amounts    pq.StringArray `db:"revenue_amounts"`
}

// propRows flushes and reads a website's rows' properties (key=value each) and revenues
// (name currency amount each), every row's together.
func (c *collectEnv) propRows(id int64) (props, revenue []string) {
	c.T.Helper()
	c.flush()
	var rows []propRow
	if err := c.DB.Select(&rows, `SELECT props, revenue_names, revenue_currencies, revenue_amounts::text[] AS revenue_amounts
		FROM visit_rows WHERE website_id = $1 ORDER BY id`, id); err != nil {
		c.T.Fatal(err)
	}
	for _, r := range rows {
		for _, p := range r.Props {
			props = append(props, strings.Replace(p, "\x1f", "=", 1))
		}
		for i := range r.Names {
			revenue = append(revenue, r.Names[i]+" "+r.Currencies[i]+" "+r.Amounts[i])
		}
	}
	return props, revenue
}

func (c *collectEnv) accepted(h hit) {
	c.T.Helper()
	if res := c.send(h); res.Status != http.StatusAccepted {
		c.T.Fatalf("%s: %d %s, want 202", h.body, res.Status, res.Body)
	}
}

// Properties of the native body and Plausible's are kept as text; what is wrong is dropped
// (the hit still counts, 202) and counted; what identifies a person is (redacted).
func TestPropertiesAreKeptDroppedAndRedacted(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("props.test")
	e.accepted(hit{body: `{"page":"https://props.test/a","props":{"plan":"pro","n":42,"ok":true,"no":false,
		"null":null,"list":[1],"obj":{"a":1},"":"empty key","empty":"","long":"` + strings.Repeat("x", 2001) + `",
		"mail":"write to ada@example.com","phone":"+49 170 1234567","ada@example.com":"v",
		"url":"https://ex.test/file.pdf?token=abc#top","cut":"` + strings.Repeat("é", 300) + `","sep":"a` + "\\u001f" + `b"}}`})
	// Plausible's tracker sends p as a JSON string holding the object.
	e.accepted(hit{body: `{"n":"Signup","u":"https://props.test/b","d":"props.test","p":"{\"plan\":\"free\"}"}`})
	e.accepted(hit{body: `{"n":"engagement","u":"https://props.test/b","d":"props.test","p":{"ignored":"yes"},"e":100}`})
	// Not an object: dropped, and the hit counts.
	e.accepted(hit{body: `{"page":"https://props.test/c","props":"not json"}`})
	e.accepted(hit{body: `{"page":"https://props.test/c","props":[1,2]}`})
	props, _ := e.propRows(id)
	want := []string{"plan=pro", "n=42", "ok=true", "no=false", "mail=(redacted)", "phone=(redacted)", "(redacted)=v",
		"url=https://ex.test/file.pdf", "cut=" + strings.Repeat("é", 255), "sep=a\x1fb", "plan=free"}
	// The separator in a value is a space: only the first separates key from value.
	want[9] = "sep=a b"
	if !slices.Equal(props, want) {
		t.Fatalf("props\n%q\nwant\n%q", props, want)
	}
	counted := e.stats(id)
	if counted["pageview"]["2026-03-04"] != 3 || counted["event"]["Signup::"] != 1 {
		t.Fatalf("hits not all counted: %v", counted)
	}
	// null, list, obj, "" key, empty value, long; then the two bodies that are no object.
	if got := e.Metric("analytics_properties_dropped_total", "reason", "invalid"); got != 8 {
		t.Fatalf("invalid properties counted %v, want 8", got)
	}
	if got := e.Metric("analytics_properties_redacted_total"); got != 3 {
		t.Fatalf("redacted %v, want 3", got)
	}
	metrics := string(e.Do(harness.Request{Path: "/metrics", Remote: "127.0.0.1:9100"}).Body)
	for _, secret := range []string{"ada@example.com", "1234567", "token=abc"} {
		if strings.Contains(metrics, secret) {
			t.Fatalf("/metrics holds %q", secret)
		}
	}
}

// At most 30 properties a hit and 64 distinct pairs a visit are kept; the rest are dropped
// and counted.
func TestPropertiesPerHitAndVisit(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("many.test")
	send := func(from, n int) {
		var parts []string
		for i := from; i < from+n; i++ {
			parts = append(parts, fmt.Sprintf(`"k%02d":"v"`, i))
		}
		e.accepted(hit{body: `{"page":"https://many.test/","props":{` + strings.Join(parts, ",") + `}}`})
		clock.Add(time.Second)
	}
	send(0, 35) // 30 kept, 5 dropped
	send(0, 30) // the same 30 pairs: kept again (each hit counts them)
	send(30, 30)
	send(60, 10) // 4 more fit the visit's 64
	props, _ := e.propRows(id)
	if len(props) != 30+30+30+4 {
		t.Fatalf("%d properties kept, want 94", len(props))
	}
	if got := e.Metric("analytics_properties_dropped_total", "reason", "per_hit"); got != 5 {
		t.Fatalf("per_hit %v, want 5", got)
	}
	if got := e.Metric("analytics_properties_dropped_total", "reason", "per_visit"); got != 6 {
		t.Fatalf("per_visit %v, want 6", got)
	}
}

// A website keeps MAX_VALUES_PER_DAY values a key a day and 300 keys: later ones are written
// as (other), and counted.
func TestPropertiesDayLimits(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now, MaxValuesPerDay: 2})
	id := e.site("cap.test")
	for i, v := range []string{"a", "b", "c", "a"} {
		e.accepted(hit{body: `{"page":"https://cap.test/","props":{"k":"` + v + `"}}`, remote: fmt.Sprintf("198.51.100.%d:1", 10+i)})
		e.flush()
	}
	for i := range 301 {
		e.accepted(hit{body: fmt.Sprintf(`{"page":"https://cap.test/","props":{"key%03d":"x"}}`, i), remote: fmt.Sprintf("%s.%d:1", []string{"203.0.113", "192.0.2"}[i/200], i%200)})
		if i%50 == 49 {
			e.flush()
		}
	}
	props, _ := e.propRows(id)
	got := map[string]int{}
	for _, p := range props {
		got[p]++
	}
	if got["k=a"] != 2 || got["k=b"] != 1 || got["k=c"] != 0 || got["k=(other)"] != 1 {
		t.Fatalf("values of k: %v", got)
	}
	// k and key000..key298 are the 300 keys; key299 and key300 count under (other).
	if got["key298=x"] != 1 || got["key299=x"] != 0 || got["(other)=(other)"] != 2 {
		t.Fatalf("keys past 300: key298 %d key299 %d other %d", got["key298=x"], got["key299=x"], got["(other)=(other)"])
	}
	if got := e.Metric("analytics_properties_over_cap_total"); got != 3 {
		t.Fatalf("over cap %v, want 3", got)
	}
}

// Revenue is kept exactly with its event's name as sent; a bad one is dropped and counted,
// and the event still counts.
func TestRevenueIsKeptExactly(t *testing.T) {
	clock := newClock(at("2026-03-04", "15:20:00"))
	e := newCollectEnv(t, app.Config{Now: clock.Now})
	id := e.site("shop.test")
	for _, b := range []string{
		`{"page":"https://shop.test/","event":{"name":"Purchase: Pro"},"revenue":{"amount":"123456789012345.125","currency":"EUR"}}`,
		`{"n":"Purchase","u":"https://shop.test/","d":"shop.test","$":{"amount":10.5,"currency":"USD"}}`,
		`{"n":"Purchase","u":"https://shop.test/","d":"shop.test","revenue":"{\"amount\":\"0.10\",\"currency\":\"EUR\"}"}`,
		// Dropped: too many digits, zero, negative, exponent, bad currency, not an object, a pageview's.
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":"1234567890123456","currency":"EUR"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":0,"currency":"EUR"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":-5,"currency":"EUR"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":1e3,"currency":"EUR"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":"1.2345","currency":"EUR"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":{"amount":5,"currency":"eur"}}`,
		`{"page":"https://shop.test/","event":{"name":"Purchase"},"revenue":[5]}`,
		`{"page":"https://shop.test/","revenue":{"amount":5,"currency":"EUR"}}`,
	} {
		e.accepted(hit{body: b})
		clock.Add(time.Second)
	}
	_, revenue := e.propRows(id)
	want := []string{"Purchase: Pro EUR 123456789012345.125", "Purchase USD 10.5", "Purchase EUR 0.10"}
	if !slices.Equal(revenue, want) {
		t.Fatalf("revenue %q, want %q", revenue, want)
	}
	if got := e.Metric("analytics_revenue_dropped_total"); got != 8 {
		t.Fatalf("revenue dropped %v, want 8", got)
	}
	if counted := e.stats(id); counted["event"]["Purchase::"] != 7 {
		t.Fatalf("events %v", counted["event"])
	}
}
