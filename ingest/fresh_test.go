package ingest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/analytics-service/analytics/app"
	"github.com/analytics-service/analytics/testkit/harness"
)

// freshWithin is how soon after its 202 every number must count a hit (docs/filters.md,
// "Collection"), at a flush interval of freshFlush.
const (
	freshWithin = 5 * time.Second
	freshFlush  = time.Second
)

// Every number counts a hit within 5 s of its 202, on two collecting nodes on one database,
// while the visits are still in progress: two visitors, one through each node, each send a
// pageview, an event with a property and revenue (a goal), an engagement (time on page) and
// another pageview, turn about. After each 202 the test reads, through the API, the counters,
// the exit pages, a page-filtered summary, the goals' conversions, a property's values, the
// revenue, a funnel, the time on page (unfiltered: counters; filtered: the rows) and the
// realtime view until they are what the hits so far make them, and fails with what it saw
// when 5 s pass first. Each later hit comes within a second or two of its visit's last row
// write, so it is one whose row part is held (ingest: resendEvery) while the visit goes on.
func TestEveryNumberIsFreshOnTwoNodes(t *testing.T) {
	// A running clock: real seconds pass for the flushes and resendEvery. It starts at noon
	// of today, PostgreSQL's date, which funnels count from for a new website (migration
	// 0040) and the visit rows' partitions are made around: a run near midnight cannot split
	// the day.
	now := time.Now().UTC()
	noon := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	a := newCollectEnv(t, app.Config{Node: "node-a", FlushInterval: freshFlush}, harness.At(noon), harness.Running(), harness.Started())
	id := a.site("fresh.test")
	pricing := a.goal(id, "kind", "pageview", "page", "/pricing")
	purchase := a.goal(id, "kind", "event", "event", "Purchase", "currency", "EUR")
	welcome := a.goal(id, "kind", "pageview", "page", "/welcome")
	funnel := a.funnel(id, "Buy", pricing, purchase, welcome)
	// node-b is built after the website, its goals and its funnel: it loads them as it starts.
	b := a.node(func(c *app.Config) { c.Node = "node-b" })

	var want freshNumbers
	want.init()
	type visitor struct {
		node   *collectEnv
		remote string
		millis int // engaged on /pricing
	}
	visitors := []visitor{{a, "198.51.100.7:1", 4000}, {b, "198.51.100.8:1", 8000}}
	steps := []struct {
		name string
		body func(v visitor) string
		adds func(v visitor)
	}{
		{"pageview /pricing", func(visitor) string { return pageHit("fresh.test", "/pricing", "") }, func(visitor) {
			want.pageviews++
			want.visits++
			want.exits["/pricing"]++
			want.goals["Visit /pricing"]++
			want.funnel[0]++
			want.realtimeVisitors++
		}},
		{"event Purchase, a property and revenue",
			func(visitor) string {
				return `{"n":"Purchase","u":"https://fresh.test/pricing","d":"fresh.test","p":{"plan":"pro"},"$":{"amount":"10.50","currency":"EUR"}}`
			}, func(visitor) {
				want.goals["Purchase"]++
				want.plan++
				want.revenueEvents++
				want.revenueCents += 1050
				want.funnel[1]++
			}},
		{"engagement on /pricing", func(v visitor) string {
			return fmt.Sprintf(`{"n":"engagement","u":"https://fresh.test/pricing","d":"fresh.test","e":%d}`, v.millis)
		}, func(v visitor) {
			want.engagedMillis += v.millis
			want.engagedVisits++
		}},
		{"pageview /welcome", func(visitor) string { return pageHit("fresh.test", "/welcome", "https://fresh.test/pricing") }, func(visitor) {
			want.pageviews++
			want.exits["/pricing"]--
			want.exits["/welcome"]++
			want.welcomeVisits++
			want.goals["Visit /welcome"]++
			want.funnel[2]++
		}},
	}
	for _, s := range steps {
		for i, v := range visitors {
			res := v.node.send(hit{body: s.body(v), remote: v.remote})
			accepted := time.Now()
			if res.Status != http.StatusAccepted {
				t.Fatalf("%s of visitor %d: %d %s", s.name, i+1, res.Status, res.Body)
			}
			s.adds(v)
			a.waitForNumbers(id, funnel, want.String(), accepted, fmt.Sprintf("%s of visitor %d (%s)", s.name, i+1, v.node.Config.Node))
		}
	}
}

// freshNumbers are the numbers TestEveryNumberIsFreshOnTwoNodes reads, as the hits so far
// make them.
type freshNumbers struct {
	pageviews, visits int
	exits             map[string]int
	welcomeVisits     int            // visits of the summary filtered by the page /welcome
	goals             map[string]int // visitors converted, by goal
	plan              int            // hits with the property plan=pro
	revenueEvents     int
	revenueCents      int
	funnel            [3]int
	engagedMillis     int // on /pricing, over engagedVisits
	engagedVisits     int
	realtimeVisitors  int // pageviews of the realtime view are pageviews
}

func (n *freshNumbers) init() {
	n.exits = map[string]int{}
	n.goals = map[string]int{"Visit /pricing": 0, "Purchase": 0, "Visit /welcome": 0}
}

// String writes the numbers as freshNumbers.read writes what the API answers.
func (n *freshNumbers) String() string {
	exits := map[string]int{}
	for page, c := range n.exits {
		if c != 0 {
			exits[page] = c
		}
	}
	timeOnPage := "null"
	if n.engagedVisits > 0 {
		timeOnPage = fmt.Sprint((n.engagedMillis/n.engagedVisits + 500) / 1000)
	}
	return freshLine(n.pageviews, n.visits, exits, n.welcomeVisits, n.goals, n.plan,
		fmt.Sprintf("%d %d.%02d", n.revenueEvents, n.revenueCents/100, n.revenueCents%100), n.funnel[:], timeOnPage, timeOnPage,
		n.realtimeVisitors, n.pageviews)
}

func freshLine(pageviews, visits int, exits map[string]int, welcomeVisits int, goals map[string]int, plan int, revenue string,
	funnel []int, timeOnPage, filteredTimeOnPage string, realtimeVisitors, realtimePageviews int) string {
	return fmt.Sprintf("pageviews %d, visits %d, exit pages %s, visits of /welcome %d, goals %s, plan=pro %d, revenue %s, "+
		"funnel %v, time on /pricing %s (filtered %s), realtime %d visitors %d pageviews",
		pageviews, visits, sortedCounts(exits), welcomeVisits, sortedCounts(goals), plan, revenue, funnel,
		timeOnPage, filteredTimeOnPage, realtimeVisitors, realtimePageviews)
}

func sortedCounts(m map[string]int) string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}

// waitForNumbers reads the numbers until they are want, failing with the last read once
// freshWithin has passed since the hit's 202 (a read that began in time counts).
func (c *collectEnv) waitForNumbers(id, funnel int64, want string, accepted time.Time, what string) {
	c.T.Helper()
	for {
		began := time.Now()
		got := c.freshRead(id, funnel)
		if got == want {
			c.T.Logf("%s: counted %v after its 202", what, time.Since(accepted).Round(10*time.Millisecond))
			return
		}
		if began.Sub(accepted) > freshWithin {
			c.T.Fatalf("%s: not every number counts it %v after its 202\n got  %s\n want %s", what, freshWithin, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freshRead reads the numbers of freshNumbers through the API, on the day of the test.
func (c *collectEnv) freshRead(id, funnel int64) string {
	c.T.Helper()
	day := c.Clock.Now().Format(time.DateOnly)
	rng := "from=" + day + "&to=" + day
	var summary struct {
		Data struct {
			Visits int `json:"visits"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d/summary?%s&filter[page]=/welcome", id, rng), &summary)
	var goals struct {
		Data []struct {
			Goal     string `json:"goal"`
			Visitors int    `json:"visitors"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d/goals?%s", id, rng), &goals)
	converted := map[string]int{}
	for _, g := range goals.Data {
		converted[g.Goal] = g.Visitors
	}
	var plan struct {
		Data []struct {
			Value string `json:"value"`
			Count int    `json:"count"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d?name=property&property=plan&%s", id, rng), &plan)
	pro := 0
	for _, p := range plan.Data {
		if p.Value == "pro" {
			pro = p.Count
		}
	}
	var revenue struct {
		Data []struct {
			Goal     string `json:"goal"`
			Currency string `json:"currency"`
			Events   int    `json:"events"`
			Amount   string `json:"amount"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d/revenue?%s", id, rng), &revenue)
	paid := "0 0.00"
	for _, r := range revenue.Data {
		if r.Goal == "Purchase" && r.Currency == "EUR" {
			paid = fmt.Sprintf("%d %s", r.Events, r.Amount)
		}
	}
	var steps struct {
		Data struct {
			Steps []struct {
				Visitors int `json:"visitors"`
			} `json:"steps"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d/funnels/%d?%s", id, funnel, rng), &steps)
	var reached []int
	for _, s := range steps.Data.Steps {
		reached = append(reached, s.Visitors)
	}
	var realtime struct {
		Data struct {
			Visitors  int   `json:"visitors"`
			Pageviews []int `json:"pageviews"`
		} `json:"data"`
	}
	c.getJSON(fmt.Sprintf("/api/v1/stats/%d/realtime", id), &realtime)
	minutes := 0
	for _, n := range realtime.Data.Pageviews {
		minutes += n
	}
	exits := map[string]int{}
	for page, n := range c.apiStats(id, "exit_page", day, day) {
		exits[page] = int(n)
	}
	return freshLine(int(c.apiStats(id, "pageview", day, day)[day]), int(c.apiStats(id, "visit", day, day)[day]), exits,
		summary.Data.Visits, converted, pro, paid, reached,
		c.timeOnPage(fmt.Sprintf("/api/v1/stats/%d?name=page&%s", id, rng)),
		c.timeOnPage(fmt.Sprintf("/api/v1/stats/%d?name=page&%s&filter[landing_page]=/pricing", id, rng)),
		realtime.Data.Visitors, minutes)
}

// timeOnPage is the time on /pricing of a page list, "null" when it has none.
func (c *collectEnv) timeOnPage(path string) string {
	c.T.Helper()
	var pages struct {
		Data []struct {
			Value      string `json:"value"`
			TimeOnPage *int   `json:"time_on_page"`
		} `json:"data"`
	}
	c.getJSON(path, &pages)
	for _, p := range pages.Data {
		if p.Value == "/pricing" && p.TimeOnPage != nil {
			return fmt.Sprint(*p.TimeOnPage)
		}
	}
	return "null"
}

// getJSON reads path with the owner's key, which must answer 200, into out.
func (c *collectEnv) getJSON(path string, out any) {
	c.T.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://api.test"+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	res := c.DoRequest(req)
	if res.Status != http.StatusOK {
		c.T.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		c.T.Fatalf("GET %s: %v: %s", path, err, res.Body)
	}
}

// goal makes a goal of the website through the API and gives its id.
func (c *collectEnv) goal(site int64, kv ...string) int64 {
	c.T.Helper()
	return c.create(fmt.Sprintf("/api/v1/websites/%d/goals", site), kv...)
}

// funnel makes a funnel of the goals through the API and gives its id.
func (c *collectEnv) funnel(site int64, name string, goals ...int64) int64 {
	c.T.Helper()
	kv := []string{"name", name}
	for _, g := range goals {
		kv = append(kv, "steps", fmt.Sprint(g))
	}
	return c.create(fmt.Sprintf("/api/v1/websites/%d/funnels", site), kv...)
}

// create posts the form kv (name, value, ...) to path, which must answer 201 with data.id.
func (c *collectEnv) create(path string, kv ...string) int64 {
	c.T.Helper()
	form := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		form[kv[i]] = append(form[kv[i]], kv[i+1])
	}
	res := c.Do(harness.Request{Method: http.MethodPost, Path: path, Key: c.key, Form: form})
	if res.Status != http.StatusCreated {
		c.T.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
	}
	var body struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		c.T.Fatal(err)
	}
	return body.Data.ID
}
